"""Relink: a new link for one approver of an open approval; their old link stops working at once.

    operator: relink --approval ID --approver EMAIL
      -> the approval still open, the approver one it asks (else a refusal, nothing written)
      -> a fresh secret; only its hash replaces the old one on the record (the old link: the neutral page)
      -> audit ``approval_relinked`` (approval, approver; no secret, no hash)
      -> the link to the approver, as the first one went (stdout locally, SNS e-mail in AWS)

The secret exists only in the message that carries the link. If that send fails, the old link is already
revoked: run relink again (each run revokes the one before).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from ..domain.approval.approvals import hash_link_secret
from ..domain.approval.policy import identity
from ..domain.errors import (
    ApprovalActionRefusedError,
    ApprovalExpiredError,
    DecisionAlreadyClaimedError,
    NotFoundError,
    ValidationError,
)
from ..domain.ports import ApprovalNotifier, ApprovalStore, ShopStore
from ..domain.records import audit_event
from .evidence import review
from .request_approval import approval_link, message_for
from .review import current_approval


@dataclass(frozen=True)
class Relinked:
    """What relink did (the link itself only goes to the notifier)."""

    approval_id: str
    approver: str
    checkpoint_id: str


def relink(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    *,
    approval_id: str,
    approver: str,
    link_base_url: str,
    now: datetime,
) -> Relinked:
    """Issue ``approver`` a new link to ``approval_id`` (or the approval that replaced it) and revoke the old."""
    approval = current_approval(approvals, approval_id)
    if approval is None:
        raise ApprovalActionRefusedError("NOT_FOUND", f"approval {approval_id} does not exist")
    person = identity(approver)
    if person not in approval.policy.approvers:
        asked = ", ".join(approval.policy.approvers)
        raise ApprovalActionRefusedError(
            "NOT_AN_APPROVER", f"{approver} is not asked on approval {approval.approval_id} (asked: {asked})"
        )
    checkpoint, proposal = review(store, approval.checkpoint_id)
    secret = secrets.token_urlsafe(32)
    try:  # the domain refuses a closed or expired approval here, before anything is written
        record = approvals.record_relink(approval.approval_id, person, hash_link_secret(secret), now=now)
    except ApprovalExpiredError as exc:
        raise ApprovalActionRefusedError("EXPIRED", f"{exc}: a new run is needed, not a new link") from None
    except DecisionAlreadyClaimedError as exc:
        raise ApprovalActionRefusedError("APPROVAL_CLOSED", f"{exc}: its links only show what happened") from None
    except (NotFoundError, ValidationError) as exc:
        raise ApprovalActionRefusedError("NOT_FOUND", str(exc)) from None
    store.append_audit(
        audit_event(
            "approval_relinked",
            now,
            session_id=checkpoint.session_id,
            checkpoint_id=checkpoint.checkpoint_id,
            proposal_hash=checkpoint.proposal_hash,
            approval_id=record.approval_id,
            approver=person,
        )
    )
    link = approval_link(link_base_url, record.approval_id, secret)
    notifier.notify(message_for(checkpoint, proposal, record.approval_id, person, link))
    return Relinked(approval_id=record.approval_id, approver=person, checkpoint_id=checkpoint.checkpoint_id)
