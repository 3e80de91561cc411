"""The planner: the expected plans of DESIGN.md section 3, and the rules a shop relies on."""

from __future__ import annotations

import random
from typing import Any

import pytest

from production_orchestrator.domain.errors import PlanningError
from production_orchestrator.domain.planning.proposal import CapacityConflict, InventoryShortage
from production_orchestrator.domain.planning.propose import apply_proposal, build_proposal
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY, TOMORROW
from production_orchestrator.domain.shop.file_format import read_shop, write_shop
from production_orchestrator.domain.shop.model import Order, ShopState


def moves(name: str) -> list[tuple[str, list[tuple[str, str, int]], list[tuple[str, str, int]]]]:
    chosen = SCENARIOS[name]
    proposal = build_proposal(chosen.taken_in(), chosen.target_order_id, TODAY)
    return [
        (
            c.order_id,
            [(a.machine, a.day, a.minutes) for a in c.before],
            [(a.machine, a.day, a.minutes) for a in c.after],
        )
        for c in proposal.schedule_changes
    ]


def test_rush_order_plan() -> None:
    proposal = build_proposal(SCENARIOS["rush-order"].taken_in(), "RUSH-200", TODAY)
    assert proposal.evidence == (
        InventoryShortage(material_id="THREAD-RED-40", required=1200, available=600, shortfall=600),
        CapacityConflict(
            machines=("EMB-01",),
            first_day=TODAY,
            last_day=TODAY,
            required_minutes=600,
            available_minutes=480,
            related_orders=("STANDARD-100",),
        ),
    )
    assert moves("rush-order") == [
        ("STANDARD-100", [("EMB-01", TODAY, 360)], [("EMB-01", TOMORROW, 360)]),
        ("RUSH-200", [], [("EMB-01", TODAY, 240)]),
    ]
    assert [(a.material_id, a.quantity, a.needed_by) for a in proposal.procurement_actions] == [
        ("THREAD-RED-40", 600, TODAY)
    ]
    assert [d.audience for d in proposal.communication_drafts] == ["customer", "operator", "supplier"]
    assert proposal.at_risk == ()


def test_team_jerseys_plan() -> None:
    proposal = build_proposal(SCENARIOS["team-jerseys"].taken_in(), "JERSEY-310", TODAY)
    assert moves("team-jerseys") == [
        ("CAPS-110", [("EMB-01", TODAY, 120)], [("EMB-01", TOMORROW, 120)]),
        ("TOTES-120", [("EMB-01", TODAY, 180)], [("EMB-01", TOMORROW, 180)]),
        ("JERSEY-310", [], [("EMB-01", TODAY, 420)]),
    ]
    assert proposal.procurement_actions == ()
    assert not any(isinstance(b, InventoryShortage) for b in proposal.evidence)
    assert [d.audience for d in proposal.communication_drafts] == ["customer", "operator"]


def test_metallic_monogram_plan() -> None:
    proposal = build_proposal(SCENARIOS["metallic-monogram"].taken_in(), "GOLD-500", TODAY)
    assert moves("metallic-monogram") == [
        ("BATCH-220", [("EMB-02", TODAY, 360)], [("EMB-02", TOMORROW, 360)]),
        ("GOLD-500", [], [("EMB-02", TODAY, 300)]),
    ]
    assert [(a.material_id, a.quantity) for a in proposal.procurement_actions] == [("THREAD-GOLD-60", 1100)]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_apply_gives_exactly_the_described_state(name: str) -> None:
    state = SCENARIOS[name].taken_in()
    proposal = build_proposal(state, SCENARIOS[name].target_order_id, TODAY)
    after = apply_proposal(state, proposal)
    assert after.revision == 2 and after.digest() == proposal.result_digest
    assert len(proposal.proposal_hash()) == 64
    for machine in after.machines:
        for day in (TODAY, TOMORROW):
            assert after.booked_minutes(machine.id, day) <= machine.minutes_per_day


def shop(**changes: Any) -> dict[str, Any]:
    """A small shop document: two presses, one ink, one product on both presses."""
    doc: dict[str, Any] = {
        "name": "Print Co",
        "timezone": "Europe/Berlin",
        "operator_email": "floor@print.example",
        "machines": [
            {"id": "PRESS-A", "minutes_per_day": 480, "closed_days": ["2026-12-25"]},
            {"id": "PRESS-B", "minutes_per_day": 240, "weekdays": ["mon", "tue", "wed", "thu", "fri"]},
        ],
        "materials": [{"id": "INK", "on_hand": 100_000, "supplier_email": "ink@supply.example", "lead_time_days": 3}],
        "products": [
            {
                "code": "TOTE",
                "description": "tote bag",
                "machines": ["PRESS-A", "PRESS-B"],
                "minutes_per_unit": 2,
                "materials": [{"id": "INK", "per_unit": 5}],
            },
            {"code": "CAP", "description": "cap", "machines": ["PRESS-A"], "minutes_per_unit": 4},
        ],
        "orders": [],
    }
    doc.update(changes)
    return doc


