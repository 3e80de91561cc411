"""Approval e-mail through the local outbox: the requests and reminders are queued as outbox messages (kinds
``request`` and ``reminder``) with the approval change that asks for them; the one outbox pipeline delivers them.

    queue (with the approval change that asks for it: one transaction)   deliver (``outbox send``: outbox/deliver,
    ──────────────────────────────────────────────────────────────────   the approval kinds' rule approval_kind.py)
    start: each e-mail approver's link marked sent to the outbox         claim the row (compare-and-set, lease)
    relink: the new link; the request for the old one becomes void       the one rule: approval still open, the
    escalation: each e-mail backup's link                                approver still asked and not voted, the
    reminder: <point>|<approver>, marked on the approval                 link still the row's -> else void
                                                                         rebuild the secret (links.py), render,
                                                                         hand to the transport, mark sent (audited)

Nothing here holds a secret: the rows name the link (approval, approver, nonce) and the secret is derived again
from the shop's key at the moment of sending.
"""

from __future__ import annotations

from datetime import datetime

from ...domain.approval.approvals import ApprovalRecord
from ...domain.messages.approval_mail import request_mail
from ...domain.ports import ApprovalStore, ShopStore


def queue_requests(store: ShopStore, approvals: ApprovalStore, approval_id: str, now: datetime) -> list[str]:
    """Queue a request for every e-mail approver whose link has not gone out, marking each as sent to the outbox,
    in one transaction (again after a crash: a queued request is never queued twice). The approvers queued."""
    record = approvals.get_approval(approval_id)
    if record is None:
        return []
    wanted = [m for a in record.policy.approvers if a not in record.notified and (m := request_mail(record, a, now))]

    def change(current: ApprovalRecord) -> ApprovalRecord:
        for mail in wanted:
            link = current.link_of(mail.approver)
            if current.status == "pending" and link is not None and link.nonce == mail.nonce:
                current = current.delivered(current.task_token, mail.approver, link.secret_hash, link.nonce)
        return current

    _, changed = store.change_approval(approval_id, change, lambda _: None, mail=wanted)
    return [m.approver for m in wanted] if changed else []
