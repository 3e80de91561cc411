"""Revise: an approver's "yes, but not like that" makes the next version of the same request's plan.

    open approval of version N, an approver's guidance
      -> authorize_revision (the identity rules of a vote; decided, expired, revised already: refused)
      -> check_guidance on the current shop (unknown order/machine/day, closed day, minutes over a day)
         ... all before any model call, with nothing written
      -> the agent plans again on the current shop with the guidance (a fresh run, the real loop)
      -> version N+1: its checkpoint, its approval (same policy and links, no votes: they do not carry over;
         expiry counted from now) and its ``plan_revised`` audit event are written, and version N's approval
         closed (pending -> superseded, naming version N+1), in one transaction conditioned on version N
         still being open

Two revisions at once both run the agent, but only one transaction can close version N's approval: the other
writes no checkpoint and no approval, and is refused naming the version that won (SUPERSEDED).

In AWS the decision function only records the ask (services/deciding/ask_revision.py: version N's approval closes
with the guidance on it) and wakes the workflow; its PlanRevisedVersion state runs ``plan_revision``:

    the approval holding the ask (not yet answered) -> the agent plans again with its guidance -> version N+1's
    checkpoint and ``plan_revised`` event -> the workflow parks again: request_approval gives version N+1 a new
    task token and new links, and links version N's approval to it; reminders are armed again
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.authority import authorize_revision
from ...domain.approval.policy import identity
from ...domain.approval.revising import revision_not_planned, revision_of
from ...domain.errors import (
    ApprovalExpiredError,
    DecisionAlreadyClaimedError,
    NeedsFactsError,
    OrchestratorError,
    PlanningError,
    RefusalCode,
    ResumeRefusedError,
    ShopError,
    ValidationError,
)
from ...domain.planning.guidance import Guidance, Revision, check_guidance
from ...domain.records import AuditEvent, ProviderBinding, audit_event, parse_utc
from ..asking.request_approval import LinkPlan
from ..evidence import review
from ..runtime import Runtime, need
from .plan_request import planned_again, shop_for
from .start import StartResult, StartRun, start_run


@dataclass(frozen=True)
class Revise:
    """``actor`` asks for a revised plan of ``checkpoint_id`` under ``guidance``, planned by the agent on
    ``binding``. ``allowed``: the deployment's approver list, when it names one (as for a vote);
    ``before_agent``: a check run once the revision may proceed, before the model is called (the CLI's
    "can the model be reached")."""

    checkpoint_id: str
    actor: str
    guidance: Guidance
    binding: ProviderBinding
    allowed: frozenset[str] | None = None
    before_agent: Callable[[], None] | None = None


def revise(rt: Runtime, cmd: Revise) -> StartResult:
    """The next version of ``checkpoint_id``'s plan, made under ``guidance`` and waiting for approval.

    Refused (``ResumeRefusedError``: UNAUTHORIZED_APPROVER, ALREADY_DECIDED, EXPIRED, SUPERSEDED;
    ``GuidanceRefusedError`` for the guidance) before any model call, with nothing written.
    """
    approvals = need(rt.approvals, "approval store")
    checkpoint, proposal = review(rt.store, cmd.checkpoint_id)
    found = approvals.approvals_for(checkpoint.checkpoint_id)
    old = found[-1] if found else None
    refusal = authorize_revision(old, cmd.actor, rt.clock(), cmd.allowed)
    if refusal is not None:
        raise refusal.error()
    assert old is not None  # authorize_revision refuses a plan without an approval
    request = planned_again(rt, checkpoint, proposal)
    check_guidance(shop_for(rt, request), cmd.guidance, proposal.target_order.id, request.planning_day)
    revision = Revision(
        version=proposal.version + 1,
        supersedes=checkpoint.proposal_hash,
        given_by=identity(cmd.actor),
        guidance=cmd.guidance,
    )
    if cmd.before_agent is not None:
        cmd.before_agent()
    window = max(parse_utc(checkpoint.expires_at) - parse_utc(checkpoint.created_at), timedelta(seconds=1))
    try:
        return start_run(
            rt, StartRun(request.revised(revision), cmd.binding, window, LinkPlan.successor(old), replacing=True)
        )
    except (DecisionAlreadyClaimedError, ApprovalExpiredError) as exc:
        # Lost to a concurrent revision (or a decision, or the window): nothing of this one was written.
        after = approvals.get_approval(old.approval_id)
        raced = authorize_revision(after, cmd.actor, rt.clock(), cmd.allowed)
        if raced is not None:
            raise raced.error() from None
        raise ResumeRefusedError(RefusalCode.ALREADY_DECIDED, f"the plan was closed meanwhile ({exc})") from None


@dataclass(frozen=True)
class PlanRevision:
    """Plan the version a revision was asked for on ``approval_id`` (of ``checkpoint_id``), with the agent on
    ``binding``, for an approval window of ``window`` counted from now."""

    checkpoint_id: str
    approval_id: str
    binding: ProviderBinding
    window: timedelta


def plan_revision(rt: Runtime, cmd: PlanRevision) -> tuple[StartResult, ApprovalRecord]:
    """The next version, planned with the guidance the approval holds; returns it and the approval it answers.

    Refused (``ResumeRefusedError``) before any model call when the approval is not this checkpoint's, holds no
    revision ask, or its ask was answered already (a replayed or duplicated wake-up plans nothing twice).
    """
    old = need(rt.approvals, "approval store").get_approval(cmd.approval_id)
    if old is None or old.checkpoint_id != cmd.checkpoint_id or old.revision_asked is None:
        raise ResumeRefusedError(
            RefusalCode.CHECKPOINT_INVALID,
            f"no revision was asked on approval {cmd.approval_id} of {cmd.checkpoint_id}",
        )
    if old.superseded_by:
        raise ResumeRefusedError(
            RefusalCode.ALREADY_DECIDED,
            f"version {old.successor_version} was planned already (approval {old.superseded_by})",
        )
    revision = revision_of(old)
    checkpoint, proposal = review(rt.store, old.checkpoint_id)
    if checkpoint.proposal_hash != old.proposal_hash:
        raise ResumeRefusedError(RefusalCode.PROPOSAL_INTEGRITY, f"approval {old.approval_id} is about another plan")
    try:
        request = planned_again(rt, checkpoint, proposal).revised(revision)
        # Asked on an earlier day, planned on this one: a day the guidance names may have passed meanwhile.
        shop = shop_for(rt, request, seed=False)
        check_guidance(shop, revision.guidance, proposal.target_order.id, request.planning_day)
        return start_run(rt, StartRun(request, cmd.binding, cmd.window, replacing=True, seed=False)), old
    except _NOT_PLANNABLE as exc:
        _say_not_planned(rt, old, exc)
        raise


# What planning the version asked for refuses for good (the guidance, the request, the shop): said on the approval.
# A backend error or a lost race is not: the workflow's retry, or the version that won, answers the ask.
_NOT_PLANNABLE = (ValidationError, ShopError, PlanningError, NeedsFactsError)


def _say_not_planned(rt: Runtime, old: ApprovalRecord, exc: OrchestratorError) -> None:
    """Record on ``old`` (and in the audit chain) that its revision could not be planned, and why, so its link and
    every path say so instead of "being planned"; the workflow then ends RevisionNotPlanned."""
    label = str(getattr(getattr(exc, "code", ""), "value", getattr(exc, "code", "")))  # GuidanceCode or a str
    why = str(exc) if not label or str(exc).startswith(label) else f"{label}: {exc}"

    def event(after: ApprovalRecord) -> AuditEvent:
        return audit_event(
            "revision_not_planned",
            rt.clock(),
            checkpoint_id=old.checkpoint_id,
            proposal_hash=old.proposal_hash,
            approval_id=old.approval_id,
            version=old.successor_version,
            reason=after.revision_asked.not_planned if after.revision_asked else why,
        )

    with contextlib.suppress(DecisionAlreadyClaimedError):  # a version answered it meanwhile: that stands
        rt.store.change_approval(old.approval_id, lambda before: revision_not_planned(before, why), event)
