"""Approval use cases over the ports, importing nothing of strands (the decision endpoint's cold start).

    request_approval: checkpoint + proposal (re-hashed) -> approval record (task token, secret hashes,
                      approvers, requester, separation of duties, quorum)
                      -> one message per approver with the link ?a=<approval id>&s=<secret>
    open_link:        GET/HEAD -> the plan to confirm (and what changed since, if the shop moved on), or
                      None (the neutral page); reads only
    decide:           POST -> authorize -> receipt (MAC) -> conditional vote (a reject or the quorum decides)
                      -> SendTaskSuccess with a pointer once decided
    expire_approvals: workflow timed out -> pending->expired; never approves
    decision_for_resume: the recorded decision, its receipts verified, as the resume gate's request

A link secret is 32 random bytes; only its SHA-256 is stored, and the raw task token never leaves the
approval record except in the ``SendTaskSuccess`` call.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from urllib.parse import urlencode

from .domain.approvals import ApprovalRecord, ApproverLink, Vote, hash_link_secret, required_approvals
from .domain.canonical import sha256_hex
from .domain.errors import (
    ApprovalExpiredError,
    DecisionAlreadyClaimedError,
    IntegrityError,
    NotFoundError,
    RefusalCode,
    ResumeRefusedError,
    TaskTokenClosedError,
    ValidationError,
)
from .domain.planning import ProposalContent, load_proposal
from .domain.ports import ApprovalMessage, ApprovalNotifier, ApprovalStore, MacKey, ShopStore, WorkflowCallback
from .domain.receipts import Receipt, check_receipt, make_receipt
from .domain.records import CHECKPOINT_ID_PATTERN, AuditEvent, Checkpoint, Decision, parse_utc, require_id, utc_iso
from .domain.shop import ShopState
from .domain.statediff import describe_changes
from .domain.verification import Refusal, ResumeRequest, read_checkpoint
from .presentation import fingerprint, render_review


def review(store: ShopStore, checkpoint_id: str) -> tuple[Checkpoint, ProposalContent]:
    """The checkpoint and its verified proposal: exactly what a human reviews."""
    require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
    checkpoint = read_checkpoint(store.get_checkpoint(checkpoint_id), checkpoint_id)
    if isinstance(checkpoint, Refusal):
        raise ResumeRefusedError(checkpoint.code, checkpoint.message)
    data = store.get_proposal(checkpoint.proposal_hash)
    if data is None:
        raise ResumeRefusedError(RefusalCode.PROPOSAL_INTEGRITY, f"proposal {checkpoint.proposal_hash} is missing")
    return checkpoint, load_proposal(data, checkpoint.proposal_hash)


def approval_link(base_url: str, approval_id: str, secret: str) -> str:
    """The link an approver opens: approval id and link secret, never the task token."""
    return f"{base_url}?{urlencode({'a': approval_id, 's': secret})}"


@dataclass(frozen=True)
class ApprovalRequested:
    """What a request produced (no secret in it)."""

    approval_id: str
    checkpoint_id: str
    proposal_hash: str
    expires_at: str
    notified: int


def request_approval(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    *,
    checkpoint_id: str,
    proposal_hash: str,
    task_token: str,
    approvers: Sequence[str],
    link_base_url: str,
    now: datetime,
    requester: str = "",
    separation_of_duties: bool = False,
    quorum: int = 1,
    quorum_above_quantity: int | None = None,
    restricted: bool = True,
) -> ApprovalRequested:
    """Store the task token behind a new approval and send each approver their own link.

    The policy (approvers, requester, separation of duties, how many approvals) is fixed in the record.
    """
    checkpoint, proposal = review(store, checkpoint_id)
    if proposal_hash != checkpoint.proposal_hash:
        raise IntegrityError(f"the workflow names another proposal than checkpoint {checkpoint_id}")
    if not approvers:
        raise ValidationError("no approvers are configured")
    links = {approver: secrets.token_urlsafe(32) for approver in dict.fromkeys(approvers)}
    procured = sum(action.quantity for action in proposal.procurement_actions)
    needed = required_approvals(procured, quorum=quorum, above_quantity=quorum_above_quantity)
    eligible = [a for a in links if not (separation_of_duties and a == requester)]
    if needed > len(eligible):
        raise ValidationError(
            f"the plan needs {needed} approvals but only {len(eligible)} approver(s) may approve it"
            + (" (the requester may not)" if separation_of_duties and requester in links else "")
        )
    record = ApprovalRecord(
        approval_id=f"appr-{secrets.token_hex(16)}",
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        created_at=utc_iso(now),
        expires_at=checkpoint.expires_at,
        task_token=task_token,
        approvers=tuple(ApproverLink(approver=a, secret_hash=hash_link_secret(s)) for a, s in links.items()),
        requester=requester,
        separation_of_duties=separation_of_duties,
        quorum=needed,
        restricted=restricted,
    )
    # Stored before anything is sent: a link that reaches someone always points at a record.
    approvals.create_approval(record)
    order = proposal.target_order
    for approver, secret in links.items():
        body = "\n".join(
            [
                "A production plan is waiting for your decision.",
                "",
                render_review(checkpoint, proposal),
                "",
                "Open this link to review the plan and decide. Opening it changes nothing;",
                "only the Approve or Reject button on the page records a decision:",
                approval_link(link_base_url, record.approval_id, secret),
                "",
                "The link is yours alone: do not forward it.",
            ]
        )
        notifier.notify(
            ApprovalMessage(
                approval_id=record.approval_id,
                approver=approver,
                subject=f"Approve plan for order {order.order_id}? [{fingerprint(checkpoint.proposal_hash)}]",
                body=body,
                link=approval_link(link_base_url, record.approval_id, secret),
            )
        )
    return ApprovalRequested(
        approval_id=record.approval_id,
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        expires_at=record.expires_at,
        notified=len(links),
    )


def current_approval(approvals: ApprovalStore, approval_id: str) -> ApprovalRecord | None:
    """The approval ``approval_id`` names, or the one that superseded it ("propose again" keeps links)."""
    approval = approvals.get_approval(approval_id)
    for _ in range(20):
        if approval is None or not approval.superseded_by:
            return approval
        approval = approvals.get_approval(approval.superseded_by)
    return None


def open_stale(
    store: ShopStore, approvals: ApprovalStore, approval_id: str, secret: str, now: datetime
) -> LinkView | None:
    """A valid link whose plan was refused as stale (or is stale now): what may be proposed again. Reads only."""
    approval = current_approval(approvals, approval_id)
    if approval is None or approval.status == "expired" or now >= parse_utc(approval.expires_at):
        return None
    approver = approval.approver_for(secret)
    if approver is None or store.get_decision(approval.checkpoint_id) is not None:
        return None
    try:
        checkpoint, proposal = review(store, approval.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return None
    changes = what_changed(store, checkpoint)
    if changes is None:
        return None
    return LinkView(approval=approval, approver=approver, checkpoint=checkpoint, proposal=proposal, changes=changes)


def supersede(
    store: ShopStore, approvals: ApprovalStore, old: ApprovalRecord, new_checkpoint: Checkpoint, now: datetime
) -> ApprovalRecord:
    """A new approval for ``new_checkpoint`` with ``old``'s policy and links; ``old`` is closed and points at it.

    The approvers keep their links: each opens the new plan. Nothing of the old decision carries over.
    """
    record = old.model_copy(
        update={
            "approval_id": f"appr-{secrets.token_hex(16)}",
            "checkpoint_id": new_checkpoint.checkpoint_id,
            "proposal_hash": new_checkpoint.proposal_hash,
            "status": "pending",
            "created_at": utc_iso(now),
            "expires_at": new_checkpoint.expires_at,
            "decided_by": "",
            "decision": None,
            "closed_at": "",
            "votes": (),
            "superseded_by": "",
        }
    )
    approvals.create_approval(ApprovalRecord.model_validate(record.model_dump()))
    with contextlib.suppress(DecisionAlreadyClaimedError):  # changed meanwhile: the new approval stands alone
        approvals.expire_approval(old.approval_id, now=now, from_status=old.status, superseded_by=record.approval_id)
    store.append_audit(
        AuditEvent(
            event_type="approval_superseded",
            at=utc_iso(now),
            checkpoint_id=old.checkpoint_id,
            proposal_hash=old.proposal_hash,
            detail={
                "approval_id": old.approval_id,
                "new_approval_id": record.approval_id,
                "new_checkpoint_id": new_checkpoint.checkpoint_id,
            },
        )
    )
    return record


def what_changed(store: ShopStore, checkpoint: Checkpoint) -> list[str] | None:
    """None while the shop is as it was when the plan was proposed; else each change since, in words."""
    current = store.load_state()
    if current is None or current.digest() == checkpoint.domain_digest:
        return None
    data = store.get_state_snapshot(checkpoint.domain_digest)
    if data is None or sha256_hex(data) != checkpoint.domain_digest:
        return ["The shop changed since this plan was proposed (the state it was proposed on is not on record)."]
    return describe_changes(ShopState.model_validate_json(data), current)


@dataclass(frozen=True)
class LinkView:
    """An open link: who holds it, the verified plan it is about, and what changed since (if anything)."""

    approval: ApprovalRecord
    approver: str
    checkpoint: Checkpoint
    proposal: ProposalContent
    changes: list[str] | None = None

    @property
    def may_approve(self) -> bool:
        """False for the requester under separation of duties: they may only reject."""
        return self.approval.refusal_for(self.approver, True) is None


def open_link(
    store: ShopStore, approvals: ApprovalStore, approval_id: str, secret: str, now: datetime
) -> LinkView | None:
    """The plan behind a valid, pending, unexpired link not yet used; None for any other link. Reads only."""
    approval = current_approval(approvals, approval_id)
    if approval is None:
        return None
    approver = approval.approver_for(secret)
    if approver is None or approval.status != "pending" or now >= parse_utc(approval.expires_at):
        return None
    if approval.has_voted(approver) or store.get_decision(approval.checkpoint_id) is not None:
        return None
    try:
        checkpoint, proposal = review(store, approval.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return None
    if checkpoint.proposal_hash != approval.proposal_hash:
        return None
    return LinkView(
        approval=approval,
        approver=approver,
        checkpoint=checkpoint,
        proposal=proposal,
        changes=what_changed(store, checkpoint),
    )


DecideStatus = Literal["recorded", "vote_recorded", "closed", "hash_mismatch", "invalid", "unauthorized"]


@dataclass(frozen=True)
class DecideResult:
    """How a POST ended. ``closed`` covers unknown, expired, used and undeliverable alike."""

    status: DecideStatus
    approval_id: str = ""
    approver: str = ""
    decision: Decision | None = None
    detail: str = ""
    checkpoint_id: str = ""
    approvals_needed: int = 0
    approvals_given: int = 0


def decide(
    store: ShopStore,
    approvals: ApprovalStore,
    callback: WorkflowCallback,
    *,
    approval_id: str,
    secret: str,
    approve: bool,
    reviewed_hash: str,
    reason: str,
    now: datetime,
    mac_key: MacKey | None = None,
    allowed_approvers: Sequence[str] | None = None,
) -> DecideResult:
    """Record one approver's decision with its receipt; wake the workflow once the approval is decided.

    Validate, then mutate: nothing is written unless the link is valid, pending, unexpired and unused,
    the human reviewed exactly the pending proposal, and they may make this decision (on the list the
    approval was sent to, and on ``allowed_approvers`` when the configuration names one; not the requester
    approving their own plan under separation of duties). A reject needs a reason.
    """
    view = open_link(store, approvals, approval_id, secret, now)
    if view is None:
        return DecideResult("closed")
    approver, approval_id = view.approver, view.approval.approval_id
    if reviewed_hash != view.approval.proposal_hash:
        return DecideResult("hash_mismatch", approval_id, approver, detail="reviewed hash differs")
    refusal = view.approval.refusal_for(approver, approve)
    if refusal is None and allowed_approvers is not None and approver not in allowed_approvers:
        refusal = f"{approver} is no longer on the configured approver list"
    if refusal is not None:
        return DecideResult("unauthorized", approval_id, approver, detail=refusal)
    if not approve and not reason.strip():
        return DecideResult("invalid", approval_id, approver, detail="a rejection needs a reason")
    try:
        decision = Decision(
            approved=approve, reviewed_hash=reviewed_hash, approver=approver, reason=reason, decided_at=utc_iso(now)
        )
    except ValueError:
        return DecideResult("invalid", approval_id, approver, detail="the reason is too long")
    receipt = None if mac_key is None else make_receipt(view.checkpoint, decision, mac_key, approval_id=approval_id)
    try:
        recorded = approvals.record_approval_vote(approval_id, Vote(decision=decision, receipt=receipt), now=now)
    except (DecisionAlreadyClaimedError, ApprovalExpiredError, NotFoundError):
        return DecideResult("closed", approval_id, approver)
    store.append_audit(
        AuditEvent(
            event_type="approval_vote",
            at=utc_iso(now),
            session_id=view.checkpoint.session_id,
            checkpoint_id=recorded.checkpoint_id,
            proposal_hash=recorded.proposal_hash,
            detail={
                "approval_id": approval_id,
                "approver": approver,
                "approved": approve,
                "receipt_mac": receipt.mac if receipt else "",
                "status": recorded.status,
            },
        )
    )
    counts = {
        "checkpoint_id": recorded.checkpoint_id,
        "approvals_needed": recorded.quorum,
        "approvals_given": recorded.approving_votes(),
    }
    if recorded.status != "decided":
        return DecideResult("vote_recorded", approval_id, approver, decision=decision, **counts)  # type: ignore[arg-type]
    try:
        callback.send_success(
            recorded.task_token, {"checkpoint_id": recorded.checkpoint_id, "approval_id": recorded.approval_id}
        )
    except TaskTokenClosedError as exc:
        # The workflow gave up waiting (timeout) before this arrived: the decision can never be acted on,
        # so the record says so instead of claiming a decision nobody will resume.
        approvals.expire_approval(approval_id, now=now, from_status="decided")
        return DecideResult("closed", approval_id, approver, detail=str(exc))
    return DecideResult("recorded", approval_id, approver, decision=decision, **counts)  # type: ignore[arg-type]


def expire_approvals(store: ShopStore, approvals: ApprovalStore, checkpoint_id: str, now: datetime) -> list[str]:
    """Mark every still-pending approval of ``checkpoint_id`` expired; return their ids. Never approves."""
    expired: list[str] = []
    for approval in approvals.approvals_for(checkpoint_id):
        if approval.status != "pending":
            continue
        try:
            approvals.expire_approval(approval.approval_id, now=now)
        except DecisionAlreadyClaimedError:
            continue  # decided in the last moment: the decision stands, the workflow has moved on
        store.append_audit(
            AuditEvent(
                event_type="approval_expired",
                at=utc_iso(now),
                checkpoint_id=checkpoint_id,
                proposal_hash=approval.proposal_hash,
                detail={"approval_id": approval.approval_id},
            )
        )
        expired.append(approval.approval_id)
    return expired


@dataclass(frozen=True)
class RecordedDecision:
    """The human decision an approval holds, as the resume gate takes it."""

    request: ResumeRequest
    approver: str
    reason: str


def decision_for_resume(
    approvals: ApprovalStore,
    checkpoint_id: str,
    approval_id: str,
    *,
    interrupt_id: str | None = None,
    session_id: str | None = None,
    store: ShopStore | None = None,
    mac_key: MacKey | None = None,
) -> RecordedDecision:
    """The decision recorded on ``approval_id``; refuse unless it is a decided approval of ``checkpoint_id``
    whose votes are authorized and, with ``mac_key`` (and ``store`` to read the checkpoint), whose every
    receipt verifies and describes its vote (``RECEIPT_INVALID``)."""
    approval = approvals.get_approval(approval_id)
    if approval is None or approval.checkpoint_id != checkpoint_id:
        raise ResumeRefusedError(
            RefusalCode.CHECKPOINT_INVALID, f"approval {approval_id} is not an approval of checkpoint {checkpoint_id}"
        )
    if approval.status == "expired":
        raise ResumeRefusedError(RefusalCode.EXPIRED, f"approval {approval_id} expired at {approval.expires_at}")
    if approval.status != "decided" or approval.decision is None:
        raise ResumeRefusedError(RefusalCode.CHECKPOINT_INVALID, f"approval {approval_id} holds no decision")
    decision = approval.decision
    votes = approval.votes or ()
    for vote in votes:
        refusal = approval.refusal_for(vote.decision.approver, vote.decision.approved)
        if refusal is not None:
            raise ResumeRefusedError(RefusalCode.UNAUTHORIZED_APPROVER, refusal)
    if decision.approved and approval.approving_votes() < approval.quorum:
        raise ResumeRefusedError(
            RefusalCode.UNAUTHORIZED_APPROVER,
            f"approval {approval_id} needs {approval.quorum} approvals and holds {approval.approving_votes()}",
        )
    if mac_key is not None and store is not None:
        checkpoint, _ = review(store, checkpoint_id)
        if not votes or votes[-1].decision != decision:
            raise ResumeRefusedError(RefusalCode.RECEIPT_INVALID, f"approval {approval_id} holds no receipted vote")
        for vote in votes:
            problem = check_receipt(vote.receipt, mac_key, checkpoint=checkpoint, decision=vote.decision)
            if problem is not None:
                raise ResumeRefusedError(RefusalCode.RECEIPT_INVALID, problem)
    return RecordedDecision(
        request=ResumeRequest(
            checkpoint_id=checkpoint_id,
            approved=decision.approved,
            reviewed_hash=decision.reviewed_hash,
            interrupt_id=interrupt_id,
            session_id=session_id,
        ),
        approver=decision.approver,
        reason=decision.reason,
    )


def authorize_direct(approvals: ApprovalStore, checkpoint_id: str, approver: str, approved: bool) -> None:
    """A decision typed at the CLI (``resume --approver``) meets the policy of the checkpoint's approval.

    Without an approval record with a closed approver list, the local operator decides unrestricted.
    Raises ``ResumeRefusedError(UNAUTHORIZED_APPROVER)``.
    """
    require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
    for approval in approvals.approvals_for(checkpoint_id):
        if not approval.restricted:
            continue
        refusal = approval.refusal_for(approver, approved)
        if refusal is None and approved and approval.quorum > 1:
            refusal = f"this plan needs {approval.quorum} approvals: each approver decides from their own link"
        if refusal is not None:
            raise ResumeRefusedError(RefusalCode.UNAUTHORIZED_APPROVER, refusal)


def receipt_event(checkpoint: Checkpoint, receipt: Receipt, *, at: str) -> AuditEvent:
    """The audit event that keeps a receipt (for decisions typed at the CLI)."""
    return AuditEvent(
        event_type="decision_receipt",
        at=at,
        session_id=checkpoint.session_id,
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        detail={"receipt": receipt.model_dump(mode="json")},
    )


def pending_approval_ages(store: ShopStore, approvals: ApprovalStore, now: datetime) -> list[int]:
    """Seconds each approval that still waits for a person (pending, window open) has waited, oldest first.

    Step Functions has no metric for how long a callback task has been parked; this is what the operator's
    "oldest pending approval" alarm is fed from.
    """
    ages: list[int] = []
    for raw in store.list_checkpoints():
        try:
            checkpoint_id = Checkpoint.model_validate_json(raw).checkpoint_id
        except ValueError:
            continue  # an unreadable checkpoint is the resume gate's to report, not this gauge's
        for approval in approvals.approvals_for(checkpoint_id):
            if approval.status == "pending" and now < parse_utc(approval.expires_at):
                ages.append(max(0, int((now - parse_utc(approval.created_at)).total_seconds())))
    return sorted(ages, reverse=True)
