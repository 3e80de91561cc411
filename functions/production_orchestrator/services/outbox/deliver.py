"""Deliver: hand the queued outbox messages to a transport and mark each one, a step apart from the apply.

    bound to the approved plan? --no--> refused (nothing written; ``audit verify`` names it too)
    queued, lease free --claim (compare-and-set: lease, attempt + 1)--> transport.send --mark sent (its id)-->
                                                                             \\--DeliveryError: failed for good, or
                                                                                queued again (transient), or
                                                                                queued, attempt not counted, and
                                                                                the round ends (unreachable)
    failed --requeue (a person: ``outbox retry``, requeue.py)--> queued, fresh budget of attempts

A server that is down (or a directory that cannot be written) never uses up a message's attempts: no server
saw it, so it stays queued however many rounds fail, and the round stops at the first such failure rather
than knocking on a closed door once per message. Only refusals a server gave count towards giving up.

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

from ... import faults
from ...domain.errors import DeliveryError, IntegrityError
from ...domain.messages.outbox import OutboxMessage, binding_problem
from ...domain.planning.proposal import ProposalContent, load_proposal
from ...domain.ports import MessageTransport, ShopStore
from ...domain.records import AuditEvent, audit_event

# Longer than one send may take (SMTP and SES time out well before it); a dead sender's message is retried
# once it has passed.
DEFAULT_SEND_LEASE = timedelta(minutes=2)
# Refusals a server gave one message for now (4xx) before it is marked failed and left to a person, who may
# queue it again (``outbox retry``). An unreachable transport does not count.
MAX_ATTEMPTS = 8


@dataclass
class DeliveryReport:
    """What one delivery round found and did."""

    transport: str
    sent: list[OutboxMessage] = field(default_factory=list)  # handed over and marked by this round
    already_sent: list[OutboxMessage] = field(default_factory=list)
    pending: list[OutboxMessage] = field(default_factory=list)  # still queued: transient error, or held
    failed: list[OutboxMessage] = field(default_factory=list)  # failed for good (this round or before)
    refused: list[tuple[OutboxMessage, str]] = field(default_factory=list)  # not what the plan drafted: never sent

    @property
    def complete(self) -> bool:
        """True when every message is sent."""
        return not self.pending and not self.failed and not self.refused

    def counts(self) -> dict[str, int]:
        """How many messages ended in each bucket."""
        return {
            "sent": len(self.sent),
            "already_sent": len(self.already_sent),
            "pending": len(self.pending),
            "failed": len(self.failed),
            "refused": len(self.refused),
        }


def outbox_event(event_type: str, message: OutboxMessage, now: datetime, **detail: str) -> AuditEvent:
    """The audit event of one step of ``message``'s delivery (sent, failed, requeued)."""
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


class ApprovedDrafts:
    """The approved plans a round reads, each loaded (and re-hashed) once."""

    def __init__(self, store: ShopStore) -> None:
        self._store = store
        self._loaded: dict[str, ProposalContent | None] = {}
        self._applied: dict[str, bool] = {}

    def problem(self, message: OutboxMessage) -> str | None:
        """Why ``message`` is not the approved plan's draft, or None when it is."""
        key = message.proposal_hash
        if key not in self._loaded:
            data = self._store.get_proposal(key)
            try:
                self._loaded[key] = None if data is None else load_proposal(data, key)
            except IntegrityError:
                self._loaded[key] = None
            self._applied[key] = self._store.application_count(key) > 0
        if not self._applied[key]:
            return f"message {message.key} names plan {key}, which never applied: it is not sent"
        return binding_problem(message, self._loaded[key])


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
        if exc.unreachable:
            released = held.not_reached(str(exc))
            store.replace_outbox_message(held, released)
            return "unreachable", released
        permanent = exc.permanent or held.attempts_since_retry >= MAX_ATTEMPTS
        released = held.not_sent(str(exc), permanent=permanent)
        event = outbox_event("message_failed", held, clock(), error=str(exc)[:300]) if permanent else None
        store.replace_outbox_message(held, released, event)
        return ("failed" if permanent else "pending"), released
    faults.point("after_outbox_send")
    done = held.sent(transport_id, clock())
    event = outbox_event("message_sent", held, clock(), transport=transport.name, transport_id=done.transport_id)
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
    """Send every queued message (of one plan, or all) through ``transport``; sent ones are never sent again.

    A message that is not the approved plan's draft (edited in storage) is refused and left as it is. Once
    the transport is found unreachable the round stops: the messages after it stay queued, untouched.
    """
    report = DeliveryReport(transport=transport.name)
    plans = ApprovedDrafts(store)
    unreachable = ""
    for message in store.outbox_messages(proposal_hash):
        problem = plans.problem(message) if message.status != "sent" else None
        if problem is not None:
            report.refused.append((message, problem))
        elif message.status == "sent":
            report.already_sent.append(message)
        elif message.status == "failed":
            report.failed.append(message)
        elif unreachable:
            report.pending.append(message.model_copy(update={"last_error": unreachable}))
        else:
            bucket, record = _send_one(store, transport, message, clock, lease)
            if bucket == "unreachable":
                unreachable, bucket = record.last_error, "pending"
            getattr(report, bucket).append(record)
    return report
