"""The plan kinds' rule (customer, operator, supplier): a message is what the approved plan drafted, or refused.

    before the claim: the plan applied, and the row is its draft at its index (re-hashed proposal)? --no--> refused
    render: the record alone (Date when queued, Message-ID from its key): the same bytes for every attempt
    audited: message_sent / message_failed / message_requeued, naming the message, its plan and its audience

A plan's message is never void: what asked for it (the apply) cannot be taken back.
"""

from __future__ import annotations

from datetime import datetime

from ...domain.errors import IntegrityError
from ...domain.messages.outbox import OutboxMessage, binding_problem, email_bytes
from ...domain.planning.proposal import ProposalContent, load_proposal
from ...domain.ports import MessageTransport, ShopStore
from ...domain.records import AuditEvent, audit_event

MESSAGE_SENT_EVENT = "message_sent"
MESSAGE_FAILED_EVENT = "message_failed"


def outbox_event(event_type: str, message: OutboxMessage, now: datetime, **detail: str) -> AuditEvent:
    """The audit event of one step of a plan message's delivery (sent, failed, requeued)."""
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


class PlanRule:
    """What the delivery asks of a plan's message (the per-kind hook of services/outbox/deliver.py)."""

    sent_event = MESSAGE_SENT_EVENT
    failed_event = MESSAGE_FAILED_EVENT
    void_event = "message_void"  # never written: a plan's message is never void
    claim_point = "after_outbox_claim"
    send_point = "after_outbox_send"

    def __init__(self, store: ShopStore) -> None:
        self._drafts = ApprovedDrafts(store)

    def waits(self) -> str | None:
        """Why this round cannot send plan messages (never: the record is all they need)."""
        return None

    def refusal(self, message: OutboxMessage) -> str | None:
        """Why ``message`` is not sent and left as it is (edited in storage), or None."""
        return self._drafts.problem(message)

    def void(self, held: OutboxMessage, now: datetime) -> str | None:
        """Never: an applied plan's messages are always wanted."""
        return None

    def render(self, held: OutboxMessage, transport: MessageTransport, now: datetime) -> bytes:
        """The message's bytes from the sender ``transport`` sends as (``DeliveryError`` for good when none could)."""
        return email_bytes(held, transport.sender, transport.sender_name)

    def event(self, event_type: str, message: OutboxMessage, now: datetime, **detail: str) -> AuditEvent:
        """The audit event ``event_type`` of ``message``."""
        return outbox_event(event_type, message, now, **detail)
