"""evidence: the one seal-checked checkpoint reader, the shop, and the verified plan a human reviews."""

from __future__ import annotations

import json

import pytest

from production_orchestrator.domain.errors import IntegrityError, RefusalCode, ResumeRefusedError, ShopError
from production_orchestrator.services.evidence import current_state, load_checkpoint, review
from tests.support.fakes import InMemoryShopStore
from tests.support.memory_world import MemoryWorld


def test_an_empty_store_has_no_shop() -> None:
    with pytest.raises(ShopError, match="run start first"):
        current_state(InMemoryShopStore())


def test_the_checkpoint_and_its_verified_plan(world: MemoryWorld) -> None:
    started = world.start()
    cp = started.checkpoint
    assert load_checkpoint(world.store, cp.checkpoint_id) == cp
    assert review(world.store, cp.checkpoint_id) == (cp, started.proposal)


def _code(call: object) -> RefusalCode:
    with pytest.raises(ResumeRefusedError) as refused:
        call()  # type: ignore[operator]
    return refused.value.code


def test_a_checkpoint_that_cannot_be_trusted_is_refused(world: MemoryWorld) -> None:
    cp = world.start().checkpoint
    with pytest.raises(ValueError, match="malformed"):
        load_checkpoint(world.store, "../../etc/passwd")
    assert _code(lambda: load_checkpoint(world.store, "ckpt-" + "0" * 32)) is RefusalCode.CHECKPOINT_INVALID
    raw = json.loads(cp.model_dump_json())
    raw["domain_digest"] = "0" * 64  # changed after sealing
    world.store.tamper_checkpoint(cp.checkpoint_id, json.dumps(raw))
    assert _code(lambda: load_checkpoint(world.store, cp.checkpoint_id)) is RefusalCode.CHECKPOINT_INVALID
    world.store.tamper_checkpoint(cp.checkpoint_id, "{not json")
    assert _code(lambda: load_checkpoint(world.store, cp.checkpoint_id)) is RefusalCode.CHECKPOINT_INVALID


def test_a_plan_that_does_not_rehash_is_refused(world: MemoryWorld) -> None:
    cp = world.start().checkpoint
    world.store.tamper_proposal(cp.proposal_hash, b'{"planner_version": "evil"}')
    with pytest.raises(IntegrityError):
        review(world.store, cp.checkpoint_id)


def test_a_missing_plan_is_proposal_integrity() -> None:
    world = MemoryWorld()
    cp = world.start().checkpoint
    world.store._proposals.clear()
    assert _code(lambda: review(world.store, cp.checkpoint_id)) is RefusalCode.PROPOSAL_INTEGRITY
