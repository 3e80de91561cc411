"""The planner: the expected plans of DESIGN.md section 3, and the rules a shop relies on."""

from __future__ import annotations

import random
from typing import Any

import pytest

from production_orchestrator.domain.errors import PlanningError, UnplannableError
from production_orchestrator.domain.planning.materials import existing_shortages, plan_procurement
from production_orchestrator.domain.planning.proposal import CapacityConflict, InventoryShortage
from production_orchestrator.domain.planning.propose import apply_proposal, build_proposal
from production_orchestrator.domain.planning.solver import DEFAULT_NODES
from production_orchestrator.domain.presentation import describe_at_risk, describe_blockers, describe_existing_shortages
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY, TOMORROW
from production_orchestrator.domain.shop.file_format import read_shop, write_shop
from production_orchestrator.domain.shop.model import Order, ShopState, add_days, day_range, parse_day
from tests.support.generated_shops import PLANNING_DAY as GENERATED_DAY
from tests.support.generated_shops import generate


def moves(
    name: str, nodes: int = DEFAULT_NODES
) -> list[tuple[str, list[tuple[str, str, int]], list[tuple[str, str, int]]]]:
    chosen = SCENARIOS[name]
    proposal = build_proposal(chosen.taken_in(), chosen.target_order_id, TODAY, solver_nodes=nodes)
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
        InventoryShortage(material_id="THREAD-RED-40", required=1200, available=600, shortfall=600, arrives=TODAY),
        CapacityConflict(
            machines=("EMB-01",),
            first_day=TODAY,
            last_day=TODAY,
            machine_days=1,
            order_minutes=240,
            required_minutes=600,
            available_minutes=480,
            related_orders=("STANDARD-100",),
        ),
    )
    # The greedy planner moves the whole allocation (DESIGN.md section 3); the solver moves only the whole
    # units (18 minutes each) that RUSH-200 needs: 7 units instead of 20, both plans on time.
    assert moves("rush-order", nodes=0) == [
        ("STANDARD-100", [("EMB-01", TODAY, 360)], [("EMB-01", TOMORROW, 360)]),
        ("RUSH-200", [], [("EMB-01", TODAY, 240)]),
    ]
    assert moves("rush-order") == [
        ("STANDARD-100", [("EMB-01", TODAY, 360)], [("EMB-01", TODAY, 234), ("EMB-01", TOMORROW, 126)]),
        ("RUSH-200", [], [("EMB-01", TODAY, 240)]),
    ]
    assert proposal.planned_by == "solver"
    assert [(a.material_id, a.quantity, a.needed_by) for a in proposal.procurement_actions] == [
        ("THREAD-RED-40", 600, TODAY)
    ]
    assert [d.audience for d in proposal.communication_drafts] == ["customer", "operator", "supplier"]
    assert proposal.at_risk == ()


def test_team_jerseys_plan() -> None:
    proposal = build_proposal(SCENARIOS["team-jerseys"].taken_in(), "JERSEY-310", TODAY)
    assert moves("team-jerseys", nodes=0) == [
        ("CAPS-110", [("EMB-01", TODAY, 120)], [("EMB-01", TOMORROW, 120)]),
        ("TOTES-120", [("EMB-01", TODAY, 180)], [("EMB-01", TOMORROW, 180)]),
        ("JERSEY-310", [], [("EMB-01", TODAY, 420)]),
    ]
    # 60 minutes stay free next to the jerseys. No part may be under the shop's minimum split (60 minutes):
    # 3 totes (54 minutes) cannot stay, so the totes move whole and half the caps stay (15 caps, 60 minutes),
    # which moves less priority-weighted work than moving every cap and 6 or more totes.
    assert moves("team-jerseys") == [
        ("CAPS-110", [("EMB-01", TODAY, 120)], [("EMB-01", TODAY, 60), ("EMB-01", TOMORROW, 60)]),
        ("TOTES-120", [("EMB-01", TODAY, 180)], [("EMB-01", TOMORROW, 180)]),
        ("JERSEY-310", [], [("EMB-01", TODAY, 420)]),
    ]
    assert proposal.procurement_actions == ()
    assert not any(isinstance(b, InventoryShortage) for b in proposal.evidence)
    assert [d.audience for d in proposal.communication_drafts] == ["customer", "operator"]


