"""The expected plans of DESIGN.md section 3 come out exactly, for all three scenarios."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import PlanningError
from production_orchestrator.domain.intake import parse_customer_email
from production_orchestrator.domain.planning import (
    CapacityConflict,
    InventoryShortage,
    apply_proposal,
    build_proposal,
)
from production_orchestrator.domain.scenarios import CATALOG, SCENARIOS, TODAY, TOMORROW
from production_orchestrator.domain.shop import ShopState


def taken_in(name: str) -> ShopState:
    scenario = SCENARIOS[name]
    order = parse_customer_email(scenario.customer_email, CATALOG, scenario.state.days)
    return scenario.state.with_order(order)


def moves(name: str) -> list[tuple[str, str | None, str]]:
    proposal = build_proposal(taken_in(name), SCENARIOS[name].target_order_id)
    return [(c.order_id, c.from_day, c.to_day) for c in proposal.schedule_changes]


def test_rush_order_plan() -> None:
    proposal = build_proposal(taken_in("rush-order"), "RUSH-200")
    assert proposal.evidence == (
        InventoryShortage(material_id="THREAD-RED-40", required=1200, available=600, shortfall=600),
        CapacityConflict(
            machine_id="EMB-01",
            day=TODAY,
            required_minutes=600,
            available_minutes=480,
            related_orders=("STANDARD-100",),
        ),
    )
    assert moves("rush-order") == [("STANDARD-100", TODAY, TOMORROW), ("RUSH-200", None, TODAY)]
    assert [(a.material_id, a.quantity) for a in proposal.procurement_actions] == [("THREAD-RED-40", 600)]
    assert [d.audience for d in proposal.communication_drafts] == ["customer", "operator", "supplier"]


def test_team_jerseys_plan() -> None:
    proposal = build_proposal(taken_in("team-jerseys"), "JERSEY-310")
    assert moves("team-jerseys") == [
        ("CAPS-110", TODAY, TOMORROW),
        ("TOTES-120", TODAY, TOMORROW),
        ("JERSEY-310", None, TODAY),
    ]
    assert proposal.procurement_actions == ()
    assert not any(isinstance(b, InventoryShortage) for b in proposal.evidence)
    assert [d.audience for d in proposal.communication_drafts] == ["customer", "operator"]


def test_metallic_monogram_plan() -> None:
    proposal = build_proposal(taken_in("metallic-monogram"), "GOLD-500")
    assert moves("metallic-monogram") == [("BATCH-220", TODAY, TOMORROW), ("GOLD-500", None, TODAY)]
    assert [(a.material_id, a.quantity) for a in proposal.procurement_actions] == [("THREAD-GOLD-60", 1100)]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_same_scenario_same_hash(name: str) -> None:
    first = build_proposal(taken_in(name), SCENARIOS[name].target_order_id)
    second = build_proposal(taken_in(name), SCENARIOS[name].target_order_id)
    assert first.proposal_hash() == second.proposal_hash()
    assert len(first.proposal_hash()) == 64


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_apply_moves_to_revision_two_and_fits_capacity(name: str) -> None:
    state = taken_in(name)
    proposal = build_proposal(state, SCENARIOS[name].target_order_id)
    after = apply_proposal(state, proposal, proposal.proposal_hash())
    assert after.revision == 2
    for machine in after.machines:
        for day in after.days:
            assert after.booked_minutes(machine.machine_id, day) <= machine.minutes_per_day
    assert after.order(SCENARIOS[name].target_order_id).scheduled_day == TODAY  # type: ignore[union-attr]


def test_apply_refuses_a_state_that_moved_on() -> None:
    state = taken_in("rush-order")
    proposal = build_proposal(state, "RUSH-200")
    after = apply_proposal(state, proposal, proposal.proposal_hash())
    with pytest.raises(PlanningError, match="revision"):
        apply_proposal(after, proposal, proposal.proposal_hash())


def test_already_scheduled_order_has_nothing_to_plan() -> None:
    state = taken_in("rush-order")
    proposal = build_proposal(state, "RUSH-200")
    after = apply_proposal(state, proposal, proposal.proposal_hash())
    with pytest.raises(PlanningError, match="already scheduled"):
        build_proposal(after, "RUSH-200")


def test_unknown_order_cannot_be_planned() -> None:
    with pytest.raises(PlanningError, match="not in the shop"):
        build_proposal(SCENARIOS["rush-order"].state, "RUSH-200")


def test_no_room_even_after_moving_everything_is_a_clear_error() -> None:
    state = taken_in("rush-order")
    # A second rush order of higher priority fills tomorrow, so nothing can move there.
    full = state.orders[0].model_copy(
        update={"order_id": "BIG-900", "scheduled_day": TOMORROW, "machine_minutes": 480, "priority": 99}
    )
    with pytest.raises(PlanningError, match="cannot fit"):
        build_proposal(state.with_order(full), "RUSH-200")


def test_rejection_does_not_touch_digest_inputs() -> None:
    state = taken_in("rush-order")
    assert state.digest() == taken_in("rush-order").digest()
    assert state.with_inventory("THREAD-RED-40", 601).digest() != state.digest()
