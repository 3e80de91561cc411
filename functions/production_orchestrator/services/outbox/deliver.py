"""Deliver: hand the queued outbox messages, of every kind, to a transport and mark each one, a step apart from
the change that queued them.

    the row's status is what the audit trail says? --no--> refused (a sent one edited back to queued: never sent)
    its kind's refusal (a plan's: still the approved draft?) --no--> refused (nothing written; ``audit verify``
                                                                     names it too)
    queued, lease free --claim (compare-and-set: lease, attempt + 1)--> its kind still wants it? --no--> void
        --render (its kind: the record, or the link rebuilt)--> transport.send --mark sent (its id)-->
                                                        \\--DeliveryError: failed for good, or queued again
                                                           (transient), or queued, attempt not counted, and
                                                           the round ends (unreachable)
    failed --requeue (a person: ``outbox retry``, requeue.py)--> queued, fresh budget of attempts

One pipeline for every kind; what differs is the kind's rule (plan_kind.py, approval_kind.py): what refuses a
row before its claim, what voids it after, how it renders, which audit events it writes.

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
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from ... import faults
from ...domain.approval.approvals import ApprovalRecord
from ...domain.errors import DeliveryError
from ...domain.messages.outbox import OutboxMessage
from ...domain.messages.outbox_trail import OutboxTrail
from ...domain.ports import MessageTransport, ShopStore
from ...domain.records import AuditEvent
from ..runtime import Runtime
from .approval_kind import ApprovalRule
from .plan_kind import PlanRule

# Longer than one send may take (SMTP and SES time out well before it); a dead sender's message is retried
# once it has passed.
DEFAULT_SEND_LEASE = timedelta(minutes=2)
# Refusals a server gave one message for now (4xx) before it is marked failed and left to a person, who may
# queue it again (``outbox retry``). An unreachable transport does not count. The same for every kind.
MAX_ATTEMPTS = 8
BUCKETS = ("sent", "already_sent", "pending", "failed", "refused", "void")


class KindRule(Protocol):
    """What differs between kinds of message; the pipeline asks nothing else of a kind."""

    sent_event: str
    failed_event: str
    void_event: str
    claim_point: str
    send_point: str

    def waits(self) -> str | None:
        """Why this round cannot send this kind at all (its messages are left queued, untouched), or None."""
        ...

    def refusal(self, message: OutboxMessage) -> str | None:
        """Before the claim: why ``message`` is never sent and left as it is, or None."""
        ...

    def void(self, held: OutboxMessage, now: datetime) -> str | None:
        """After the claim: why ``held`` is no longer wanted (it becomes void), or None."""
        ...

    def render(self, held: OutboxMessage, transport: MessageTransport, now: datetime) -> bytes:
        """Its bytes for ``transport``'s sender; ``DeliveryError`` (permanent) when it cannot be rendered."""
        ...

    def event(self, event_type: str, message: OutboxMessage, now: datetime, **detail: str) -> AuditEvent:
        """The audit event ``event_type`` of ``message``."""
        ...


@dataclass(frozen=True)
class Deliver:
    """Send what is queued: one plan's messages (``proposal_hash``), or every message of every kind."""

    proposal_hash: str | None = None
    lease: timedelta = DEFAULT_SEND_LEASE
    # The base URL of an approval's links (``start`` chose it); without it approval mail waits.
    link_base: Callable[[ApprovalRecord], str] | None = None


class KindRules:
    """The rule of each kind for one round (each reads what it needs once)."""

    def __init__(self, rt: Runtime, link_base: Callable[[ApprovalRecord], str] | None) -> None:
        self._plan = PlanRule(rt.store)
        self._approval = ApprovalRule(rt, link_base)

    def of(self, message: OutboxMessage) -> KindRule:
        """The rule of ``message``'s kind."""
        return self._plan if message.is_plan else self._approval


@dataclass
class DeliveryReport:
    """What one delivery round found and did, for every kind."""

    transport: str
    sent: list[OutboxMessage] = field(default_factory=list)  # handed over and marked by this round
    already_sent: list[OutboxMessage] = field(default_factory=list)
    pending: list[OutboxMessage] = field(default_factory=list)  # still queued: transient error, or held
    failed: list[OutboxMessage] = field(default_factory=list)  # failed for good (this round or before)
    refused: list[tuple[OutboxMessage, str]] = field(default_factory=list)  # edited in storage: never sent
    void: list[OutboxMessage] = field(default_factory=list)  # no longer wanted, found by this round

    @property
    def complete(self) -> bool:
        """True when nothing is left queued, failed or refused."""
        return not self.pending and not self.failed and not self.refused

    def counts(self, kinds: Collection[str] | None = None) -> dict[str, int]:
        """How many messages (of ``kinds``, or all) ended in each bucket."""

        def mine(message: OutboxMessage) -> bool:
            return kinds is None or message.kind in kinds

        found = {name: [m for m in getattr(self, name) if mine(m)] for name in BUCKETS if name != "refused"}
        found["refused"] = [m for m, _ in self.refused if mine(m)]
        return {name: len(found[name]) for name in BUCKETS}