def order(oid: str, quantity: int, due: str, priority: int = 50, schedule: Any = (), product: str = "TOTE") -> Any:
    return {
        "id": oid,
        "customer": "C",
        "customer_email": "c@c.example",
        "product": product,
        "quantity": quantity,
        "due": due,
        "priority": priority,
        "schedule": list(schedule),
    }


def plan(doc: dict[str, Any], target: str, day: str) -> Any:
    state = read_shop(doc)
    return state, build_proposal(state, target, day)


def slots(proposal: Any) -> list[tuple[str, str, int]]:
    return [(a.machine, a.day, a.minutes) for a in proposal.new_schedule()]


def test_splits_over_machines_and_days_and_skips_closed_days_and_weekends() -> None:
    # Thu 2026-12-24: both presses; Fri 25th: PRESS-A closed, PRESS-B works; Sat 26th: only PRESS-A.
    _, proposal = plan(shop(orders=[order("NEW", 500, "2026-12-26")]), "NEW", "2026-12-24")
    assert slots(proposal) == [
        ("PRESS-A", "2026-12-24", 480),
        ("PRESS-B", "2026-12-24", 240),
        ("PRESS-B", "2026-12-25", 240),
        ("PRESS-A", "2026-12-26", 40),
    ]
    assert proposal.at_risk == ()


def test_lower_priority_work_moves_but_never_past_its_due_date() -> None:
    busy = [
        order(
            "LOW-LATE-OK",
            240,
            "2026-12-31",
            priority=10,
            schedule=[{"machine": "PRESS-A", "day": "2026-12-21", "minutes": 480}],
        ),
        order(
            "LOW-DUE-NOW",
            120,
            "2026-12-21",
            priority=5,
            schedule=[{"machine": "PRESS-B", "day": "2026-12-21", "minutes": 240}],
        ),
    ]
    state, proposal = plan(shop(orders=[*busy, order("NEW", 240, "2026-12-21", priority=90)]), "NEW", "2026-12-21")
    changes = {c.order_id: c for c in proposal.schedule_changes}
    assert "LOW-DUE-NOW" not in changes  # due that day: it may not move
    assert [(a.machine, a.day) for a in changes["LOW-LATE-OK"].after] == [("PRESS-A", "2026-12-22")]
    assert slots(proposal) == [("PRESS-A", "2026-12-21", 480)]
    after = apply_proposal(state, proposal)
    for o in after.orders:
        assert o.schedule[-1].day <= o.due


def test_higher_priority_work_is_never_moved_and_the_new_order_is_at_risk() -> None:
    busy = order(
        "HIGH", 240, "2026-12-31", priority=95, schedule=[{"machine": "PRESS-A", "day": "2026-12-21", "minutes": 480}]
    )
    doc = shop(orders=[busy, order("NEW", 120, "2026-12-21", priority=60, product="CAP")])
    _, proposal = plan(doc, "NEW", "2026-12-21")
    assert [c.order_id for c in proposal.schedule_changes] == ["NEW"]
    assert slots(proposal) == [("PRESS-A", "2026-12-22", 480)]
    [risk] = proposal.at_risk
    assert (risk.order_id, risk.reason, risk.finish, risk.blocking_orders) == (
        "NEW",
        "capacity",
        "2026-12-22",
        ("HIGH",),
    )
    assert [d.audience for d in proposal.communication_drafts] == ["customer", "operator"]
    assert "cannot make 2026-12-21" in proposal.communication_drafts[0].body


def test_shortfall_is_procured_from_the_supplier_and_lead_time_delays_the_start() -> None:
    doc = shop(orders=[order("NEW", 300, "2026-12-31")])  # needs 1500 INK, 1000 on hand, lead time 3 days
    doc["materials"][0]["on_hand"] = 1000
    state, proposal = plan(doc, "NEW", "2026-12-21")
    [line] = proposal.procurement_actions
    assert (line.material_id, line.quantity, line.supplier_email) == ("INK", 500, "ink@supply.example")
    assert proposal.new_schedule()[0].day == "2026-12-24" == line.needed_by  # planning day + 3
    assert proposal.at_risk == ()
    assert [d.to for d in proposal.communication_drafts][-1] == "ink@supply.example"
    after = apply_proposal(state, proposal)
    assert [(p.material, p.quantity) for p in after.procurement] == [("INK", 500)]


def test_on_order_and_committed_procurement_count_as_supply() -> None:
    doc = shop(orders=[order("NEW", 300, "2026-12-31")])
    doc["materials"][0].update(on_hand=1000, on_order=500)
    _, proposal = plan(doc, "NEW", "2026-12-21")
    assert proposal.procurement_actions == () and proposal.new_schedule()[0].day == "2026-12-21"