def test_metallic_monogram_plan() -> None:
    proposal = build_proposal(SCENARIOS["metallic-monogram"].taken_in(), "GOLD-500", TODAY)
    assert moves("metallic-monogram", nodes=0) == [
        ("BATCH-220", [("EMB-02", TODAY, 360)], [("EMB-02", TOMORROW, 360)]),
        ("GOLD-500", [], [("EMB-02", TODAY, 300)]),
    ]
    assert moves("metallic-monogram") == [
        ("BATCH-220", [("EMB-02", TODAY, 360)], [("EMB-02", TODAY, 180), ("EMB-02", TOMORROW, 180)]),
        ("GOLD-500", [], [("EMB-02", TODAY, 300)]),
    ]
    assert [(a.material_id, a.quantity) for a in proposal.procurement_actions] == [("THREAD-GOLD-60", 1100)]


def test_no_part_under_the_minimum_split_and_a_larger_minimum_keeps_orders_whole() -> None:
    state = SCENARIOS["team-jerseys"].taken_in()
    for proposal in (
        build_proposal(state, "JERSEY-310", TODAY),
        build_proposal(state, "JERSEY-310", TODAY, solver_nodes=0),
    ):
        for change in proposal.schedule_changes:
            before = {(a.day, a.machine): a.minutes for a in change.before}
            assert all(a.minutes >= 60 for a in change.after if before.get((a.day, a.machine)) != a.minutes)
    whole = state.model_copy(update={"min_split_minutes": 240})
    assert [
        (c.order_id, [a.minutes for a in c.after]) for c in build_proposal(whole, "JERSEY-310", TODAY).schedule_changes
    ] == [
        ("CAPS-110", [120]),
        ("TOTES-120", [180]),
        ("JERSEY-310", [420]),
    ]


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
        ("PRESS-B", "2026-12-25", 220),  # not 240: that would leave a 40-minute part, under the minimum split
        ("PRESS-A", "2026-12-26", 60),
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
    with pytest.raises(PlanningError, match=r"order RUSH-200 is already scheduled"):
        apply_proposal(after, proposal)
    with pytest.raises(PlanningError, match="materials: THREAD-RED-40 would be 600 short"):
        apply_proposal(state.with_inventory("THREAD-RED-40", 0), proposal)


def test_more_stock_than_the_plan_found_does_not_stop_the_apply() -> None:
    state = SCENARIOS["rush-order"].taken_in()
    proposal = build_proposal(state, "RUSH-200", TODAY)
    after = apply_proposal(state.with_inventory("THREAD-RED-40", 601).model_copy(update={"revision": 2}), proposal)
    assert after.order("RUSH-200") == apply_proposal(state, proposal).order("RUSH-200") and after.revision == 3


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


def test_rejection_does_not_touch_digest_inputs() -> None:
    state: ShopState = SCENARIOS["rush-order"].taken_in()
    assert state.digest() == SCENARIOS["rush-order"].taken_in().digest()
    assert state.with_inventory("THREAD-RED-40", 601).digest() != state.digest()


# --- Plans say what they do: their own procurement, realistic days, real causes, partial fits ---------


def run(machine: str, day: str, minutes: int) -> dict[str, Any]:
    return {"machine": machine, "day": day, "minutes": minutes}


def test_existing_shortages_are_the_shops_own_and_a_plan_buys_only_what_its_order_needs() -> None:
    # O-1 already lacks 500 INK (1500 needed, 1000 on hand); NEW needs 500 more of it, CAP-NEW none at all.
    o1 = order(
        "O-1", 300, "2026-12-31", schedule=[run("PRESS-A", "2026-12-28", 480), run("PRESS-B", "2026-12-28", 120)]
    )
    doc = shop(orders=[o1, order("NEW", 100, "2026-12-31"), order("CAP-NEW", 10, "2026-12-31", product="CAP")])
    doc["materials"][0]["on_hand"] = 1000
    state = read_shop(doc)
    [existing] = existing_shortages(state, "2026-12-21")
    assert (existing.material, existing.quantity, existing.orders, existing.needed_by) == (
        "INK",
        500,
        ("O-1",),
        "2026-12-28",
    )
    assert (existing.arrives, existing.late, existing.supplier_email) == ("2026-12-24", (), "ink@supply.example")

    caps = build_proposal(state, "CAP-NEW", "2026-12-21")
    assert caps.procurement_actions == () and caps.at_risk == ()
    assert [d.audience for d in caps.communication_drafts] == ["customer", "operator"]

    totes = build_proposal(state, "NEW", "2026-12-21")
    [line] = totes.procurement_actions
    assert (line.material_id, line.quantity, line.needed_by) == ("INK", 500, "2026-12-24")  # not 1000
    after = apply_proposal(state, totes)
    assert [(s.material, s.quantity, s.orders) for s in existing_shortages(after, "2026-12-21")] == [
        ("INK", 500, ("O-1",))
    ]


