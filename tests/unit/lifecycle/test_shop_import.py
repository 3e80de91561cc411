"""shop import: create or replace the shop in one conditional write; pending plans on the old shop go stale."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError, StaleStateError
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.lifecycle.shop_import import import_shop, pending_on
from tests.support.memory_world import MemoryWorld

RUSH = SCENARIOS["rush-order"].state


def test_an_empty_store_gets_the_shop(world: MemoryWorld) -> None:
    result = import_shop(world.store, RUSH, world.clock())
    assert (result.created, result.changed, result.stale_checkpoints) == (True, True, ())
    assert world.store.load_state() == RUSH
    assert [e.event_type for e in world.store.audit_events()] == ["shop_imported"]


def test_the_same_shop_again_changes_nothing(world: MemoryWorld) -> None:
    import_shop(world.store, RUSH, world.clock())
    before = world.snapshot()
    result = import_shop(world.store, RUSH.model_copy(update={"revision": 1}), world.clock())
    assert (result.created, result.changed) == (False, False)
    assert world.snapshot() == before


def test_replacing_the_shop_names_the_plans_it_made_stale_and_their_resume_is_refused(world: MemoryWorld) -> None:
    started = world.start()
    proposed_on = started.checkpoint.domain_digest
    assert [c.checkpoint_id for c in pending_on(world.store, proposed_on, world.clock())] == [
        started.checkpoint.checkpoint_id
    ]
    recount = RUSH.with_inventory("THREAD-RED-40", 5000)
    result = import_shop(world.store, recount, world.clock())
    assert result.stale_checkpoints == (started.checkpoint.checkpoint_id,)
    assert world.store.load_state() == recount
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(started, True)
    assert refused.value.code is RefusalCode.STALE_DOMAIN_STATE


def test_the_revision_never_goes_back(world: MemoryWorld) -> None:
    started = world.start()
    assert world.resume(started, True).revision == 2
    result = import_shop(world.store, RUSH, world.clock())
    assert result.state.revision == 2 and world.store.load_state().revision == 2  # type: ignore[union-attr]


def test_a_shop_that_moved_meanwhile_is_not_overwritten(world: MemoryWorld) -> None:
    import_shop(world.store, RUSH, world.clock())
    with pytest.raises(StaleStateError):
        world.store.replace_shop(RUSH.with_inventory("THREAD-RED-40", 1), (1, "0" * 64), world.store.audit_events()[0])
    assert world.store.load_state() == RUSH
