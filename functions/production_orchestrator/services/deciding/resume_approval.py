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

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.authority import Ask, CastVote
from ...domain.approval.verification import ResumeRequest
from ...domain.errors import (
    ApprovalExpiredError,
    ConfigurationError,
    DecisionAlreadyClaimedError,
    PlanNotAppliedError,
    RefusalCode,
    ResumeRefusedError,
    ValidationError,
)
from ...domain.ports import ApprovalStore
from ...domain.records import ProviderBinding
from ..evidence import load_checkpoint
from ..runtime import Runtime
from .authorize import (
    authorized,
    cast_vote,
    check_receipts,
    governing_approval,
    new_decision,
    recorded_decision,
    stale_reasons,
)
from .claim import ResumeResult
from .resume import resume_run, verify


def _approvals(rt: Runtime) -> ApprovalStore:
    if rt.approvals is None:
        raise ConfigurationError("this runtime has no approval store, so no decision can be authorized")
    return rt.approvals


def resume_decided(
    rt: Runtime,
    binding: ProviderBinding,
    *,
    checkpoint_id: str,
    approval_id: str,
    interrupt_id: str | None = None,
    session_id: str | None = None,
    allowed: Iterable[str] | None = None,
    before_claim: Callable[[], None] | None = None,
) -> ResumeResult:
    """Resume ``checkpoint_id`` with the decision recorded on ``approval_id``.

    Refusals raise ``ResumeRefusedError`` with nothing written; an approval that was recorded but did not
    apply raises ``PlanNotAppliedError`` (again on every retry: the outcome is recorded).
    """
    decision = recorded_decision(
        rt.store, _approvals(rt), checkpoint_id, approval_id, now=rt.clock(), mac_key=rt.receipt_key, allowed=allowed
    )
    request = ResumeRequest(checkpoint_id, decision.approved, decision.reviewed_hash, interrupt_id, session_id)
    # A retry of this step after the resume finished (a lost response, a redelivery) gets the recorded
    # outcome back, with nothing written; a retry while the first attempt still holds the claim is refused.
    result = resume_run(rt, request, binding, decision=decision, replay_completed=True, before_claim=before_claim)
    if result.outcome == "not_applied":
        raise PlanNotAppliedError(
            f"the approval of checkpoint {checkpoint_id} was recorded but the plan did not apply: {result.final_text}"
        )
    return result


def resume_direct(
    rt: Runtime,
    request: ResumeRequest,
    binding: ProviderBinding,
    *,
    approver: str,
    reason: str,
    before_claim: Callable[[], None] | None = None,
) -> ResumeResult:
    """A decision typed at the CLI by ``approver``: a vote under the run's policy, then the resume, at once.

    The vote is written only after the policy, the resume gate and ``before_claim`` (the model can be
    reached) all said go (a refusal writes nothing), and only if it closes the approval: an approve short of
    the quorum is refused, not half-recorded.
    """
    approvals = _approvals(rt)
    checkpoint = load_checkpoint(rt.store, request.checkpoint_id)
    approval = governing_approval(approvals, checkpoint.checkpoint_id)
    try:
        return _vote_and_resume(
            rt, request, binding, approval, approver=approver, reason=reason, before_claim=before_claim
        )
    except ResumeRefusedError:
        after = governing_approval(approvals, checkpoint.checkpoint_id)
        if approval is None or approval.status != "pending" or after is None or after.status == "pending":
            raise
        # Another process decided between our read of the open approval and our checks (a double click, racing
        # resumes; its apply is what made the shop look changed): answer as the decision it recorded. The
        # approval only moves on from pending, so this runs once.
        return resume_direct(rt, request, binding, approver=approver, reason=reason, before_claim=before_claim)


def _vote_and_resume(
    rt: Runtime,
    request: ResumeRequest,
    binding: ProviderBinding,
    approval: ApprovalRecord | None,
    *,
    approver: str,
    reason: str,
    before_claim: Callable[[], None] | None,
) -> ResumeResult:
    approvals = _approvals(rt)
    now = rt.clock()
    checkpoint = load_checkpoint(rt.store, request.checkpoint_id)
    stale = stale_reasons(rt.store, checkpoint) if request.approved else ()
    ask = Ask(
        "cli",
        approved=request.approved,
        reviewed_hash=request.reviewed_hash,
        actor=approver,
        stale=bool(stale),
        stale_because="; ".join(stale),
    )
    go = authorized(approval, ask, now)
    assert approval is not None  # the authorization refuses a missing approval
    if isinstance(go, CastVote):
        try:
            decision = new_decision(request.approved, request.reviewed_hash, go.actor, reason, now)
        except ValueError as exc:
            raise ValidationError(f"invalid decision: {exc}") from None
        verify(rt, request, binding)  # the whole gate, reading only, before the vote is written
        if before_claim is not None:
            before_claim()
            before_claim = None  # checked once, before anything was written
        try:
            approval = cast_vote(
                rt.store, approvals, approval, checkpoint, decision, now=now, mac_key=rt.receipt_key, via="cli"
            )
        except (DecisionAlreadyClaimedError, ApprovalExpiredError) as exc:
            expired = isinstance(exc, ApprovalExpiredError)
            raise ResumeRefusedError(
                RefusalCode.EXPIRED if expired else RefusalCode.ALREADY_DECIDED, str(exc)
            ) from None
        approvals.record_wake(approval.approval_id, now=now, confirmed=True)  # this process is the resume
        recorded = approval.decision
    else:
        check_receipts(approval, checkpoint, rt.receipt_key)
        recorded = go.decision
    assert recorded is not None  # a CLI vote is authorized only when it closes the approval
    return resume_run(rt, request, binding, decision=recorded, before_claim=before_claim)
