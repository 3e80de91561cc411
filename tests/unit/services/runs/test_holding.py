"""holding: which open pending plans hold what they book while a new request is planned (in-memory fakes)."""

from __future__ import annotations

from datetime import timedelta

from production_orchestrator.domain.shop.model import ShopState
from production_orchestrator.services.asking.request_approval import operator_plan
from production_orchestrator.services.runs.holding import holding_plans
from production_orchestrator.services.runs.plan_request import PlanRequest
from production_orchestrator.services.runs.start import StartResult, StartRun, start_run
from production_orchestrator.services.shop import life as shop_life
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.memory_world import MemoryWorld
from tests.support.week_model import DAY, SHOP, _totes


def _shop(world: MemoryWorld) -> ShopState:
    state = world.store.load_state()
    assert state is not None
    return state


def _start(world: MemoryWorld, text: str, *, approval: bool = True) -> StartResult:
    plan = operator_plan() if approval else None
    return start_run(world.runtime(), StartRun(PlanRequest(text, DAY), world.binding, timedelta(hours=30), plan))


def _held_orders(world: MemoryWorld) -> list[str]:
    return [p.target_order.id for p in holding_plans(world.ports(), _shop(world))]


def _world() -> MemoryWorld:
    world = MemoryWorld()
    import_shop(world.ports(), ImportShop(SHOP))
    return world


def test_an_open_pending_plan_holds_and_a_second_is_made_around_it() -> None:
    world = _world()
    first = _start(world, _totes(1, 400))
    assert _held_orders(world) == [first.proposal.target_order.id]
    second = _start(world, _totes(2, 390))
    assert {h.by for h in second.proposal.held_capacity} == {first.proposal.target_order.id}
    assert _held_orders(world) == [first.proposal.target_order.id, second.proposal.target_order.id]


def test_a_rejected_plan_holds_nothing() -> None:
    world = _world()
    first = _start(world, _totes(1, 400))
    assert world.resume(first, False, approver="operator", reason="no").outcome == "rejected"
    assert _held_orders(world) == []


def test_an_applied_plan_is_in_the_shop_and_holds_nothing_beside_it() -> None:
    world = _world()
    first = _start(world, _totes(1, 400))
    assert world.resume(first, True, approver="operator").outcome == "applied"
    assert _held_orders(world) == []


def test_an_expired_plan_holds_nothing() -> None:
    world = _world()
    _start(world, _totes(1, 400))
    world.clock.advance(hours=31)
    assert _held_orders(world) == []


def test_a_stale_plan_holds_nothing() -> None:
    world = _world()
    first = _start(world, _totes(1, 400))
    moved = next(c.order_id for c in first.proposal.schedule_changes if c.order_id != first.proposal.target_order.id)
    shop_life.complete(world.ports(), shop_life.Complete(moved))  # an order it moves is gone: it no longer holds
    assert _held_orders(world) == []


def test_a_plan_waiting_for_its_approval_to_be_requested_holds() -> None:
    # On AWS the workflow requests the approval just after the start: the plan already waits.
    world = _world()
    first = _start(world, _totes(1, 400), approval=False)
    assert _held_orders(world) == [first.proposal.target_order.id]
