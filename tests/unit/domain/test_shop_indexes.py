"""The shop's lookups by id and by machine-day are indexes of its tuples: never stale after a copy."""

from __future__ import annotations

from production_orchestrator.domain.scenarios import scenario
from production_orchestrator.domain.shop.model import Allocation, ShopState


def _shop() -> ShopState:
    return scenario("team-jerseys").state


def test_lookups_find_what_a_scan_finds() -> None:
    state = _shop()
    for order in state.orders:
        assert state.order(order.id) is order
    for product in state.products:
        assert state.product(product.code) is product
    for material in state.materials:
        assert state.material(material.id) is material
    for machine in state.machines:
        assert state.machine(machine.id) is machine
    assert state.order("NOPE") is None and state.product("NOPE") is None
    assert state.material("NOPE") is None and state.machine("NOPE") is None and state.closed_order("NOPE") is None


def test_a_copy_with_changed_orders_is_looked_up_afresh() -> None:
    state = _shop()
    caps = state.order("CAPS-110")
    assert caps is not None and state.booked_minutes("EMB-01", "2026-08-12") == 300
    moved = caps.model_copy(update={"schedule": (Allocation(machine="EMB-01", day="2026-08-13", minutes=120),)})
    after = state.with_order(moved)
    assert after.order("CAPS-110") == moved and state.order("CAPS-110") == caps
    assert after.booked_minutes("EMB-01", "2026-08-12") == 180 and state.booked_minutes("EMB-01", "2026-08-12") == 300
    assert after.slot_bookings("EMB-01", "2026-08-13") == (("CAPS-110", 120),)
    # model_copy without validation replaces the tuple too: the index follows the tuple, not the model
    bare = state.model_copy(update={"orders": tuple(o for o in state.orders if o.id != "CAPS-110")})
    assert bare.order("CAPS-110") is None and state.order("CAPS-110") is caps


def test_material_uses_follow_the_schedule() -> None:
    state = _shop()
    uses = state.material_uses("THREAD-WHITE-40")
    assert [u[0] for u in uses] == ["CAPS-110"] and uses[0][1] == "2026-08-12"
    unscheduled = state.with_order(state.order("CAPS-110").model_copy(update={"schedule": ()}))  # type: ignore[union-attr]
    assert unscheduled.material_uses("THREAD-WHITE-40") == ()
