"""Deliver: hand the queued outbox messages to a transport and mark each one, a step apart from the apply.

    queued, lease free --claim (compare-and-set: lease, attempt + 1)--> transport.send --mark sent (its id)-->
                                                                             \\--DeliveryError: failed for good, or
                                                                                queued again (transient)

The claim makes racing senders take turns: of many rounds only the one that moved the record sends it.
A sender that dies after the claim leaves the message held until its lease runs out; the next round
takes it then. A sender that dies after the transport took the message but before the mark is the one
at-least-once window: the retry sends the same bytes (same Message-ID) again.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .. import faults
from ..domain.errors import DeliveryError
from ..domain.messages.outbox import OutboxMessage
from ..domain.ports import MessageTransport, ShopStore
from ..domain.records import AuditEvent, audit_event

# Longer than one send may take (SMTP and SES time out well before it); a dead sender's message is retried
# once it has passed.
DEFAULT_SEND_LEASE = timedelta(minutes=2)
# Transient failures of one message before it is marked failed and left to a person.
MAX_ATTEMPTS = 8


@dataclass
class DeliveryReport:
    """What one delivery round found and did."""

    transport: str
    sent: list[OutboxMessage] = field(default_factory=list)  # handed over and marked by this round
    already_sent: list[OutboxMessage] = field(default_factory=list)
    pending: list[OutboxMessage] = field(default_factory=list)  # still queued: transient error, or held
    failed: list[OutboxMessage] = field(default_factory=list)  # failed for good (this round or before)

    @property
    def complete(self) -> bool:
        """True when every message is sent."""
        return not self.pending and not self.failed

    def counts(self) -> dict[str, int]:
        """How many messages ended in each bucket."""
        return {
            "sent": len(self.sent),
            "already_sent": len(self.already_sent),
            "pending": len(self.pending),
            "failed": len(self.failed),
        }


def _event(event_type: str, message: OutboxMessage, now: datetime, **detail: str) -> AuditEvent:
    return audit_event(
        event_type,
        now,
        checkpoint_id=message.checkpoint_id,
        proposal_hash=message.proposal_hash,
        message=message.key,
        audience=message.kind,
        to=message.to,
        **detail,
    )


def _send_one(
    store: ShopStore,
    transport: MessageTransport,
    message: OutboxMessage,
    clock: Callable[[], datetime],
    lease: timedelta,
) -> tuple[str, OutboxMessage]:
    """Claim, send and mark one queued message; which bucket it ends in and its record."""
    now = clock()
    if not message.claimable(now):
        return "pending", message  # another sender holds it until its lease runs out
    held = message.claimed(secrets.token_hex(16), now, lease)
    if not store.replace_outbox_message(message, held):
        return "pending", message  # another sender claimed it between our read and our write
    faults.point("after_outbox_claim")
    try:
        transport_id = transport.send(held)
    except DeliveryError as exc:
        permanent = exc.permanent or held.attempts >= MAX_ATTEMPTS
        released = held.not_sent(str(exc), permanent=permanent)
        event = _event("message_failed", held, clock(), error=str(exc)[:300]) if permanent else None
        store.replace_outbox_message(held, released, event)
        return ("failed" if permanent else "pending"), released
    faults.point("after_outbox_send")
    done = held.sent(transport_id, clock())
    event = _event("message_sent", held, clock(), transport=transport.name, transport_id=done.transport_id)
    # False only when our lease ran out mid-send and another round took the message over: it sent the same
    # bytes (same Message-ID) and records its own mark; this one was delivered all the same.
    store.replace_outbox_message(held, done, event)
    return "sent", done


def deliver(
    store: ShopStore,
    transport: MessageTransport,
    *,
    clock: Callable[[], datetime],
    proposal_hash: str | None = None,
    lease: timedelta = DEFAULT_SEND_LEASE,
) -> DeliveryReport:
    """Send every queued message (of one plan, or all) through ``transport``; sent ones are never sent again."""
    report = DeliveryReport(transport=transport.name)
    for message in store.outbox_messages(proposal_hash):
        if message.status == "sent":
            report.already_sent.append(message)
        elif message.status == "failed":
            report.failed.append(message)
        else:
            bucket, record = _send_one(store, transport, message, clock, lease)
            getattr(report, bucket).append(record)
    return report
