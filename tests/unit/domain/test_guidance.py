"""Guidance for a revised plan: checked against the shop before anything is planned, seen by every planner as
a pinned order or extra capacity, and overtime applied only with the plan (and checked again when it applies)."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import GuidanceRefusedError, PlanningError
from production_orchestrator.domain.planning.application import judge, rule_breaks
from production_orchestrator.domain.planning.guidance import (
    Guidance,
    Overtime,
    Revision,
    check_guidance,
    planner_view,
    with_calendar,
)
from production_orchestrator.domain.planning.propose import Requested, apply_proposal, build_proposal
from production_orchestrator.domain.planning.versions import version_changes
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY, TOMORROW
from production_orchestrator.domain.shop.model import ShopState

OVERTIME = Overtime(machine="EMB-01", day=TODAY, minutes=120)


def _shop() -> ShopState:
    return SCENARIOS["rush-order"].taken_in()


def _revised(shop: ShopState, guidance: Guidance, nodes: int = 200) -> object:
    first = build_proposal(shop, "RUSH-200", TODAY)
    revision = Revision(version=2, supersedes=first.proposal_hash(), given_by="ana@example.com", guidance=guidance)
    return build_proposal(shop, "RUSH-200", TODAY, Requested(revision=revision), solver_nodes=nodes)


def test_a_closed_day_gets_no_overtime() -> None:
    shop = _shop()
    closed = shop.model_copy(
        update={"machines": tuple(m.model_copy(update={"closed_days": (TOMORROW,)}) for m in shop.machines)}
    )
    with pytest.raises(GuidanceRefusedError) as refused:
        check_guidance(
            closed, Guidance(overtime=(Overtime(machine="EMB-01", day=TOMORROW, minutes=60),)), "RUSH-200", TODAY
        )
    assert refused.value.code.value == "CLOSED_DAY"


def test_the_planners_see_the_kept_order_pinned_and_the_overtime_as_capacity() -> None:
    shop = _shop()
    target = shop.order("RUSH-200")
    assert target is not None
    view = planner_view(shop, Guidance(keep=("STANDARD-100",), overtime=(OVERTIME,)), target)
    assert view.order("STANDARD-100").priority == target.priority  # type: ignore[union-attr]
    assert view.machine("EMB-01").minutes_on(TODAY) == 600  # type: ignore[union-attr]
    assert shop.machine("EMB-01").minutes_on(TODAY) == 480  # type: ignore[union-attr]


@pytest.mark.parametrize("nodes", [0, 200])  # greedy, and the solver (checked by the independent checker)
def test_both_planners_keep_the_order_and_use_the_overtime(nodes: int) -> None:
    shop = _shop()
    kept = _revised(shop, Guidance(keep=("STANDARD-100",)), nodes)
    assert [c.order_id for c in kept.schedule_changes] == ["RUSH-200"]  # type: ignore[attr-defined]
    with_overtime = _revised(shop, Guidance(keep=("STANDARD-100",), overtime=(OVERTIME,)), nodes)
    assert with_overtime.at_risk == () and with_overtime.calendar_changes == (OVERTIME,)  # type: ignore[attr-defined]
    after = apply_proposal(shop, with_overtime)  # type: ignore[arg-type]
    assert after.machine("EMB-01").overtime[0].minutes == 120  # type: ignore[union-attr]
    assert rule_breaks(shop, after, with_overtime) == []  # type: ignore[arg-type]
    assert "adds overtime: EMB-01 on 2026-08-12: 120 extra minutes" in version_changes(kept, with_overtime)  # type: ignore[arg-type]


def test_an_overtime_plan_on_a_shop_whose_day_filled_up_is_stale() -> None:
    shop = _shop()
    plan = _revised(shop, Guidance(keep=("STANDARD-100",), overtime=(OVERTIME,)))
    # Someone else's overtime already took the day to its limit: adding this plan's would pass a day's minutes.
    full = with_calendar(shop, [Overtime(machine="EMB-01", day=TODAY, minutes=900)])
    verdict = judge(full, plan)  # type: ignore[arg-type]
    assert verdict.stale
    with pytest.raises(PlanningError):
        apply_proposal(full, plan)  # type: ignore[arg-type]


def test_a_proposal_without_revision_hashes_as_before() -> None:
    proposal = build_proposal(_shop(), "RUSH-200", TODAY)
    data = proposal.to_canonical()
    assert "revision" not in data and "calendar_changes" not in data
    assert all("overtime" not in m for m in _shop().to_canonical()["machines"])
