"""Resume a decision the approval record holds, authorized by the one policy (services/deciding/authorize.py).

    resume-approval, resume Lambda: approval (decided | rejected) -> authorize("workflow") -> receipts
                                    -> resume_run (verify, claim once, interruptResponse)
    CLI resume --approver:          approval (pending) -> authorize("cli") -> gate (reads only) -> vote
                                    (it must close the approval) -> resume_run
                                    approval (closed, same decision) -> authorize("cli") -> resume_run
                                    (a re-run after a crash converges; a different decision is refused)

A checkpoint without an approval record is never resumed: the authorization refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.authority import Ask, CastVote
from ...domain.approval.verification import ResumeRequest
from ...domain.errors import (
    ApprovalExpiredError,
    DecisionAlreadyClaimedError,
    PlanNotAppliedError,
    RefusalCode,
    ResumeRefusedError,
    ValidationError,
)
from ...domain.records import ProviderBinding
from ..evidence import load_checkpoint
from ..runtime import Runtime
from .authorize import (
    ReadDecision,
    RecordVote,
    authorized,
    cast_vote,
    check_receipts,
    governing_approval,
    new_decision,
    recorded_decision,
    stale_reasons,
)
from .claim import ResumeResult
from .resume import Resume, resume_run, verify


@dataclass(frozen=True)
class ResumeDecided:
    """Resume ``checkpoint_id`` on ``binding`` with the decision recorded on ``approval_id`` (the workflow's
    ids, when it passes them; ``allowed``: the configuration's approver list, when it names one)."""

    checkpoint_id: str
    approval_id: str
    binding: ProviderBinding
    interrupt_id: str | None = None
    session_id: str | None = None
    allowed: Iterable[str] | None = None
    before_claim: Callable[[], None] | None = None


def resume_decided(rt: Runtime, cmd: ResumeDecided) -> ResumeResult:
    """Resume ``checkpoint_id`` with the decision recorded on ``approval_id``.

    Refusals raise ``ResumeRefusedError`` with nothing written; an approval that was recorded but did not
    apply raises ``PlanNotAppliedError`` (again on every retry: the outcome is recorded).
    """
    decision = recorded_decision(rt, ReadDecision(cmd.checkpoint_id, cmd.approval_id, cmd.allowed))
    request = ResumeRequest(
        cmd.checkpoint_id, decision.approved, decision.reviewed_hash, cmd.interrupt_id, cmd.session_id
    )
    # A retry of this step after the resume finished (a lost response, a redelivery) gets the recorded
    # outcome back, with nothing written; a retry while the first attempt still holds the claim is refused.
    result = resume_run(
        rt, Resume(request, cmd.binding, decision=decision, replay_completed=True, before_claim=cmd.before_claim)
    )
    if result.outcome == "not_applied":
        raise PlanNotAppliedError(
            f"the approval of checkpoint {cmd.checkpoint_id} was recorded but the plan did not apply: "
            f"{result.final_text}"
        )
    return result


@dataclass(frozen=True)
class ResumeDirect:
    """A decision typed at the CLI by ``approver`` (with ``reason``), resumed at once on ``binding``."""

    request: ResumeRequest
    binding: ProviderBinding
    approver: str
    reason: str
    before_claim: Callable[[], None] | None = None


def resume_direct(rt: Runtime, cmd: ResumeDirect) -> ResumeResult:
    """A decision typed at the CLI by ``approver``: a vote under the run's policy, then the resume, at once.

    The vote is written only after the policy, the resume gate and ``before_claim`` (the model can be
    reached) all said go (a refusal writes nothing), and only if it closes the approval: an approve short of
    the quorum is refused, not half-recorded.
    """
    checkpoint = load_checkpoint(rt.store, cmd.request.checkpoint_id)
    approval = governing_approval(rt, checkpoint.checkpoint_id)
    try:
        return _vote_and_resume(rt, cmd, approval)
    except ResumeRefusedError:
        after = governing_approval(rt, checkpoint.checkpoint_id)
        if approval is None or approval.status != "pending" or after is None or after.status == "pending":
            raise
        # Another process decided between our read of the open approval and our checks (a double click, racing
        # resumes; its apply is what made the shop look changed): answer as the decision it recorded. The
        # approval only moves on from pending, so this runs once.
        return resume_direct(rt, cmd)


def _vote_and_resume(rt: Runtime, cmd: ResumeDirect, approval: ApprovalRecord | None) -> ResumeResult:
    request, before_claim = cmd.request, cmd.before_claim
    now = rt.clock()
    checkpoint = load_checkpoint(rt.store, request.checkpoint_id)
    stale = stale_reasons(rt, checkpoint) if request.approved else ()
    ask = Ask(
        "cli",
        approved=request.approved,
        reviewed_hash=request.reviewed_hash,
        actor=cmd.approver,
        stale=bool(stale),
        stale_because="; ".join(stale),
    )
    go = authorized(approval, ask, now)
    assert approval is not None  # the authorization refuses a missing approval
    if isinstance(go, CastVote):
        try:
            decision = new_decision(request.approved, request.reviewed_hash, go.actor, cmd.reason, now)
        except ValueError as exc:
            raise ValidationError(f"invalid decision: {exc}") from None
        verify(rt, Resume(request, cmd.binding))  # the whole gate, reading only, before the vote is written
        if before_claim is not None:
            before_claim()
            before_claim = None  # checked once, before anything was written
        try:
            approval = cast_vote(rt, RecordVote(approval, checkpoint, decision, via="cli"))
        except (DecisionAlreadyClaimedError, ApprovalExpiredError) as exc:
            expired = isinstance(exc, ApprovalExpiredError)
            raise ResumeRefusedError(
                RefusalCode.EXPIRED if expired else RefusalCode.ALREADY_DECIDED, str(exc)
            ) from None
        rt.approvals.record_wake(approval.approval_id, now=now, confirmed=True)  # this process is the resume
        recorded = approval.decision
    else:
        check_receipts(approval, checkpoint, rt.receipt_key)
        recorded = go.decision
    assert recorded is not None  # a CLI vote is authorized only when it closes the approval
    return resume_run(rt, Resume(request, cmd.binding, decision=recorded, before_claim=before_claim))