def read_outbox(store: ShopStore, proposal_hash: str | None = None) -> tuple[list[OutboxMessage], dict[str, str]]:
    """The messages, and why each whose status the audit trail contradicts is not to be believed (by key).

    The trail is read before the rows and, when a row disagrees, again after them: a step committed between
    the two reads is the message's own, never an edit (messages/outbox_trail.py)."""
    before = OutboxTrail.of(store.audit_events())
    messages = store.outbox_messages(proposal_hash)
    suspects = [m for m in messages if before.problem(m) is not None]
    if not suspects:
        return messages, {}
    after = OutboxTrail.of(store.audit_events())
    problems = {m.key: p for m in suspects if (p := after.problem(m, since=before.length)) is not None}
    return messages, problems


def _send_one(
    rt: Runtime, transport: MessageTransport, rule: KindRule, message: OutboxMessage, lease: timedelta
) -> tuple[str, OutboxMessage]:
    """Claim, judge, render, send and mark one queued message; which bucket it ends in and its record."""
    store, now = rt.store, rt.clock()
    if not message.claimable(now):
        return "pending", message  # another sender holds it until its lease runs out
    held = message.claimed(secrets.token_hex(16), now, lease)
    if not store.replace_outbox_message(message, held):
        return "pending", message  # another sender claimed it between our read and our write
    faults.point(rule.claim_point)
    why = rule.void(held, now)
    if why is not None:
        void = held.voided(why)
        store.replace_outbox_message(held, void, rule.event(rule.void_event, held, now, reason=why))
        return "void", void
    try:
        transport_id = transport.send(held, rule.render(held, transport, now))
    except DeliveryError as exc:
        if exc.unreachable:
            released = held.not_reached(str(exc))
            store.replace_outbox_message(held, released)
            return "unreachable", released
        permanent = exc.permanent or held.attempts_since_retry >= MAX_ATTEMPTS
        released = held.not_sent(str(exc), permanent=permanent)
        event = rule.event(rule.failed_event, held, rt.clock(), error=str(exc)[:300]) if permanent else None
        store.replace_outbox_message(held, released, event)
        return ("failed" if permanent else "pending"), released
    faults.point(rule.send_point)
    done = held.sent(transport_id, rt.clock())
    event = rule.event(rule.sent_event, held, rt.clock(), transport=transport.name, transport_id=done.transport_id)
    # False only when our lease ran out mid-send and another round took the message over: it sent the same
    # bytes (same Message-ID) and records its own mark; this one was delivered all the same.
    store.replace_outbox_message(held, done, event)
    return "sent", done


def _found(report: DeliveryReport, message: OutboxMessage) -> None:
    """A message an earlier round settled: a plan's sent one is ``already_sent``, a failed one ``failed``."""
    if message.status == "failed":
        report.failed.append(message)
    elif message.status == "sent" and message.is_plan:
        report.already_sent.append(message)


def deliver(rt: Runtime, command: Deliver) -> DeliveryReport:
    """Send every queued message (of one plan, or of every kind) through ``rt.transport``; sent ones never again.

    A message that is not what was approved (edited in storage), or whose status the audit trail contradicts,
    is refused and left as it is. Once the transport is found unreachable the round stops: the messages after
    it stay queued, untouched. A void or sent message from an earlier round is left out of the report but for
    ``already_sent`` (a plan's messages).
    """
    if rt.transport is None:
        raise ValueError("deliver needs the runtime's transport")
    transport = rt.transport
    report = DeliveryReport(transport=transport.name)
    rules = KindRules(rt, command.link_base)
    messages, problems = read_outbox(rt.store, command.proposal_hash)
    unreachable = ""
    for message in messages:
        rule = rules.of(message)
        problem = problems.get(message.key)
        if problem is None and message.status not in ("sent", "void"):
            problem = rule.refusal(message)
        if problem is not None:
            report.refused.append((message, problem))
        elif message.status != "queued":
            _found(report, message)
        elif unreachable or (waits := rule.waits()) is not None:
            report.pending.append(message.model_copy(update={"last_error": unreachable or waits}))
        else:
            bucket, record = _send_one(rt, transport, rule, message, command.lease)
            if bucket == "unreachable":
                unreachable, bucket = record.last_error, "pending"
            getattr(report, bucket).append(record)
    return report
