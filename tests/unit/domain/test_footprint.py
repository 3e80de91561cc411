"""The footprint API: what a plan touches, the digest of that part, and which changes reach it."""

from __future__ import annotations

from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop.footprint import (
    Footprint,
    MachineDay,
    changed_within,
    footprint_digest,
    plan_footprint,
    touches,
)
from production_orchestrator.domain.shop.model import Allocation, Machine, Order, ShopState


def shop() -> ShopState:
    return SCENARIOS["rush-order"].state


def rush_footprint(state: ShopState) -> Footprint:
    standard = state.order("STANDARD-100")
    assert standard is not None
    moved = (Allocation(machine="EMB-01", day="2026-08-13", minutes=360),)
    rush = SCENARIOS["rush-order"].taken_in().order("RUSH-200")
    assert rush is not None
    return plan_footprint(state, [("STANDARD-100", standard.schedule, moved)], added=[rush], procured=["THREAD-RED-40"])


def test_footprint_names_what_the_plan_books_moves_and_reserves() -> None:
    fp = rush_footprint(shop())
    assert fp.machine_days == (
        MachineDay(machine="EMB-01", day="2026-08-12"),
        MachineDay(machine="EMB-01", day="2026-08-13"),
    )
    assert fp.orders == ("RUSH-200", "STANDARD-100")
    assert "THREAD-RED-40" in fp.materials and "THREAD-BLUE-40" in fp.materials


def test_a_change_outside_the_footprint_keeps_its_digest() -> None:
    state = shop()
    fp = rush_footprint(state)
    other = state.model_copy(
        update={"machines": (*state.machines, Machine(id="EMB-99", minutes_per_day=480)), "revision": 7}
    )
    assert footprint_digest(other, fp) == footprint_digest(state, fp)
    assert not touches(fp, state, other)
    assert changed_within(fp, state, other) == []


def test_a_booking_by_any_order_on_a_footprint_machine_day_is_a_change() -> None:
    state = shop()
    fp = rush_footprint(state)
    intruder = Order(
        id="OTHER-1",
        customer="Other",
        product=state.products[0].code,
        quantity=1,
        due="2026-08-20",
        priority=5,
        schedule=(Allocation(machine="EMB-01", day="2026-08-13", minutes=30),),
    )
    after = state.with_order(intruder)
    assert touches(fp, state, after)
    assert "EMB-01 on 2026-08-13" in changed_within(fp, state, after)


def test_inventory_of_a_footprint_material_is_a_change_and_names_it() -> None:
    state = shop()
    fp = rush_footprint(state)
    after = state.with_inventory("THREAD-RED-40", 5)
    assert changed_within(fp, state, after) == ["material THREAD-RED-40"]


def test_the_digest_does_not_depend_on_array_order() -> None:
    state = shop()
    fp = rush_footprint(state)
    again = Footprint(
        machine_days=tuple(reversed(fp.machine_days)),
        orders=tuple(reversed(fp.orders)),
        products=fp.products,
        materials=tuple(reversed(fp.materials)),
    )
    assert again == fp and footprint_digest(state, again) == footprint_digest(state, fp)
