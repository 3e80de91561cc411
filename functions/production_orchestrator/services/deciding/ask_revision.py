"""Ask for a revision through the workflow (AWS): the decision function records it; the workflow plans it.

    valid link, "Change the plan" -> authorize_revision (the identity rules of a vote; decided, expired,
                                     revised already: refused)
                                  -> check_guidance on the current shop (unknown order/machine/day, closed day,
                                     minutes over a day) ... all before anything is written
                                  -> version N's approval: pending -> superseded with the ask, and its
                                     ``revision_asked`` audit event, in one write conditioned on it being open
                                  -> wake: SendTaskSuccess {"revise": true}; the workflow plans version N+1
                                     with the guidance (services/runs/revise.py, plan_revision) and parks again

The decision function never runs the agent (it must not load strands): it only records what was asked. Two
asks at once: one write wins, the other re-reads and is refused naming the version being planned (SUPERSEDED).
A wake that fails leaves the ask recorded and unwoken; the reconciler (wake.reconcile) sends it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.authority import authorize_revision
from ...domain.approval.policy import identity
from ...domain.approval.revising import asked_revision
from ...domain.approval.revision_ask import RevisionAsk
from ...domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, RefusalCode, ResumeRefusedError
from ...domain.planning.guidance import Guidance, check_guidance
from ...domain.records import AuditEvent, audit_event, utc_iso
from ..runs.plan_request import planned_again, shop_for
from ..runtime import Runtime
from .review import LinkView
from .wake import WakeOutcome, wake


@dataclass(frozen=True)
class AskRevision:
    """The holder of ``view``'s link asks for the next version under ``guidance``; ``allowed``: the
    deployment's approver list, when it names one (as for a vote)."""

    view: LinkView
    guidance: Guidance
    allowed: frozenset[str] | None = None


@dataclass(frozen=True)
class RevisionAsked:
    """The approval as the ask left it (superseded, naming the version being planned) and how the wake went."""

    approval: ApprovalRecord
    wake: WakeOutcome


def ask_revision(rt: Runtime, cmd: AskRevision) -> RevisionAsked:
    """Record the ask on version N's approval and wake the workflow to plan version N+1.

    Refused (``ResumeRefusedError``: UNAUTHORIZED_APPROVER, ALREADY_DECIDED, EXPIRED, SUPERSEDED;
    ``GuidanceRefusedError`` for the guidance) with nothing written.
    """
    view, now = cmd.view, rt.clock()
    approval, checkpoint, proposal = view.approval, view.checkpoint, view.proposal
    refusal = authorize_revision(approval, view.approver, now, cmd.allowed)
    if refusal is not None:
        raise refusal.error()
    request = planned_again(rt, checkpoint, proposal)
    check_guidance(shop_for(rt, request, seed=False), cmd.guidance, proposal.target_order.id, request.planning_day)
    ask = RevisionAsk(given_by=identity(view.approver), asked_at=utc_iso(now), guidance=cmd.guidance)

    def event(after: ApprovalRecord) -> AuditEvent:
        return audit_event(
            "revision_asked",
            now,
            session_id=checkpoint.session_id,
            checkpoint_id=checkpoint.checkpoint_id,
            proposal_hash=checkpoint.proposal_hash,
            approval_id=after.approval_id,
            version=after.successor_version,
            revised_by=ask.given_by,
            guidance=cmd.guidance.words(),
        )

    try:
        recorded, _ = rt.store.change_approval(
            approval.approval_id, lambda before: asked_revision(before, ask, now), event
        )
    except (DecisionAlreadyClaimedError, ApprovalExpiredError) as exc:
        # Lost to a concurrent ask (or a decision, or the window): nothing of this one was written.
        after = rt.approvals.get_approval(approval.approval_id)
        raced = authorize_revision(after, view.approver, now, cmd.allowed)
        if raced is not None:
            raise raced.error() from None
        raise ResumeRefusedError(RefusalCode.ALREADY_DECIDED, f"the plan was closed meanwhile ({exc})") from None
    return RevisionAsked(recorded, wake(rt, recorded))
