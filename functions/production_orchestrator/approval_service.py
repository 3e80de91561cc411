"""Approval use cases over the ports, importing nothing of strands (the decision endpoint's cold start).

    request_approval: checkpoint + proposal (re-hashed) -> approval record (task token, secret hashes)
                      -> one message per approver with the link ?a=<approval id>&s=<secret>
    open_link:        GET/HEAD -> the plan to confirm, or None (the neutral page); reads only
    decide:           POST -> conditional pending->decided (first wins) -> SendTaskSuccess with a pointer
    expire_approvals: workflow timed out -> pending->expired; never approves
    decision_for_resume: the recorded decision, as the resume gate's request

A link secret is 32 random bytes; only its SHA-256 is stored, and the raw task token never leaves the
approval record except in the ``SendTaskSuccess`` call.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from urllib.parse import urlencode

from .domain.approvals import ApprovalRecord, ApproverLink, hash_link_secret
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
from .domain.ports import ApprovalMessage, ApprovalNotifier, ApprovalStore, ShopStore, WorkflowCallback
from .domain.records import CHECKPOINT_ID_PATTERN, AuditEvent, Checkpoint, Decision, parse_utc, require_id, utc_iso
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
) -> ApprovalRequested:
    """Store the task token behind a new approval and send each approver their own link."""
    checkpoint, proposal = review(store, checkpoint_id)
    if proposal_hash != checkpoint.proposal_hash:
        raise IntegrityError(f"the workflow names another proposal than checkpoint {checkpoint_id}")
    if not approvers:
        raise ValidationError("no approvers are configured")
    links = {approver: secrets.token_urlsafe(32) for approver in dict.fromkeys(approvers)}
    record = ApprovalRecord(
        approval_id=f"appr-{secrets.token_hex(16)}",
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        created_at=utc_iso(now),
        expires_at=checkpoint.expires_at,
        task_token=task_token,
        approvers=tuple(ApproverLink(approver=a, secret_hash=hash_link_secret(s)) for a, s in links.items()),
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
            )
        )
    return ApprovalRequested(
        approval_id=record.approval_id,
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        expires_at=record.expires_at,
        notified=len(links),
    )


@dataclass(frozen=True)
class LinkView:
    """An open link: who holds it and the verified plan it is about."""

    approval: ApprovalRecord
    approver: str
    checkpoint: Checkpoint
    proposal: ProposalContent


def open_link(
    store: ShopStore, approvals: ApprovalStore, approval_id: str, secret: str, now: datetime
) -> LinkView | None:
    """The plan behind a valid, pending, unexpired link; None for any other link. Reads only."""
    approval = approvals.get_approval(approval_id)
    if approval is None:
        return None
    approver = approval.approver_for(secret)
    if approver is None or approval.status != "pending" or now >= parse_utc(approval.expires_at):
        return None
    try:
        checkpoint, proposal = review(store, approval.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return None
    if checkpoint.proposal_hash != approval.proposal_hash:
        return None
    return LinkView(approval=approval, approver=approver, checkpoint=checkpoint, proposal=proposal)


DecideStatus = Literal["recorded", "closed", "hash_mismatch", "invalid"]


@dataclass(frozen=True)
class DecideResult:
    """How a POST ended. ``closed`` covers unknown, expired, used and undeliverable alike."""

    status: DecideStatus
    approval_id: str = ""
    approver: str = ""
    decision: Decision | None = None
    detail: str = ""


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
) -> DecideResult:
    """Record the decision exactly once, then wake the workflow with a pointer to it.

    Validate, then mutate: nothing is written unless the link is valid, pending and unexpired and the
    human reviewed exactly the pending proposal.
    """
    view = open_link(store, approvals, approval_id, secret, now)
    if view is None:
        return DecideResult("closed")
    if reviewed_hash != view.approval.proposal_hash:
        return DecideResult("hash_mismatch", approval_id, view.approver, detail="reviewed hash differs")
    try:
        decision = Decision(
            approved=approve,
            reviewed_hash=reviewed_hash,
            approver=view.approver,
            reason=reason,
            decided_at=utc_iso(now),
        )
    except ValueError:
        return DecideResult("invalid", approval_id, view.approver, detail="the reason is too long")
    try:
        recorded = approvals.record_approval_decision(approval_id, decision, now=now)
    except (DecisionAlreadyClaimedError, ApprovalExpiredError, NotFoundError):
        return DecideResult("closed", approval_id, view.approver)
    try:
        callback.send_success(
            recorded.task_token, {"checkpoint_id": recorded.checkpoint_id, "approval_id": recorded.approval_id}
        )
    except TaskTokenClosedError as exc:
        # The workflow gave up waiting (timeout) before this arrived: the decision can never be acted on,
        # so the record says so instead of claiming a decision nobody will resume.
        approvals.expire_approval(approval_id, now=now, from_status="decided")
        return DecideResult("closed", approval_id, view.approver, detail=str(exc))
    return DecideResult("recorded", approval_id, view.approver, decision=decision)


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
) -> RecordedDecision:
    """The decision recorded on ``approval_id``; refuse unless it is a decided approval of ``checkpoint_id``."""
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
