"""Who may decide what, when: the one rule every path asks before a decision may proceed.

    page POST (vote) ----\
    CLI resume ----------+--> authorize(approval, ask, now) --> CastVote | ResumeRecorded | Refusal
    resume-approval -----|
    resume Lambda -------/

The answer depends only on the approval record (its status, the policy stored in it, its votes), on who
asks for which decision on which hash, on whether the shop moved on since the plan was proposed, and on
the clock. Nothing else decides: no path reaches a claim, a vote or an apply without a go from here.

    pending --approve (short of the quorum)--> pending
    pending --approve reaching the quorum-----> decided     (only on a fresh shop)
    pending --reject (fresh or stale)---------> rejected    (changes nothing in the shop)
    pending --window closed, workflow timed out-> expired
    pending --propose again-------------------> superseded  (the successor opens under the same links)
    pending --revise (not the last version)---> superseded  (version N+1 is planned; the last: VERSION_LIMIT)
    decided | rejected: the same decision resumes (retry, replay, takeover); any other is ALREADY_DECIDED

Identities (approver names, e-mails, the requester, who voted) are compared in one form: :func:`identity`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..errors import RefusalCode
from ..records import Decision, parse_utc
from .approvals import ApprovalRecord
from .policy import Via, identity
from .revising import revision_failed
from .verification import Refusal


@dataclass(frozen=True)
class Ask:
    """A request to decide, as any path makes it.

    ``via``: ``link`` (a page POST), ``cli`` (``resume --approver``: the vote and the resume at once) or
    ``workflow`` (resume-approval / the resume Lambda: only the decision the approval holds may proceed).
    ``stale``: the plan no longer applies on the shop (only an approve needs that); ``stale_because`` says
    what changed inside its footprint, for the refusal.
    """

    via: Via
    approved: bool
    reviewed_hash: str
    actor: str = ""
    stale: bool = False
    allowed: frozenset[str] | None = None
    stale_because: str = ""


@dataclass(frozen=True)
class CastVote:
    """Go: record ``actor``'s vote (a conditional write that re-checks the status it was read in)."""

    actor: str
    decides: bool  # this vote closes the approval (a reject, or the approve that reaches the quorum)


@dataclass(frozen=True)
class ResumeRecorded:
    """Go: resume with the decision the approval holds (a retry, a replay, the workflow)."""

    decision: Decision


Verdict = CastVote | ResumeRecorded | Refusal


def _refuse(code: RefusalCode, message: str) -> Refusal:
    return Refusal(code, message)


def authorize(approval: ApprovalRecord | None, ask: Ask, now: datetime) -> Verdict:
    """The one answer to "may this decision proceed?" for every path. Pure: reads only its arguments."""
    if approval is None:
        return _refuse(
            RefusalCode.UNAUTHORIZED_APPROVER,
            "no approval was requested for this plan, so nobody may decide on it",
        )
    if approval.status in ("decided", "rejected"):
        return _closed(approval, ask)
    if was_revised(approval):
        return superseded_refusal(approval)
    if approval.status == "superseded":
        return _refuse(
            RefusalCode.ALREADY_DECIDED,
            f"approval {approval.approval_id} was closed when a new plan was proposed "
            f"(approval {approval.superseded_by or '?'}); decide on the new plan",
        )
    if approval.status == "expired" or now >= parse_utc(approval.expires_at):
        return _refuse(RefusalCode.EXPIRED, f"approval {approval.approval_id} expired at {approval.expires_at}")
    if ask.via == "workflow":
        return _refuse(
            RefusalCode.UNAUTHORIZED_APPROVER,
            f"approval {approval.approval_id} holds no decision yet ({approval.approving_votes()} of "
            f"{approval.required} approvals)",
        )
    return _open(approval, ask)


def was_revised(approval: ApprovalRecord) -> bool:
    """True when a revision (a newer version of the plan) replaced ``approval``."""
    return approval.status == "superseded" and approval.successor_version > approval.version


