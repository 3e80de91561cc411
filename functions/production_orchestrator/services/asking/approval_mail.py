"""Approval e-mail through the local outbox: queue the requests and reminders, then deliver each once.

    queue (with the approval change that asks for it: one transaction)   deliver (``outbox send``)
    ──────────────────────────────────────────────────────────────────   ─────────────────────────────────────────
    start: each e-mail approver's link marked sent to the outbox         claim the row (compare-and-set, lease)
    relink: the new link; the request for the old one becomes void       the one rule: approval still open, the
    escalation: each e-mail backup's link                                approver still asked and not voted, the
    reminder: <point>|<approver>, marked on the approval                 link still the row's -> else void
                                                                         rebuild the secret (links.py), render,
                                                                         hand to the transport, mark sent (audited)

Nothing here holds a secret past the message it renders: the rows name the link (approval, approver, nonce) and
the secret is derived again from the shop's key at the moment of sending.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ... import faults
from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.links import LinkMint
from ...domain.errors import DeliveryError, IntegrityError
from ...domain.messages.approval_mail import ApprovalMail, compose, render_approval_email, request_mail, why_void
from ...domain.ports import ApprovalMailbox, ApprovalStore, RawMailTransport, ShopStore
from ...domain.presentation import shop_zone
from ...domain.records import AuditEvent, audit_event
from ..evidence import current_approval, review
from .request_approval import approval_link

DEFAULT_MAIL_LEASE = timedelta(minutes=2)
MAX_MAIL_ATTEMPTS = 8


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


@dataclass
class MailReport:
    """What one delivery round did with the approval mail."""

    sent: list[ApprovalMail] = field(default_factory=list)
    pending: list[ApprovalMail] = field(default_factory=list)
    failed: list[ApprovalMail] = field(default_factory=list)
    void: list[ApprovalMail] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when nothing is left queued or failed."""
        return not self.pending and not self.failed

    def counts(self) -> dict[str, int]:
        """How many ended in each bucket."""
        return {f"approval_mail_{name}": len(getattr(self, name)) for name in ("sent", "pending", "failed", "void")}


def _event(kind: str, mail: ApprovalMail, record: ApprovalRecord | None, now: datetime, **detail: str) -> AuditEvent:
    return audit_event(
        kind,
        now,
        checkpoint_id=record.checkpoint_id if record else "",
        proposal_hash=record.proposal_hash if record else "",
        approval_id=mail.approval_id,
        approver=mail.approver,
        mail=mail.kind,
        **detail,
    )


def deliver_approval_mail(
    store: ShopStore,
    mailbox: ApprovalMailbox,
    approvals: ApprovalStore,
    transport: RawMailTransport,
    mint: LinkMint,
    *,
    link_base: Callable[[ApprovalRecord], str],
    clock: Callable[[], datetime],
    lease: timedelta = DEFAULT_MAIL_LEASE,
) -> MailReport:
    """Send every queued approval request and reminder once (claimed, checked, rebuilt, sent, marked)."""
    report = MailReport()
    zone = shop_zone(store.load_state())
    unreachable = ""
    for mail in mailbox.approval_mail():
        if mail.status in ("sent", "void"):
            continue
        if mail.status == "failed":
            report.failed.append(mail)
            continue
        if unreachable:
            report.pending.append(mail)
            continue
        bucket, record = _send_one(store, mailbox, approvals, transport, mint, mail, link_base, clock, lease, zone)
        if bucket == "unreachable":
            unreachable, bucket = record.last_error, "pending"
        getattr(report, bucket).append(record)
    return report


def _send_one(
    store: ShopStore,
    mailbox: ApprovalMailbox,
    approvals: ApprovalStore,
    transport: RawMailTransport,
    mint: LinkMint,
    mail: ApprovalMail,
    link_base: Callable[[ApprovalRecord], str],
    clock: Callable[[], datetime],
    lease: timedelta,
    zone: str,
) -> tuple[str, ApprovalMail]:
    now = clock()
    if not mail.claimable(now):
        return "pending", mail
    held = mail.claimed(secrets.token_hex(16), now, lease)
    if not mailbox.replace_approval_mail(mail, held):
        return "pending", mail  # another sender claimed it between our read and our write
    faults.point("after_approval_mail_claim")
    # Judged after the claim, the last moment before sending: a relink or a vote that came first voids it.
    record = current_approval(approvals, mail.approval_id)
    why = why_void(record, held, now)
    if why is not None:
        void = held.voided(why)
        mailbox.replace_approval_mail(held, void, _event("approval_mail_void", held, record, now, reason=why))
        return "void", void
    assert record is not None
    link = record.link_of(held.approver)
    assert link is not None
    secret = mint.reissue(link)
    if secret is None and held.kind == "request":
        why = "its link cannot be rebuilt with this data dir's key: issue a new one with approvals relink"
        failed = held.not_sent(why, permanent=True)
        mailbox.replace_approval_mail(held, failed, _event("approval_mail_failed", held, record, now, error=why))
        return "failed", failed
    try:
        checkpoint, proposal = review(store, record.checkpoint_id)
    except IntegrityError as exc:
        failed = held.not_sent(str(exc), permanent=True)
        mailbox.replace_approval_mail(held, failed)
        return "failed", failed
    url = approval_link(link_base(record), record.approval_id, secret) if secret else ""
    subject, body = compose(held, record, checkpoint, proposal, url, zone, now)
    try:
        data = render_approval_email(
            held, sender=transport.sender, sender_name=transport.sender_name, subject=subject, body=body
        )
        transport_id = transport.send_raw(
            held.approver, data, held.message_id.strip("<>").split("@")[0], held.message_id
        )
    except ValueError as exc:
        failed = held.not_sent(f"cannot be rendered: {exc}", permanent=True)
        mailbox.replace_approval_mail(held, failed)
        return "failed", failed
    except DeliveryError as exc:
        if exc.unreachable:
            released = held.not_sent(str(exc), permanent=False, counted=False)
            mailbox.replace_approval_mail(held, released)
            return "unreachable", released
        permanent = exc.permanent or held.attempts >= MAX_MAIL_ATTEMPTS
        released = held.not_sent(str(exc), permanent=permanent)
        mailbox.replace_approval_mail(held, released)
        return ("failed" if permanent else "pending"), released
    faults.point("after_approval_mail_send")
    done = held.sent(transport_id, clock())
    event = _event(
        "approval_mail_sent", held, record, clock(), transport=transport.name, transport_id=done.transport_id
    )
    mailbox.replace_approval_mail(held, done, event)
    return "sent", done
