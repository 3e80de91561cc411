"""order list on the fakes: every order with its status, the requests waiting beside the shop listed once."""

from __future__ import annotations

from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.services.shop import life as shop_life
from production_orchestrator.services.shop import order_list
from tests.support.memory_world import MemoryWorld

RUSH = SCENARIOS["rush-order"].state


def test_order_list_sorts_every_order_out(world: MemoryWorld) -> None:
    started = world.start()
    state = world.store.load_state()
    assert state is not None
    pending = order_list.pending_rows(world.ports())
    assert [(r.order, r.checkpoint, r.status) for r in pending] == [
        ("RUSH-200", started.checkpoint.checkpoint_id, "pending")
    ]
    rows = order_list.order_rows(state, state.today(world.clock()), pending)
    by_order = {r.order: r for r in rows}
    # The request's order is listed once, as the pending request it is, not as an unscheduled order.
    assert [r.order for r in rows].count("RUSH-200") == 1 and by_order["RUSH-200"].checkpoint
    assert by_order["STANDARD-100"].status == "scheduled"
    world.resume(started, False)
    shop_life.cancel(world.ports(), shop_life.Cancel("STANDARD-100", "customer withdrew"))
    state = world.store.load_state()
    assert state is not None
    rows = order_list.order_rows(state, state.today(world.clock()), [])
    statuses = {r.order: (r.status, r.detail) for r in rows}
    assert statuses["STANDARD-100"] == ("cancelled", "cancelled on 2026-08-12: customer withdrew")
    late = RUSH.order("STANDARD-100").model_copy(update={"id": "LATE-1", "due": "2026-08-11"})  # type: ignore[union-attr]
    rows = order_list.order_rows(state.with_order(late), state.today(world.clock()), [])
    assert {r.order: (r.status, r.detail) for r in rows}["LATE-1"] == (
        "at risk",
        "finishes 2026-08-12, after its due date 2026-08-11",
    )


def test_a_decided_request_is_no_longer_listed_as_pending(world: MemoryWorld) -> None:
    started = world.start()
    assert [r.order for r in order_list.pending_rows(world.ports())] == ["RUSH-200"]
    world.resume(started, False)
    assert order_list.pending_rows(world.ports()) == []