def test_existing_shortages_name_the_orders_that_start_before_a_purchase_can_arrive() -> None:
    soon = [run("PRESS-A", "2026-12-22", 480), run("PRESS-B", "2026-12-22", 120)]
    doc = shop(orders=[order("SOON", 300, "2026-12-31", schedule=soon)])
    doc["materials"][0]["on_hand"] = 0
    [found] = existing_shortages(read_shop(doc), "2026-12-21")
    assert (found.quantity, found.orders, found.late, found.needed_by, found.arrives) == (
        1500,
        ("SOON",),
        ("SOON",),
        "2026-12-22",
        "2026-12-24",
    )
    assert existing_shortages(read_shop(shop()), "2026-12-21") == []


def test_a_purchase_never_asks_for_a_day_before_its_lead_time_and_the_early_order_is_named() -> None:
    # As if a plan had put MOVED on the schedule: it needs 500 INK on 12-22, which can only come on 12-24.
    doc = shop(orders=[order("MOVED", 100, "2026-12-31", schedule=[run("PRESS-A", "2026-12-22", 200)])])
    doc["materials"][0]["on_hand"] = 0
    planned = read_shop(doc)
    before = planned.with_order(planned.orders[0].model_copy(update={"schedule": ()}))
    [line] = plan_procurement(before, planned, "NEW", {"MOVED"}, "2026-12-21")
    assert (line.quantity, line.needed_by, line.arrives, line.late) == (500, "2026-12-24", "2026-12-24", ("MOVED",))
    assert plan_procurement(planned, planned, "NEW", {"MOVED"}, "2026-12-21") == []  # nothing new: nothing bought


def test_material_that_cannot_come_before_the_due_date_is_the_cause_not_capacity() -> None:
    # The case: 6 days of lead time, due in 2 days. No capacity blocker on an empty window.
    doc = shop(orders=[order("NEW", 100, "2026-12-23")])
    doc["materials"][0].update(on_hand=0, lead_time_days=6)
    _, proposal = plan(doc, "NEW", "2026-12-21")
    assert [b.kind for b in proposal.evidence] == ["inventory_shortage"]
    assert describe_blockers(proposal) == [
        "Not enough INK: needs 500, 0 available, short by 500; more can arrive on 2026-12-27 at the earliest "
        "(6 days lead time)."
    ]
    [line] = proposal.procurement_actions
    assert line.needed_by == "2026-12-27" == proposal.new_schedule()[0].day
    [risk] = proposal.at_risk
    assert (risk.reason, risk.finish) == ("material", "2026-12-27")
    assert describe_at_risk(proposal) == [
        "NEW (due 2026-12-23) finishes 2026-12-27: INK (short by 500) cannot arrive before 2026-12-27, "
        "after its due date 2026-12-23."
    ]
    supplier = proposal.communication_drafts[-1]
    assert supplier.audience == "supplier" and "- 500 units of INK, needed by 2026-12-27" in supplier.body
    assert (
        supplier.subject.startswith("Purchase request PR-NEW-1 from ") and "Our reference: PR-NEW-1." in supplier.body
    )
    customer = proposal.communication_drafts[0]
    assert "we cannot make 2026-12-23. We expect to finish it on 2026-12-27." in customer.body


def test_capacity_blocker_names_the_machine_days_and_who_booked_them() -> None:
    proposal = build_proposal(SCENARIOS["rush-order"].taken_in(), "RUSH-200", TODAY)
    assert describe_blockers(proposal) == [
        "Not enough THREAD-RED-40: needs 1200, 600 available, short by 600; more can arrive on 2026-08-12 at the "
        "earliest (no lead time).",
        "Not enough time on EMB-01 on 2026-08-12 (1 working machine-day): 8h there, 10h needed (4h for this "
        "order, 6h already booked by STANDARD-100).",
    ]


