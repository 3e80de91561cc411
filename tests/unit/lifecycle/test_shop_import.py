"""shop import: create or replace the shop in one conditional write; the revision never goes back; the same
shop again writes nothing; plans still waiting on the replaced shop are named stale."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.domain.scenarios import scenario
from production_orchestrator.lifecycle.shop_import import import_shop
from tests.support.memory_world import MemoryWorld


def test_an_empty_store_gets_the_shop(world: MemoryWorld) -> None:
    state = scenario("rush-order").state
    result = import_shop(world.store, state, world.clock())
    assert (result.created, result.changed, result.stale_checkpoints) == (True, True, ())
    assert world.store.load_state() == state
    assert [e.event_type for e in world.store.audit_events()] == ["shop_imported"]


def test_the_same_shop_again_writes_nothing(world: MemoryWorld) -> None:
    state = scenario("rush-order").state
    import_shop(world.store, state, world.clock())
    before = world.snapshot()
    result = import_shop(world.store, state, world.clock())
    assert (result.created, result.changed) == (False, False)
    assert world.snapshot() == before


def test_a_replacement_keeps_the_higher_revision_and_names_the_plans_it_made_stale(world: MemoryWorld) -> None:
    started = world.start()  # a plan waits on the current shop
    current = world.store.load_state()
    assert current is not None
    material = current.materials[0]
    counted = current.with_inventory(material.id, material.on_hand + 100).model_copy(update={"revision": 0})
    result = import_shop(world.store, counted, world.clock())
    assert (result.created, result.changed) == (False, True)
    assert result.stale_checkpoints == (started.checkpoint.checkpoint_id,)
    stored = world.store.load_state()
    assert stored is not None and stored.revision == current.revision  # never back to 0
    assert stored.digest() == result.state.digest() != current.digest()
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(started, True)
    assert refused.value.code is RefusalCode.STALE_DOMAIN_STATE
