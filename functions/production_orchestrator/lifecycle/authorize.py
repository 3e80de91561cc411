"""Authorize: the decision an approval holds, checked against its policy and receipts, as the resume gate
takes it; and the policy check for a decision typed at the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..domain.approvals import ApprovalRecord
from ..domain.errors import RefusalCode, ResumeRefusedError
from ..domain.ports import ApprovalStore, MacKey, ShopStore
from ..domain.receipts import Receipt, check_receipt
from ..domain.records import CHECKPOINT_ID_PATTERN, AuditEvent, Checkpoint, audit_event, require_id
from ..domain.verification import ResumeRequest
from .evidence import review


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
        _check_receipts(approval, review(store, checkpoint_id)[0], mac_key)
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


def _check_receipts(approval: ApprovalRecord, checkpoint: Checkpoint, mac_key: MacKey) -> None:
    """Every vote's receipt verifies and describes its vote; the last vote is the decision."""
    votes = approval.votes or ()
    if not votes or votes[-1].decision != approval.decision:
        raise ResumeRefusedError(
            RefusalCode.RECEIPT_INVALID, f"approval {approval.approval_id} holds no receipted vote"
        )
    for vote in votes:
        problem = check_receipt(vote.receipt, mac_key, checkpoint=checkpoint, decision=vote.decision)
        if problem is not None:
            raise ResumeRefusedError(RefusalCode.RECEIPT_INVALID, problem)


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


def receipt_event(checkpoint: Checkpoint, receipt: Receipt, *, at: datetime) -> AuditEvent:
    """The audit event that keeps a receipt (for decisions typed at the CLI)."""
    return audit_event(
        "decision_receipt",
        at,
        session_id=checkpoint.session_id,
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        receipt=receipt.model_dump(mode="json"),
    )
