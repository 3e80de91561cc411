"""claim: the decision is claimed exactly once; a dead resume's claim is taken over only with its token; a
finished resume is read back, not run again."""

from __future__ import annotations

from datetime import timedelta

import pytest

from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.deciding.claim import Hold, hold, replayed, same_ids
from production_orchestrator.services.runs.start import StartResult
from production_orchestrator.services.runtime import run_context
from tests.support.memory_world import MemoryWorld


def _decision(world: MemoryWorld, started: StartResult) -> Decision:
    return Decision(
        approved=True,
        reviewed_hash=started.checkpoint.proposal_hash,
        approver="ana",
        decided_at=utc_iso(world.clock()),
    )


def test_a_decision_is_claimed_once(world: MemoryWorld) -> None:
    started = world.start()
    cp = started.checkpoint
    rt = world.runtime(lease=timedelta(minutes=10))
    ctx = run_context(rt, cp.session_id, cp.checkpoint_id)
    held = hold(rt, Hold(ctx, cp, _decision(world, started)))
    assert world.store.get_decision(cp.checkpoint_id) == held
    assert held.resume_pid == rt.pid and held.lease_expires_at == utc_iso(world.clock() + timedelta(minutes=10))
    assert world.store.audit_events()[-1].event_type == "decision_recorded"
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        hold(world.runtime(), Hold(ctx, cp, _decision(world, started)))
    assert refused.value.code is RefusalCode.ALREADY_DECIDED
    assert world.snapshot() == before


def test_a_claim_is_taken_over_only_with_the_token_it_was_held_by(world: MemoryWorld) -> None:
    started = world.start()
    cp = started.checkpoint
    rt = world.runtime()
    ctx = run_context(rt, cp.session_id, cp.checkpoint_id)
    first = hold(rt, Hold(ctx, cp, _decision(world, started)))
    world.clock.advance(hours=1)
    second = hold(world.runtime(), Hold(ctx, cp, _decision(world, started), first))
    assert second.attempt == first.attempt + 1 and second.claim_token != first.claim_token
    assert second.decision == first.decision
    event = world.store.audit_events()[-1]
    assert event.event_type == "decision_claim_taken_over" and event.detail["previous_pid"] == first.resume_pid
    with pytest.raises(ResumeRefusedError):
        hold(world.runtime(), Hold(ctx, cp, _decision(world, started), first))  # the first token no longer holds it
    assert world.store.get_decision(cp.checkpoint_id) == second


def test_a_finished_resume_is_read_back_without_writing(world: MemoryWorld) -> None:
    started = world.start()
    done = world.resume(started, True)
    record = world.store.get_decision(started.checkpoint.checkpoint_id)
    assert record is not None
    before = world.snapshot()
    again = replayed(world.runtime(), started.checkpoint, record)
    assert again.replayed and (again.outcome, again.revision, again.plan_applied_count) == ("applied", 2, 1)
    assert again.resume_pid == done.resume_pid
    assert world.snapshot() == before


def test_a_replay_must_name_the_checkpoints_own_ids(world: MemoryWorld) -> None:
    cp = world.start().checkpoint
    plain = ResumeRequest(cp.checkpoint_id, True, cp.proposal_hash)
    assert same_ids(plain, cp)
    assert same_ids(ResumeRequest(cp.checkpoint_id, True, cp.proposal_hash, cp.interrupt_id, cp.session_id), cp)
    assert not same_ids(ResumeRequest(cp.checkpoint_id, True, cp.proposal_hash, "other"), cp)
    assert not same_ids(ResumeRequest(cp.checkpoint_id, True, cp.proposal_hash, None, "sess-" + "0" * 32), cp)
