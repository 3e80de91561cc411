"""Decide: a POST from a link holder. Validate, then mutate: authorize, MAC a receipt, record the vote
(conditional write); once a reject or the quorum decides, wake the workflow with a pointer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ..domain.approvals import Vote
from ..domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, NotFoundError, TaskTokenClosedError
from ..domain.ports import ApprovalStore, MacKey, ShopStore, WorkflowCallback
from ..domain.receipts import make_receipt
from ..domain.records import Decision, audit_event, utc_iso
from .review import open_link

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
        audit_event(
            "approval_vote",
            now,
            session_id=view.checkpoint.session_id,
            checkpoint_id=recorded.checkpoint_id,
            proposal_hash=recorded.proposal_hash,
            approval_id=approval_id,
            approver=approver,
            approved=approve,
            receipt_mac=receipt.mac if receipt else "",
            status=recorded.status,
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
