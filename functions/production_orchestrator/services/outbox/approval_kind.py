"""The approval kinds' rule (request, reminder): the link rebuilt from the key at send, void once not wanted.

    after the claim (the last moment before sending): the approval still open, the approver still asked and not
        voted, a request's link still the row's? --no--> void (approval_mail_void, with why)
    render: the link's secret derived again from the shop's key and checked against the stored hash (a request
        whose link cannot be rebuilt fails for good: ``approvals relink``), the plan's summary, the deadline
    audited: approval_mail_sent / approval_mail_failed / approval_mail_void, naming the message and approver

Nothing here holds a secret past the message it renders: the rows name the link (approval, approver, nonce).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ...domain.approval.approvals import ApprovalRecord
from ...domain.errors import DeliveryError, IntegrityError
from ...domain.messages.approval_mail import compose, render_approval_email, why_void
from ...domain.messages.outbox import OutboxMessage
from ...domain.ports import MessageTransport
from ...domain.presentation import shop_zone
from ...domain.records import AuditEvent, audit_event
from ..asking.request_approval import approval_link
from ..evidence import current_approval, review
from ..runtime import Runtime

APPROVAL_MAIL_SENT_EVENT = "approval_mail_sent"
APPROVAL_MAIL_FAILED_EVENT = "approval_mail_failed"
APPROVAL_MAIL_VOID_EVENT = "approval_mail_void"


class ApprovalRule:
    """What the delivery asks of an approval request or reminder (the per-kind hook of deliver.py)."""

    sent_event = APPROVAL_MAIL_SENT_EVENT
    failed_event = APPROVAL_MAIL_FAILED_EVENT
    void_event = APPROVAL_MAIL_VOID_EVENT
    claim_point = "after_approval_mail_claim"
    send_point = "after_approval_mail_send"

    def __init__(self, rt: Runtime, link_base: Callable[[ApprovalRecord], str] | None) -> None:
        self._rt = rt
        self._link_base = link_base
        self._records: dict[str, ApprovalRecord | None] = {}
        self._zone: str | None = None

    def waits(self) -> str | None:
        """Why this round cannot send approval mail (left queued, untouched), or None."""
        if self._rt.approvals is None or self._rt.mint is None or self._link_base is None:
            return "approval mail is sent by a round of all messages with the shop's approvals and link key"
        return None

    def refusal(self, message: OutboxMessage) -> str | None:
        """Never before the claim: what a row names is judged after it (:meth:`void`)."""
        return None

    def _record(self, approval_id: str) -> ApprovalRecord | None:
        if approval_id not in self._records and self._rt.approvals is not None:
            self._records[approval_id] = current_approval(self._rt.approvals, approval_id)
        return self._records.get(approval_id)

    def void(self, held: OutboxMessage, now: datetime) -> str | None:
        """The one rule every send of approval mail asks after its claim: why it is no longer wanted, or None."""
        self._records.pop(held.approval_id, None)  # read again: a relink or a vote that came first voids it
        return why_void(self._record(held.approval_id), held, now)

    def render(self, held: OutboxMessage, transport: MessageTransport, now: datetime) -> bytes:
        """The request or reminder with its link rebuilt; ``DeliveryError`` for good when it cannot be."""
        record = self._record(held.approval_id)
        link = record.link_of(held.approver) if record is not None else None
        if record is None or link is None or self._rt.mint is None or self._link_base is None:
            raise DeliveryError(f"approval {held.approval_id} cannot be read for {held.key}", permanent=True)
        secret = self._rt.mint.reissue(link)
        if secret is None and held.kind == "request":
            raise DeliveryError(
                "its link cannot be rebuilt with this data dir's key: issue a new one with approvals relink",
                permanent=True,
            )
        try:
            checkpoint, proposal = review(self._rt.store, record.checkpoint_id)
        except IntegrityError as exc:
            raise DeliveryError(str(exc), permanent=True) from None
        if self._zone is None:
            self._zone = shop_zone(self._rt.store.load_state())
        url = approval_link(self._link_base(record), record.approval_id, secret) if secret else ""
        subject, body = compose(held, record, checkpoint, proposal, url, self._zone, now)
        try:
            return render_approval_email(
                held, sender=transport.sender, sender_name=transport.sender_name, subject=subject, body=body
            )
        except ValueError as exc:
            raise DeliveryError(f"cannot be rendered: {exc}", permanent=True) from None

    def event(self, event_type: str, message: OutboxMessage, now: datetime, **detail: str) -> AuditEvent:
        """The audit event ``event_type`` of ``message``, with the approval's run and plan."""
        record = self._record(message.approval_id)
        return audit_event(
            event_type,
            now,
            checkpoint_id=record.checkpoint_id if record else "",
            proposal_hash=record.proposal_hash if record else "",
            approval_id=message.approval_id,
            approver=message.approver,
            mail=message.kind,
            message=message.key,
            **detail,
        )
