"""Decide: a POST from a link holder. Validate, then mutate: the policy authorizes (domain/approval/authority.py, the
one rule every path asks), a receipt is MACed, the vote is recorded (a conditional write that re-checks what it
writes on); once a reject or the quorum closes the approval, the workflow is woken with a pointer.

    valid link -> authorize(approval, Ask("link")) -> refused: nothing written (the page keeps the form)
                                                   -> same decision already recorded: wake it if never woken
                                                   -> vote -> pending (short of the quorum) | closed -> wake
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from ...domain.approval.authority import Ask, CastVote, ResumeRecorded, authorize
from ...domain.approval.verification import Refusal
from ...domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, NotFoundError, RefusalCode
from ...domain.records import Decision
from ..runtime import Runtime
from .authorize import RecordVote, cast_vote, identities, new_decision
from .review import Link, LinkView, link_view
from .wake import WakeOutcome, wake

DecideStatus = Literal["recorded", "vote_recorded", "already_recorded", "refused", "invalid", "closed"]


@dataclass(frozen=True)
class DecideResult:
    """How a POST ended, with the link's view of the approval afterwards (None for an invalid link)."""

    status: DecideStatus
    view: LinkView | None = None
    decision: Decision | None = None
    code: RefusalCode | None = None
    detail: str = ""
    wake: WakeOutcome | None = None

    @property
    def approver(self) -> str:
        """Who holds the link."""
        return self.view.approver if self.view else ""


@dataclass(frozen=True)
class Decide:
    """One approver's answer through their link: approve (on ``reviewed_hash``) or reject (with a reason).

    ``allowed_approvers``: the configuration's approver list, when it names one (an approver must be on it too).
    """

    approval_id: str
    secret: str
    approve: bool
    reviewed_hash: str
    reason: str
    allowed_approvers: Sequence[str] | None = None


def decide(rt: Runtime, cmd: Decide) -> DecideResult:
    """Record one approver's decision with its receipt; wake the workflow once the approval is closed.

    Nothing is written unless the link is valid and the policy lets this person make this decision now
    (on the list the approval was sent to, and on ``allowed_approvers`` when the configuration names one;
    not the requester approving their own plan under separation of duties; not twice; the reviewed hash is
    the plan's; an approve only on an unchanged shop, a reject always while open). A reject needs a reason.
    """
    now = rt.clock()
    view = link_view(rt, Link(cmd.approval_id, cmd.secret), now)
    if view is None:
        return DecideResult("closed")
    ask = Ask(
        "link",
        approved=cmd.approve,
        reviewed_hash=cmd.reviewed_hash,
        actor=view.approver,
        stale=view.changes is not None,
        stale_because=" ".join(view.changes or []),
        allowed=identities(cmd.allowed_approvers),
    )
    verdict = authorize(view.approval, ask, now)
    if isinstance(verdict, Refusal):
        # Whatever was asked, a decided approval whose workflow was never woken is woken now.
        woke = wake(rt, view.approval) if view.approval.needs_wake() else None
        after = _reread(rt, view, now)
        return DecideResult("refused", after, code=verdict.code, detail=verdict.message, wake=woke)
    if isinstance(verdict, ResumeRecorded):
        woke = wake(rt, view.approval)
        return DecideResult("already_recorded", _reread(rt, view, now), verdict.decision, wake=woke)
    return _vote(rt, view, verdict, cmd, now)


def _vote(rt: Runtime, view: LinkView, verdict: CastVote, cmd: Decide, now: datetime) -> DecideResult:
    approve, reason = cmd.approve, cmd.reason
    if not approve and not reason.strip():
        return DecideResult("invalid", view, detail="a rejection needs a reason")
    try:
        decision = new_decision(approve, view.approval.proposal_hash, verdict.actor, reason.strip(), now)
    except ValueError:
        return DecideResult("invalid", view, detail="the reason is too long (2000 characters at most)")
    try:
        recorded = cast_vote(rt, RecordVote(view.approval, view.checkpoint, decision, via="link"))
    except (DecisionAlreadyClaimedError, ApprovalExpiredError, NotFoundError) as exc:
        # Lost a race the authorization could not see (the approval closed between read and write).
        code = RefusalCode.EXPIRED if isinstance(exc, ApprovalExpiredError) else RefusalCode.ALREADY_DECIDED
        return DecideResult("refused", _reread(rt, view, now), code=code, detail=str(exc))
    after = _reread(rt, view, now)
    if recorded.status == "pending":
        return DecideResult("vote_recorded", after, decision)
    woke = wake(rt, recorded)
    return DecideResult("recorded", _reread(rt, view, now), decision, wake=woke)


def _reread(rt: Runtime, view: LinkView, now: datetime) -> LinkView:
    """The link's view as stored now, after a write (ours, or a concurrent one); the link was verified already."""
    approval = rt.approvals.get_approval(view.approval.approval_id) or view.approval
    return replace(
        view,
        approval=approval,
        changes=view.changes if approval.is_open(now) else None,
        outcome=rt.store.get_decision(approval.checkpoint_id),
    )
