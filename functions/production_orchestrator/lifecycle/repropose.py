"""Propose again: a stale plan is replaced by a new run's plan under the same approval policy and links."""

from __future__ import annotations

import contextlib
import secrets
from datetime import datetime

from ..domain.approvals import ApprovalRecord
from ..domain.errors import DecisionAlreadyClaimedError
from ..domain.ports import ApprovalStore, ShopStore
from ..domain.records import Checkpoint, audit_event, utc_iso


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
        audit_event(
            "approval_superseded",
            now,
            checkpoint_id=old.checkpoint_id,
            proposal_hash=old.proposal_hash,
            approval_id=old.approval_id,
            new_approval_id=record.approval_id,
            new_checkpoint_id=new_checkpoint.checkpoint_id,
        )
    )
    return record