def superseded_refusal(approval: ApprovalRecord) -> Refusal:
    """The refusal of anything asked of a version a revision replaced: it names the version that did (in AWS,
    until the workflow has planned it, the version being planned and who asked for it)."""
    asked, failed = approval.revision_asked, revision_failed(approval)
    if failed:
        return _refuse(
            RefusalCode.SUPERSEDED,
            f"version {approval.version} of this plan (approval {approval.approval_id}) was revised"
            f"{f' by {asked.given_by}' if asked else ''}, but version {approval.successor_version} could not be "
            f"planned ({failed}): nothing will act on this plan; start the request again",
        )
    if not approval.superseded_by:
        return _refuse(
            RefusalCode.SUPERSEDED,
            f"version {approval.version} of this plan (approval {approval.approval_id}) was revised"
            f"{f' by {asked.given_by}' if asked else ''}: version {approval.successor_version} is being planned "
            f"and its approvers get new links; decide on version {approval.successor_version}",
        )
    return _refuse(
        RefusalCode.SUPERSEDED,
        f"version {approval.version} of this plan (approval {approval.approval_id}) was revised: version "
        f"{approval.successor_version} (proposal {approval.successor_hash[:12]}..., approval "
        f"{approval.superseded_by}) replaces it; decide on version {approval.successor_version}",
    )


def authorize_revision(
    approval: ApprovalRecord | None, actor: str, now: datetime, allowed: frozenset[str] | None = None
) -> Refusal | None:
    """None when ``actor`` may revise the plan ``approval`` is about (under the identity rules of a vote: one
    the policy would let approve it, while it is open); else the refusal. Pure."""
    if approval is None:
        return _refuse(RefusalCode.UNAUTHORIZED_APPROVER, "no approval was requested for this plan: none may revise it")
    if was_revised(approval):
        return superseded_refusal(approval)
    if approval.status in ("decided", "rejected", "superseded"):
        return _refuse(
            RefusalCode.ALREADY_DECIDED,
            f"approval {approval.approval_id} is already {approval.status}: only an open plan can be revised",
        )
    if approval.status == "expired" or now >= parse_utc(approval.expires_at):
        return _refuse(RefusalCode.EXPIRED, f"approval {approval.approval_id} expired at {approval.expires_at}")
    refusal = approval.policy.refusal_for(identity(actor), True, allowed)
    if refusal is not None:
        return _refuse(RefusalCode.UNAUTHORIZED_APPROVER, f"{refusal}: they may not revise it either")
    if approval.policy.is_last_version(approval.version):
        # On AWS the execution is sized for this many windows: a version past it would outlive its workflow.
        return _refuse(
            RefusalCode.VERSION_LIMIT,
            f"version {approval.version} is the last version this plan may have (at most "
            f"{approval.policy.max_versions}): approve or reject it; for another plan, reject it and start the "
            "request again",
        )
    return None


def _closed(approval: ApprovalRecord, ask: Ask) -> Verdict:
    """A decided or rejected approval: only the decision it holds may proceed, and only if it holds up."""
    decision = approval.decision
    recorded = "an approval" if approval.status == "decided" else "a rejection"
    if decision is None:
        return _refuse(RefusalCode.CHECKPOINT_INVALID, f"approval {approval.approval_id} is closed without a decision")
    if decision.approved != ask.approved or decision.reviewed_hash != ask.reviewed_hash:
        who = decision.approver
        return _refuse(
            RefusalCode.ALREADY_DECIDED,
            f"{recorded} by {who} was already recorded on approval {approval.approval_id} at "
            f"{decision.decided_at}; a different decision cannot replace it",
        )
    if decision.reviewed_hash != approval.proposal_hash:
        return _refuse(
            RefusalCode.REVIEWED_HASH_MISMATCH,
            f"the decision recorded on approval {approval.approval_id} names another plan than the one it is about",
        )
    if ask.via == "cli":
        refusal = approval.policy.refusal_for(ask.actor, ask.approved, ask.allowed)
        if refusal is not None:
            return _refuse(RefusalCode.UNAUTHORIZED_APPROVER, refusal)
    problem = holds_up(approval, ask.allowed)
    if problem is not None:
        return _refuse(RefusalCode.UNAUTHORIZED_APPROVER, problem)
    return ResumeRecorded(decision)


