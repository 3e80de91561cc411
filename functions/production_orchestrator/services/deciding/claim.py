"""Claim: the decision is claimed exactly once before the agent resumes (or a dead resume's claim is taken
over after its lease), and a finished resume's outcome is read back instead of running again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from ... import faults
from ...agent.context import RunContext
from ...domain.approval.verification import ResumeRequest
from ...domain.errors import DecisionAlreadyClaimedError, RefusalCode, ResumeRefusedError
from ...domain.records import Checkpoint, Decision, DecisionRecord, utc_iso
from ..runtime import Runtime


@dataclass(frozen=True)
class ResumeResult:
    """How a resume ended."""

    checkpoint: Checkpoint
    decision: Decision
    outcome: str  # "applied" | "rejected" | "not_applied"
    revision: int
    plan_applied_count: int
    stop_reason: str
    final_text: str
    resume_pid: int
    usage: dict[str, int] = field(default_factory=dict)
    replayed: bool = False  # read back from the completed decision record; nothing ran, nothing was written


def same_ids(request: ResumeRequest, checkpoint: Checkpoint) -> bool:
    """A replay names the checkpoint's own interrupt and session (or none): else it is refused like a replay."""
    return request.interrupt_id in (None, checkpoint.interrupt_id) and request.session_id in (
        None,
        checkpoint.session_id,
    )


def replayed(rt: Runtime, checkpoint: Checkpoint, record: DecisionRecord) -> ResumeResult:
    """The recorded outcome of a finished resume, read back without writing anything."""
    done = record.completion
    assert done is not None
    return ResumeResult(
        checkpoint=checkpoint,
        decision=record.decision,
        outcome=done.outcome,
        revision=done.revision,
        plan_applied_count=done.plan_applied_count,
        stop_reason=done.stop_reason,
        final_text=done.final_text,
        resume_pid=record.resume_pid,
        replayed=True,
    )


@dataclass(frozen=True)
class Hold:
    """Claim ``decision`` for ``checkpoint`` in the run ``ctx``; ``previous``: the dead resume's claim to take
    over (None: the first claim)."""

    ctx: RunContext
    checkpoint: Checkpoint
    decision: Decision
    previous: DecisionRecord | None = None


def hold(rt: Runtime, cmd: Hold) -> DecisionRecord:
    """Claim the decision (or take over the claim of a resume that died); the record this process holds."""
    ctx, checkpoint, decision, previous = cmd.ctx, cmd.checkpoint, cmd.decision, cmd.previous
    now = rt.clock()
    lease = {"claim_token": secrets.token_hex(16), "lease_expires_at": utc_iso(now + rt.lease), "resume_pid": rt.pid}
    try:
        if previous is None:
            held = DecisionRecord(
                checkpoint_id=checkpoint.checkpoint_id, decision=decision, claimed_at=decision.decided_at, **lease
            )
            rt.store.claim_decision(
                held,
                ctx.event(
                    "decision_recorded",
                    checkpoint.proposal_hash,
                    approved=decision.approved,
                    approver=decision.approver,
                    reason=decision.reason,
                ),
            )
        else:
            held = previous.model_copy(update={**lease, "claimed_at": utc_iso(now), "attempt": previous.attempt + 1})
            rt.store.take_over_decision(
                held,
                previous.claim_token,
                ctx.event(
                    "decision_claim_taken_over",
                    checkpoint.proposal_hash,
                    attempt=held.attempt,
                    previous_pid=previous.resume_pid,
                    previous_lease_expired_at=previous.lease_expires_at,
                ),
            )
    except DecisionAlreadyClaimedError as exc:
        # Lost a race that verification could not see: another resume claimed between read and claim.
        raise ResumeRefusedError(RefusalCode.ALREADY_DECIDED, str(exc)) from None
    faults.point("after_decision_claim")
    return held
