"""Expire: the workflow stopped waiting (timeout). Pending approvals become expired; nothing is ever approved."""

from __future__ import annotations

from datetime import datetime

from ..domain.errors import DecisionAlreadyClaimedError
from ..domain.ports import ApprovalStore, ShopStore
from ..domain.records import audit_event


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
            audit_event(
                "approval_expired",
                now,
                checkpoint_id=checkpoint_id,
                proposal_hash=approval.proposal_hash,
                approval_id=approval.approval_id,
            )
        )
        expired.append(approval.approval_id)
    return expired
