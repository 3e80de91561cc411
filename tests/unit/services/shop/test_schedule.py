"""The shop's schedule on the fakes: the open run's plan laid over the shop, numbered, gone once decided; no
shop is a ShopError."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import ShopError
from production_orchestrator.services.shop.schedule import shop_schedule
from tests.support.memory_world import MemoryWorld


def test_the_open_runs_plan_is_laid_over_the_shop_until_it_is_decided(world: MemoryWorld) -> None:
    started = world.start()
    schedule = shop_schedule(world.ports())
    assert [(p.number, p.checkpoint_id, p.status) for p in schedule.plans] == [
        (1, started.checkpoint.checkpoint_id, "pending")
    ]
    assert schedule.plans[0].proposal_hash == started.checkpoint.proposal_hash
    assert schedule.days[0] == schedule.plans[0].proposal.planning_day
    drawn = {(c.day, b.order_id) for row in schedule.rows for c in row for b in c.blocks if b.pending}
    assert ("2026-08-12", "RUSH-200") in drawn
    world.resume(started, False)  # rejected: nothing waits any more
    after = shop_schedule(world.ports())
    assert after.plans == () and not any(b.plan for row in after.rows for c in row for b in c.blocks)


def test_no_shop_is_a_shop_error(world: MemoryWorld) -> None:
    rt = world.ports()
    rt.store.load_state = lambda: None  # type: ignore[method-assign]
    with pytest.raises(ShopError):
        shop_schedule(rt)