def test_capacity_blocker_without_other_work_and_without_a_working_day() -> None:
    # Too big for the window on its own; nothing else is booked there.
    _, alone = plan(shop(orders=[order("NEW", 200, "2026-12-21", product="CAP")]), "NEW", "2026-12-21")
    assert describe_blockers(alone) == [
        "Not enough time on PRESS-A on 2026-12-21 (1 working machine-day): 8h there, 13h20 needed "
        "(13h20 for this order, nothing else booked)."
    ]
    # Due on Christmas Day, when PRESS-A is closed.
    _, closed = plan(shop(orders=[order("NEW", 10, "2026-12-25", product="CAP")]), "NEW", "2026-12-25")
    assert describe_blockers(closed) == [
        "PRESS-A does not work on 2026-12-25: no machine time for its 40min by the due date."
    ]
    [risk] = closed.at_risk
    assert risk.reason == "capacity" and risk.finish == "2026-12-26"
    assert risk.detail == "40min of its 40min do not fit: PRESS-A does not work on 2026-12-25"


def test_capacity_at_risk_sentence_names_the_machine_days_the_lead_time_and_who_holds_them() -> None:
    busy = order(
        "HIGH", 240, "2026-12-31", priority=95, schedule=[{"machine": "PRESS-A", "day": "2026-12-24", "minutes": 480}]
    )
    doc = shop(orders=[busy, order("NEW", 300, "2026-12-24", priority=60)])
    doc["materials"][0]["on_hand"] = 0  # INK can come on 12-24 (3 days), the due date
    _, proposal = plan(doc, "NEW", "2026-12-21")
    [risk] = proposal.at_risk
    assert risk.reason == "capacity"
    assert describe_at_risk(proposal) == [
        "NEW (due 2026-12-24) finishes 2026-12-26: 6h of its 10h do not fit on PRESS-A, PRESS-B on 2026-12-24 "
        "(2 working machine-days, 8h of 12h already booked); it cannot start before 2026-12-24, when INK can "
        "arrive; the orders holding that time cannot move without missing their own due dates; held by HIGH."
    ]
    operator = next(d for d in proposal.communication_drafts if d.audience == "operator")
    assert "At risk: NEW (due 2026-12-24, finishes 2026-12-26): 6h of its 10h do not fit" in operator.body


def test_an_order_too_big_for_the_horizon_is_planned_as_far_as_it_fits_and_the_rest_is_at_risk() -> None:
    # 90 days of PRESS-A (minus Christmas Day) hold 89 x 480 minutes = 10,680 caps of 4 minutes.
    doc = shop(orders=[order("HUGE", 11_000, "2027-01-31", product="CAP")])
    state, proposal = plan(doc, "HUGE", "2026-12-21")
    placed = sum(a.minutes for a in proposal.new_schedule())
    assert placed == 89 * 480 and proposal.new_schedule()[-1].day == "2027-03-20"
    [risk] = proposal.at_risk
    assert (risk.order_id, risk.reason, risk.unplaced_minutes) == ("HUGE", "capacity", 44_000 - placed)
    assert "find no room in the 90 days planned and need a later plan" in risk.detail
    assert describe_at_risk(proposal)[0].startswith("HUGE (due 2027-01-31) is only partly planned, up to 2027-03-20")
    customer = proposal.communication_drafts[0]
    assert customer.subject == "Your order HUGE is partly planned for 2027-03-20"
    assert "We can make part of it by 2027-03-20 and will plan the rest" in customer.body
    after = apply_proposal(state, proposal)
    assert after.digest() == proposal.result_digest


