"""Request approval: the checkpoint's proposal (re-hashed) becomes an approval record holding the task token
and the policy, then each approver gets their own link.

    checkpoint + proposal -> approval record (task token, secret hashes, approvers, requester, separation of
    duties, quorum) -> one message per approver with the link ?a=<approval id>&s=<secret>

A link secret is 32 random bytes; only its SHA-256 is stored, and the raw task token never leaves the
approval record except in the ``SendTaskSuccess`` call.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from ..domain.approvals import ApprovalRecord, ApproverLink, hash_link_secret, required_approvals
from ..domain.errors import IntegrityError, ValidationError
from ..domain.ports import ApprovalMessage, ApprovalNotifier, ApprovalStore, ShopStore
from ..domain.presentation import fingerprint, render_review
from ..domain.records import utc_iso
from .evidence import review


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
                subject=f"Approve plan for order {order.id}? [{fingerprint(checkpoint.proposal_hash)}]",
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
