"""resume: verify against persisted evidence (nothing written on any mismatch), claim once, answer the
interrupt: approve applies once, reject cancels with the reason; a re-run converges, never applies twice.
Decisions reach it through the approval (a CLI vote here: resume_approval.resume_direct)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from production_orchestrator.domain.approval.approvals import Vote
from production_orchestrator.domain.approval.receipts import make_receipt
from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError, ValidationError
from production_orchestrator.domain.records import AuditEvent, Decision, audit_event, utc_iso
from production_orchestrator.services.deciding.authorize import governing_approval
from production_orchestrator.services.deciding.claim import Hold, hold
from production_orchestrator.services.deciding.resume import Resume, verify
from production_orchestrator.services.deciding.resume_approval import (
    ResumeDecided,
    ResumeDirect,
    resume_decided,
    resume_direct,
)
from production_orchestrator.services.runs.start import StartResult
from production_orchestrator.services.runtime import run_context
from tests.support.memory_world import MemoryWorld


def test_approve_applies_exactly_the_reviewed_plan_once(world: MemoryWorld) -> None:
    started = world.start()
    done = world.resume(started, True)
    assert (done.outcome, done.revision, done.plan_applied_count) == ("applied", 2, 1)
    assert done.resume_pid != started.checkpoint.start_pid and not done.replayed
    types = [e.event_type for e in world.store.audit_events()]
    assert types.count("decision_recorded") == 1 and types.count("plan_applied") == 1
    record = world.store.get_decision(started.checkpoint.checkpoint_id)
    assert record is not None and record.completion is not None and record.completion.outcome == "applied"
    state = world.store.load_state()
    assert state is not None and state.revision == 2
    assert world.sessions.read_facts(
        started.checkpoint.session_id, started.checkpoint.agent_id
    ).pending_interrupt_ids == (frozenset())


def test_reject_changes_nothing_in_the_shop_and_keeps_the_reason(world: MemoryWorld) -> None:
    started = world.start()
    state = world.store.load_state()
    done = world.resume(started, False, reason="the customer cancelled")
    assert (done.outcome, done.revision, done.plan_applied_count) == ("rejected", 1, 0)
    assert world.store.load_state() == state
    rejected = world.store.audit_events()[-1]
    assert rejected.event_type == "plan_rejected" and rejected.detail["reason"] == "the customer cancelled"


def test_a_replay_is_already_decided_or_read_back_and_writes_nothing(world: MemoryWorld) -> None:
    started = world.start()
    world.resume(started, True)
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(started, True)
    assert refused.value.code is RefusalCode.ALREADY_DECIDED
    with pytest.raises(ResumeRefusedError):
        world.resume(started, False, reason="changed my mind")
    approval = governing_approval(world.ports(), started.checkpoint.checkpoint_id)
    assert approval is not None
    # The workflow's retry of the step reads the recorded outcome back.
    back = resume_decided(
        world.runtime(), ResumeDecided(started.checkpoint.checkpoint_id, approval.approval_id, world.binding)
    )
    assert back.replayed and back.outcome == "applied" and back.plan_applied_count == 1
    assert world.snapshot() == before


def _inventory_event(world: MemoryWorld) -> AuditEvent:
    return audit_event("inventory_set", world.clock())


def _tamper_checkpoint(world: MemoryWorld, started: StartResult) -> None:
    data = json.loads(started.checkpoint.model_dump_json())
    data["start_pid"] += 1
    world.store.tamper_checkpoint(started.checkpoint.checkpoint_id, json.dumps(data))


REFUSALS: dict[str, tuple[RefusalCode, Callable[[MemoryWorld, StartResult], dict[str, object]]]] = {
    "reviewed hash": (RefusalCode.REVIEWED_HASH_MISMATCH, lambda w, s: {"reviewed_hash": "f" * 64}),
    "interrupt id": (RefusalCode.INTERRUPT_MISMATCH, lambda w, s: {"interrupt_id": "v1:other"}),
    "session id": (RefusalCode.SESSION_MISMATCH, lambda w, s: {"session_id": "sess-" + "0" * 32}),
    "provider": (RefusalCode.PROVIDER_MISMATCH, lambda w, s: {"binding": w.binding.model_copy(update={"region": "x"})}),
    "stale shop": (
        RefusalCode.STALE_DOMAIN_STATE,
        lambda w, s: w.store.set_inventory("THREAD-RED-40", 0, _inventory_event(w)) and {},
    ),
    "expired": (RefusalCode.EXPIRED, lambda w, s: w.clock.advance(days=2) and {}),
    "session lost": (
        RefusalCode.SESSION_MISMATCH,
        lambda w, s: w.sessions.repository.forget(s.checkpoint.session_id) or {},
    ),
    "checkpoint tampered": (RefusalCode.CHECKPOINT_INVALID, lambda w, s: _tamper_checkpoint(w, s) or {}),
    "proposal tampered": (
        RefusalCode.PROPOSAL_INTEGRITY,
        lambda w, s: w.store.tamper_proposal(s.checkpoint.proposal_hash, b"{}") or {},
    ),
    "unknown checkpoint": (RefusalCode.CHECKPOINT_INVALID, lambda w, s: {"checkpoint_id": "ckpt-" + "0" * 32}),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_every_mismatch_is_refused_before_anything_is_written(case: str, world: MemoryWorld) -> None:
    started = world.start()
    code, prepare = REFUSALS[case]
    changes = prepare(world, started)
    cp = started.checkpoint
    binding = changes.pop("binding", world.binding)
    fields = {
        "checkpoint_id": cp.checkpoint_id,
        "approved": True,
        "reviewed_hash": cp.proposal_hash,
        "interrupt_id": cp.interrupt_id,
        "session_id": cp.session_id,
        **changes,
    }
    before = world.snapshot()
    checked: list[bool] = []
    with pytest.raises(ResumeRefusedError) as refused:
        command = ResumeDirect(
            ResumeRequest(**fields),  # type: ignore[arg-type]
            binding,  # type: ignore[arg-type]
            approver="ana",
            reason="",
            before_claim=lambda: checked.append(True),
        )
        resume_direct(world.runtime(), command)
    assert refused.value.code is code
    assert world.snapshot() == before and checked == []


def test_before_claim_runs_after_the_gate_and_its_failure_writes_nothing(world: MemoryWorld) -> None:
    started = world.start()
    before = world.snapshot()

    def unreachable() -> None:
        raise ValidationError("the model server is not reachable")

    with pytest.raises(ValidationError):
        world.resume(started, True, before_claim=unreachable)
    assert world.snapshot() == before
    seen: list[int] = []
    assert world.resume(started, True, before_claim=lambda: seen.append(world.store.application_count())).outcome == (
        "applied"
    )
    assert seen == [0]


def test_a_dead_resumes_claim_is_finished_by_a_rerun_after_its_lease(world: MemoryWorld) -> None:
    started = world.start()
    cp = started.checkpoint
    rt = world.runtime(lease=timedelta(minutes=1))
    decision = Decision(
        approved=True, reviewed_hash=cp.proposal_hash, approver="ana", decided_at=utc_iso(world.clock())
    )
    approval = governing_approval(world.ports(), cp.checkpoint_id)
    assert approval is not None
    receipt = make_receipt(cp, decision, world.mac_key, approval_id=approval.approval_id)
    world.approvals.record_approval_vote(
        approval.approval_id, Vote(decision=decision, receipt=receipt), now=world.clock()
    )
    hold(rt, Hold(run_context(rt, cp.session_id, cp.checkpoint_id), cp, decision))  # then the process "died"
    with pytest.raises(ResumeRefusedError) as live:
        world.resume(started, True)
    assert live.value.code is RefusalCode.ALREADY_DECIDED and "in progress" in str(live.value)
    world.clock.advance(minutes=2)
    done = world.resume(started, True)
    assert (done.outcome, done.plan_applied_count) == ("applied", 1)
    record = world.store.get_decision(cp.checkpoint_id)
    assert record is not None and record.attempt == 2 and record.is_complete()


def test_verify_reads_only(world: MemoryWorld) -> None:
    started = world.start()
    cp = started.checkpoint
    before = world.snapshot()
    go = verify(world.runtime(), Resume(ResumeRequest(cp.checkpoint_id, True, cp.proposal_hash), world.binding))
    assert go.checkpoint == cp and go.proposal == started.proposal
    assert world.snapshot() == before


def test_a_reason_over_the_limit_is_bad_input(world: MemoryWorld) -> None:
    started = world.start()
    before = world.snapshot()
    with pytest.raises(ValidationError):
        world.resume(started, False, reason="x" * 2001)
    assert world.snapshot() == before


def _model_fails_after_the_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model call that follows the gated tool's result fails, as a Bedrock outage would (an error Strands does
    not retry, so nothing sleeps): the tool already ran (the plan applied, or the rejection cancelled it)."""
    from production_orchestrator.agent.scripted_model import ScriptedModel

    real = ScriptedModel.stream

    def stream(self: ScriptedModel, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        last = messages[-1]["content"] if messages else []
        if any("toolResult" in block for block in last) and "apply_production_plan" in json.dumps(messages):
            raise RuntimeError("ServiceUnavailableException: Bedrock is unavailable")
        return real(self, messages, *args, **kwargs)

    monkeypatch.setattr(ScriptedModel, "stream", stream)


def test_a_model_error_after_the_plan_applied_ends_applied_so_its_messages_follow(
    world: MemoryWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's closing turn is all that is left once the plan applied: its failure must not fail the resume
    (the workflow would end with the plan applied and SendApprovedMessages never reached). The outcome is recorded
    as applied, naming the model's error."""
    started = world.start()
    _model_fails_after_the_tool(monkeypatch)
    done = world.resume(started, True)
    assert (done.outcome, done.revision, done.plan_applied_count) == ("applied", 2, 1)
    assert done.stop_reason == "model_error_after_tool" and "ServiceUnavailableException" in done.final_text
    record = world.store.get_decision(started.checkpoint.checkpoint_id)
    assert record is not None and record.completion is not None and record.completion.outcome == "applied"
    assert world.store.outbox_messages(started.checkpoint.proposal_hash)  # the plan's messages wait to be sent


def test_a_model_error_after_a_rejection_ends_rejected_with_the_reason(
    world: MemoryWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = world.start()
    state = world.store.load_state()
    _model_fails_after_the_tool(monkeypatch)
    done = world.resume(started, False, reason="too costly")
    assert (done.outcome, done.revision, done.plan_applied_count) == ("rejected", 1, 0)
    assert world.store.load_state() == state
    assert world.store.audit_events()[-1].event_type == "plan_rejected"