def holds_up(approval: ApprovalRecord, allowed: frozenset[str] | None = None) -> str | None:
    """None when the recorded votes justify the recorded decision under the stored policy; else why not.

    Read on every resume, so a record edited in storage (a status flipped, a vote added or renamed) cannot
    carry a decision its votes do not make.
    """
    decision = approval.decision
    if decision is None:
        return f"approval {approval.approval_id} holds no decision"
    problem = _votes_problem(approval, allowed)
    if problem is not None:
        return problem
    rejects = [v for v in approval.votes if not v.decision.approved]
    if decision.approved:
        if rejects:
            return f"approval {approval.approval_id} holds a rejection by {rejects[0].decision.approver}"
        if approval.approving_votes() < approval.required:
            return (
                f"approval {approval.approval_id} needs {approval.required} approvals and holds "
                f"{approval.approving_votes()}"
            )
    elif not rejects:
        return f"approval {approval.approval_id} says rejected but holds no rejection"
    if approval.votes[-1].decision != decision:
        return f"the decision of approval {approval.approval_id} is not its last vote"
    return None


def _votes_problem(approval: ApprovalRecord, allowed: frozenset[str] | None) -> str | None:
    """Each vote by a distinct person who may cast it, on exactly the approval's plan."""
    if not approval.votes:
        return f"approval {approval.approval_id} holds no votes"
    seen: set[str] = set()
    for vote in approval.votes:
        voter = identity(vote.decision.approver)
        if voter in seen:
            return f"{voter} voted twice on approval {approval.approval_id}"
        seen.add(voter)
        refusal = approval.policy.refusal_for(voter, vote.decision.approved, allowed)
        if refusal is not None:
            return refusal
        if vote.decision.reviewed_hash != approval.proposal_hash:
            return f"{voter} voted on another plan than approval {approval.approval_id} is about"
    return None


def _open(approval: ApprovalRecord, ask: Ask) -> Verdict:
    """A pending approval in its window: may this person cast this vote now?"""
    actor = identity(ask.actor)
    if ask.reviewed_hash != approval.proposal_hash:
        return _refuse(
            RefusalCode.REVIEWED_HASH_MISMATCH,
            f"the reviewed hash {ask.reviewed_hash[:12]}... is not the plan {approval.proposal_hash[:12]}... "
            f"approval {approval.approval_id} is about",
        )
    refusal = approval.policy.refusal_for(actor, ask.approved, ask.allowed)
    if refusal is not None:
        return _refuse(RefusalCode.UNAUTHORIZED_APPROVER, refusal)
    if approval.has_voted(actor):
        return _refuse(RefusalCode.ALREADY_DECIDED, f"{actor} already voted on approval {approval.approval_id}")
    if not ask.approved:
        return CastVote(actor, decides=True)  # a reject is always possible while open, stale or not
    if ask.stale:
        return _refuse(
            RefusalCode.STALE_DOMAIN_STATE,
            "this plan no longer holds on the current shop"
            + (f" ({ask.stale_because})" if ask.stale_because else "")
            + ": it can be rejected or proposed again, not approved",
        )
    given = approval.approving_votes() + 1
    if ask.via == "cli" and given < approval.required:
        return _refuse(
            RefusalCode.UNAUTHORIZED_APPROVER,
            f"this plan needs {approval.required} approvals and would hold {given}: the other approvers "
            "approve from their own links first",
        )
    return CastVote(actor, decides=given >= approval.required)
