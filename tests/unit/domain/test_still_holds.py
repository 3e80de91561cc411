"""The staleness rule by re-validation (DESIGN "Still holds"): a plan is stale only when it no longer holds on the
current shop, or a day of it has passed; a change that only frees capacity or stock never stales it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from production_orchestrator.domain.errors import PlanningError
from production_orchestrator.domain.planning.application import apply_proposal, judge
from production_orchestrator.domain.planning.proposal import ProposalContent
from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop import life
from production_orchestrator.domain.shop.footprint import footprint_digest
from production_orchestrator.domain.shop.model import Allocation, Order, ShopState

TODAY = "2026-08-12"


def _order(order_id: str, product: str, quantity: int, day: str, minutes: int, priority: int = 100) -> Order:
    return Order(
        id=order_id,
        customer="Other",
        product=product,
        quantity=quantity,
        due="2026-08-20",
        priority=priority,
        schedule=(Allocation(machine="EMB-01", day=day, minutes=minutes),),
    )


def shop() -> ShopState:
    """The rush-order shop with two orders the plan does not move: one on a day it books, one using its material."""
    state = SCENARIOS["rush-order"].taken_in()
    return state.with_orders(
        [
            _order("OTHER-1", "LOGO-PATCH-BLUE", 5, "2026-08-13", 90),
            _order("LATER-2", "CREST-PATCH-RED", 10, "2026-08-14", 20),
        ]
    )


def planned() -> tuple[ShopState, ProposalContent]:
    state = shop()
    return state, build_proposal(state, "RUSH-200", TODAY)


def test_the_plan_moves_standard_and_buys_red_thread() -> None:
    state, proposal = planned()
    assert {c.order_id for c in proposal.schedule_changes} == {"RUSH-200", "STANDARD-100"}
    assert [a.material_id for a in proposal.procurement_actions] == ["THREAD-RED-40"]
    assert not judge(state, proposal, today=TODAY).stale


@pytest.mark.parametrize(
    "change",
    [
        lambda s: life.complete(s, "OTHER-1", TODAY),
        lambda s: life.cancel(s, "OTHER-1", "customer withdrew", TODAY),
        lambda s: life.cancel(s, "LATER-2", "customer withdrew", TODAY),
        lambda s: life.complete(s, "LATER-2", TODAY),
        lambda s: life.receive(s, "THREAD-RED-40", 300, "note 1"),
        lambda s: life.receive(s, "THREAD-BLUE-40", 5, ""),
    ],
    ids=["complete-other", "cancel-other", "cancel-material-user", "complete-material-user", "receive", "receive-blue"],
)
def test_a_change_that_only_frees_capacity_or_stock_never_stales(change: object) -> None:
    state, proposal = planned()
    after = change(state).state  # type: ignore[operator]
    verdict = judge(after, proposal, state, TODAY)
    assert not verdict.stale and verdict.result == "still holds", verdict.reasons
    applied = apply_proposal(after, proposal, TODAY)
    assert applied.order("RUSH-200") == apply_proposal(state, proposal).order("RUSH-200")
    assert applied.revision == after.revision + 1


def test_the_footprint_digest_staled_those_changes() -> None:
    # What the old rule did with the same changes: the complete on a day the plan books counted as a conflict.
    state, proposal = planned()
    after = life.complete(state, "OTHER-1", TODAY).state
    assert footprint_digest(after, proposal.footprint) != proposal.footprint_digest


@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["complete", "cancel", "receive"]), st.integers(min_value=0, max_value=3)),
        max_size=6,
    ),
    quantity=st.integers(min_value=1, max_value=5000),
)
@settings(max_examples=60, deadline=None)
def test_freeing_changes_in_any_order_never_stale(steps: list[tuple[str, int]], quantity: int) -> None:
    state, proposal = planned()
    current = state
    for kind, pick in steps:
        others = [o.id for o in current.orders if o.id in ("OTHER-1", "LATER-2")]
        if kind == "receive":
            material = current.materials[pick % len(current.materials)].id
            current = life.receive(current, material, quantity).state
        elif others:
            order_id = others[pick % len(others)]
            step = (
                life.complete(current, order_id, TODAY)
                if kind == "complete"
                else life.cancel(current, order_id, "x", TODAY)
            )
            current = step.state
    assert not judge(current, proposal, today=TODAY).stale


def _reasons(current: ShopState, proposal: ProposalContent, today: str = TODAY) -> str:
    verdict = judge(current, proposal, today=today)
    assert verdict.stale
    return verdict.message()


def test_a_moved_order_that_completed_is_named() -> None:
    state, proposal = planned()
    after = life.complete(state, "STANDARD-100", TODAY).state
    assert "order STANDARD-100 was completed on 2026-08-12" in _reasons(after, proposal)


def test_a_moved_order_that_was_cancelled_is_named_with_its_reason() -> None:
    state, proposal = planned()
    after = life.cancel(state, "STANDARD-100", "cafe closed", TODAY).state
    assert "order STANDARD-100 was cancelled on 2026-08-12 (cafe closed)" in _reasons(after, proposal)


def test_a_moved_order_that_made_progress_is_no_longer_where_the_plan_found_it() -> None:
    state, proposal = planned()
    after = life.progress(state, "STANDARD-100", 30).state
    assert "order STANDARD-100 is no longer where the plan found it" in _reasons(after, proposal)


def test_capacity_taken_on_a_day_the_plan_books_breaks_the_capacity_rule() -> None:
    state, proposal = planned()
    intruder = _order("INTRUDER-9", "LOGO-PATCH-BLUE", 5, "2026-08-12", 90)
    message = _reasons(state.with_order(intruder), proposal)
    assert "capacity: EMB-01 2026-08-12" in message


def test_a_closed_day_breaks_the_calendar() -> None:
    state, proposal = planned()
    closed = state.model_copy(
        update={"machines": (state.machines[0].model_copy(update={"closed_days": ("2026-08-13",)}),)}
    )
    assert "moved_work_fits_its_order: STANDARD-100" in _reasons(closed, proposal)


def test_stock_taken_by_another_plan_breaks_the_materials_rule() -> None:
    state, proposal = planned()
    assert "materials: THREAD-RED-40 would be" in _reasons(state.with_inventory("THREAD-RED-40", 0), proposal)


def test_a_longer_lead_time_breaks_the_purchase_promise() -> None:
    state, proposal = planned()
    slower = state.model_copy(
        update={
            "materials": tuple(
                m.model_copy(update={"lead_time_days": 3}) if m.id == "THREAD-RED-40" else m for m in state.materials
            )
        }
    )
    message = _reasons(slower, proposal)
    assert "can no longer arrive by 2026-08-12 (lead time is now 3 days)" in message


def test_an_earlier_due_date_of_a_moved_order_breaks_its_promise() -> None:
    state, proposal = planned()
    standard = state.order("STANDARD-100")
    assert standard is not None
    sooner = state.with_order(standard.model_copy(update={"due": "2026-08-12"}))
    assert "STANDARD-100" in _reasons(sooner, proposal)


def test_the_strict_rule_still_stales_on_any_change() -> None:
    state = shop()
    strict = state.model_copy(update={"staleness": "any-change"})
    strict_proposal = build_proposal(strict, "RUSH-200", TODAY)
    after = life.receive(strict, "THREAD-BLUE-40", 5).state
    assert "any-change" in _reasons(after, strict_proposal)


def test_a_day_that_passed_stales_by_time_even_on_an_unchanged_shop() -> None:
    state, proposal = planned()
    verdict = judge(state, proposal, today="2026-08-13")
    assert verdict.stale and verdict.by_time and verdict.unchanged
    assert verdict.message().startswith(
        "the plan is stale by time: it changes EMB-01 on 2026-08-12, a day that has passed"
    )
    assert "Propose it again from today" in verdict.message()
    with pytest.raises(PlanningError, match="stale by time"):
        apply_proposal(state, proposal, "2026-08-13")


def test_a_purchase_day_that_passed_stales_by_time() -> None:
    state, proposal = planned()
    action = proposal.procurement_actions[0]
    later = proposal.model_copy(
        update={"procurement_actions": (action.model_copy(update={"needed_by": "2026-08-15"}),), "schedule_changes": ()}
    )
    slow = state.model_copy(
        update={
            "materials": tuple(
                m.model_copy(update={"lead_time_days": 2}) if m.id == "THREAD-RED-40" else m for m in state.materials
            )
        }
    )
    assert not judge(slow, later, today="2026-08-13").by_time
    message = _reasons(slow, later, today="2026-08-14")
    assert "had to be placed by 2026-08-13, a day that has passed (today is 2026-08-14" in message