def test_material_that_cannot_arrive_in_time_puts_the_order_at_risk() -> None:
    doc = shop(orders=[order("NEW", 300, "2026-12-22")])
    doc["materials"][0]["on_hand"] = 1000
    _, proposal = plan(doc, "NEW", "2026-12-21")
    [risk] = proposal.at_risk
    assert (risk.order_id, risk.reason) == ("NEW", "material")
    assert proposal.new_schedule()[0].day == "2026-12-24"


def test_the_plan_does_not_depend_on_the_order_of_the_arrays() -> None:
    busy = [
        order(
            f"O-{i}",
            60,
            "2026-12-31",
            priority=10 + i,
            schedule=[{"machine": "PRESS-A", "day": "2026-12-21", "minutes": 120}],
        )
        for i in range(4)
    ]
    doc = shop(orders=[*busy, order("NEW", 300, "2026-12-21", priority=90)])
    hashes = set()
    for seed in range(5):
        shuffled = {k: (random.Random(seed).sample(v, len(v)) if isinstance(v, list) else v) for k, v in doc.items()}
        state, proposal = plan(shuffled, "NEW", "2026-12-21")
        hashes.add((state.digest(), proposal.proposal_hash()))
    assert len(hashes) == 1


def test_export_imports_to_the_same_digest() -> None:
    state = SCENARIOS["team-jerseys"].taken_in()
    assert read_shop(write_shop(state)).digest() == state.digest()


def test_apply_refuses_a_state_that_moved_on() -> None:
    state = SCENARIOS["rush-order"].taken_in()
    proposal = build_proposal(state, "RUSH-200", TODAY)
    after = apply_proposal(state, proposal)
    with pytest.raises(PlanningError, match=r"order RUSH-200 changed|footprint changed"):
        apply_proposal(after, proposal)
    with pytest.raises(PlanningError, match="footprint changed"):
        apply_proposal(state.with_inventory("THREAD-RED-40", 601), proposal)


def test_a_change_outside_the_footprint_does_not_stop_the_apply() -> None:
    state = SCENARIOS["rush-order"].taken_in()
    proposal = build_proposal(state, "RUSH-200", TODAY)
    elsewhere = state.with_order(
        Order(id="ELSEWHERE-1", customer="Other", product="CREST-PATCH-RED", quantity=1, due="2026-09-30", priority=5)
    ).model_copy(update={"revision": 4})
    after = apply_proposal(elsewhere, proposal)
    assert after.revision == 5 and after.order("ELSEWHERE-1") == elsewhere.order("ELSEWHERE-1")
    assert after.order("RUSH-200") == apply_proposal(state, proposal).order("RUSH-200")


def test_the_strict_rule_stales_on_any_change() -> None:
    state = SCENARIOS["rush-order"].taken_in().model_copy(update={"staleness": "any-change"})
    proposal = build_proposal(state, "RUSH-200", TODAY)
    elsewhere = state.model_copy(update={"revision": 4})
    with pytest.raises(PlanningError, match="any-change"):
        apply_proposal(elsewhere, proposal)


def test_a_footprint_that_changed_back_is_no_longer_stale() -> None:
    state = SCENARIOS["rush-order"].taken_in()
    proposal = build_proposal(state, "RUSH-200", TODAY)
    recounted = state.with_inventory("THREAD-RED-40", 601).with_inventory("THREAD-RED-40", 600)
    assert apply_proposal(recounted.model_copy(update={"revision": 3}), proposal).revision == 4


def test_apply_refuses_a_proposal_whose_result_was_altered() -> None:
    state = SCENARIOS["rush-order"].taken_in()
    proposal = build_proposal(state, "RUSH-200", TODAY)
    forged = proposal.model_copy(update={"procurement_actions": ()})
    with pytest.raises(PlanningError, match="would not give the state it describes"):
        apply_proposal(state, forged)


def test_already_scheduled_order_has_nothing_to_plan() -> None:
    state = SCENARIOS["rush-order"].taken_in()
    after = apply_proposal(state, build_proposal(state, "RUSH-200", TODAY))
    with pytest.raises(PlanningError, match="already scheduled"):
        build_proposal(after, "RUSH-200", TODAY)


def test_unknown_order_cannot_be_planned() -> None:
    with pytest.raises(PlanningError, match="not in the shop"):
        build_proposal(SCENARIOS["rush-order"].state, "RUSH-200", TODAY)


def test_an_order_that_fits_nowhere_in_the_horizon_is_a_clear_error() -> None:
    doc = shop(orders=[order("HUGE", 3_000_000, "2026-12-31", product="CAP")])
    with pytest.raises(PlanningError, match="do not fit anywhere in the 90 days"):
        plan(doc, "HUGE", "2026-12-21")


def test_rejection_does_not_touch_digest_inputs() -> None:
    state: ShopState = SCENARIOS["rush-order"].taken_in()
    assert state.digest() == SCENARIOS["rush-order"].taken_in().digest()
    assert state.with_inventory("THREAD-RED-40", 601).digest() != state.digest()