def test_an_order_of_which_nothing_fits_is_refused_with_the_reason() -> None:
    open_days = [day for day in day_range("2026-12-21", 90) if day != "2026-12-25"]
    full = [
        order(f"B-{i:02d}", 120, "2027-06-30", priority=99, product="CAP", schedule=[run("PRESS-A", d, 480)])
        for i, d in enumerate(open_days)
    ]
    with pytest.raises(
        UnplannableError,
        match=r"^UNPLANNABLE: NEW cannot be made: every working day of PRESS-A from 2026-12-21 to 2027-03-20 is fully",
    ):
        plan(shop(orders=[*full, order("NEW", 1, "2026-12-31", product="CAP")]), "NEW", "2026-12-21")
    doc = shop(orders=[order("NEW", 1, "2026-12-31")])
    doc["materials"][0].update(on_hand=0, lead_time_days=120)
    with pytest.raises(UnplannableError, match=r"INK \(short by 5\) cannot arrive before 2027-04-20"):
        plan(doc, "NEW", "2026-12-21")
    doc = shop(orders=[order("NEW", 1, "2026-12-31", product="CAP")])
    doc["machines"][0]["weekdays"] = ["sun"]
    doc["machines"][0]["closed_days"] = [d for d in day_range("2026-12-21", 90) if parse_day(d).weekday() == 6]
    with pytest.raises(UnplannableError, match="PRESS-A has no working day from 2026-12-21 to 2027-03-20"):
        plan(doc, "NEW", "2026-12-21")


def test_existing_shortages_read_as_sentences_for_the_shop() -> None:
    soon = [run("PRESS-A", "2026-12-22", 480), run("PRESS-B", "2026-12-22", 120)]
    later = [run("PRESS-A", "2026-12-29", 40)]
    doc = shop(
        orders=[order("SOON", 300, "2026-12-31", schedule=soon), order("LATER", 20, "2026-12-31", schedule=later)]
    )
    doc["materials"][0]["on_hand"] = 1000
    assert describe_existing_shortages(existing_shortages(read_shop(doc), "2026-12-21")) == [
        "INK: short by 600 for LATER, SOON (first needed 2026-12-22); a purchase from ink@supply.example can "
        "arrive on 2026-12-24 at the earliest; SOON starts before then."
    ]


def test_in_a_shop_that_already_lacks_material_a_request_buys_only_its_own() -> None:
    # The shop: 4 machines, 60 orders, most material already short; lead time 6 days.
    state = read_shop(generate(4, 60, scarce=True))
    before = {s.material: s for s in existing_shortages(state, GENERATED_DAY)}
    assert len(before) >= 5 and sum(len(s.orders) for s in before.values()) >= 30  # the shop's own, for many orders
    proposal = build_proposal(state, "URGENT", GENERATED_DAY)
    product = state.product(proposal.target_order.product)
    assert product is not None
    own = {m.id: proposal.target_order.quantity * m.per_unit for m in product.materials}
    bought = {a.material_id: a.quantity for a in proposal.procurement_actions}
    assert bought == own  # every one of its materials is short, and only what it needs is bought
    start = proposal.new_schedule()[0].day  # never before the material arrives (chain moves make room then)
    assert [a.needed_by for a in proposal.procurement_actions] == [start] * len(own) and start >= add_days(
        GENERATED_DAY, 6
    )
    [risk] = proposal.at_risk
    assert (risk.order_id, risk.reason) == ("URGENT", "material")
    arrives = add_days(GENERATED_DAY, 6)
    assert f"cannot arrive before {arrives}, after its due date {risk.due}" in risk.detail
    # a wait for free time is named only when the plan starts after the material arrives
    assert (f"no free time from {arrives} until {start}" in risk.detail) == (start > arrives)
    after = apply_proposal(state, proposal)
    assert {s.material: s.quantity for s in existing_shortages(after, GENERATED_DAY)} == {
        m: s.quantity for m, s in before.items()
    }


def test_drafts_are_messages_a_person_can_send() -> None:
    """The customer reads the product's description, not its code; the supplier a purchase request with a
    reference, the quantity and the day; every message is signed with the shop's name."""
    state = SCENARIOS["rush-order"].taken_in()
    proposal = build_proposal(state, "RUSH-200", TODAY)
    customer, operator, supplier = proposal.communication_drafts
    target = state.order("RUSH-200")
    assert target is not None
    product = state.product(target.product)
    assert product is not None and product.description != product.code
    assert customer.body.startswith(f"Hello {target.customer},")
    assert f"{target.quantity} x {product.description}" in customer.body and target.product not in customer.body
    [line] = proposal.procurement_actions
    assert supplier.subject == f"Purchase request PR-RUSH-200-1 from {state.name}: {line.quantity} {line.material_id}"
    assert f"- {line.quantity} units of {line.material_id}, needed by {line.needed_by}" in supplier.body
    assert "Our reference: PR-RUSH-200-1." in supplier.body
    for draft in (customer, operator, supplier):
        assert draft.body.endswith(f"Kind regards,\n{state.name}")
