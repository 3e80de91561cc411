"""The outbox: the approved plan's drafted messages, queued by the apply and delivered by a separate step.

    apply (one atomic write with the shop change) -> queued
    queued --claim (lease, attempt + 1)--> being sent --transport accepted, marked--> sent (transport id)
                                                     \\--transport refused it for good--> failed
                                                     \\--transient error, or the sender died--> queued
                                                        (the lease runs out; the next delivery retries)
                                                     \\--transport unreachable--> queued, attempt not counted
    failed --``outbox retry`` (audited)--> queued, with a fresh budget of attempts

Each message is bound to the approved plan: its kind, recipient, subject and body are the proposal's draft at
its index (the proposal is content-addressed and re-hashed on read), and ``plan_applied`` records the digest
of the messages it queued in the MACed audit chain. A record edited in storage is refused at send and named
by ``audit verify``.

A message is addressed by the proposal hash and its index among the drafts, so the apply can only ever
create it once. Its RFC 5322 ``Message-ID`` is derived from the same pair: a retry after a crash between
"the transport accepted it" and "marked sent" carries the same id, so the receiving side can drop the
second copy. That window is the one place delivery is at-least-once (README: Messages out).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..canonical import content_hash
from ..errors import DeliveryError
from ..planning.proposal import ProposalContent
from ..records import CheckpointId, ProposalHash, Timestamp, parse_utc, require_id, utc_iso
from ..shop.model import EMAIL_PATTERN

OUTBOX_SCHEMA_VERSION: Literal[1] = 1
OutboxKind = Literal["customer", "operator", "supplier"]
OutboxStatus = Literal["queued", "sent", "failed"]
MAX_MESSAGES_PER_PLAN = 20
# Message-ID right-hand side: fixed, so the id depends on nothing but the proposal hash and the index.
MESSAGE_ID_DOMAIN = "outbox.production-orchestrator"
OUTBOX_HEADER = "X-Production-Orchestrator-Outbox"
_CLAIM_TOKEN = re.compile(r"[0-9a-f]{32}")
ClaimToken = Annotated[str, AfterValidator(lambda v: v if v == "" else require_id(v, _CLAIM_TOKEN, "claim token"))]


class OutboxMessage(BaseModel):
    """One drafted message of an applied plan and how its delivery stands."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = OUTBOX_SCHEMA_VERSION
    proposal_hash: ProposalHash
    index: int = Field(ge=0, lt=MAX_MESSAGES_PER_PLAN)
    checkpoint_id: CheckpointId
    kind: OutboxKind
    to: str = Field(min_length=3, max_length=254)
    subject: str = Field(min_length=1, max_length=998)
    body: str = Field(max_length=100_000)
    queued_at: Timestamp
    status: OutboxStatus = "queued"
    attempts: int = Field(default=0, ge=0)
    # ``attempts`` when a person last queued it again (``outbox retry``): the budget counts from there.
    attempts_at_retry: int = Field(default=0, ge=0)
    claim_token: ClaimToken = ""
    lease_until: str = ""
    transport_id: str = Field(default="", max_length=500)
    sent_at: str = ""
    last_error: str = Field(default="", max_length=500)

    @model_serializer(mode="wrap")
    def _without_unused_retry_mark(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A message never retried serializes exactly as before the field existed: DynamoDB's compare-and-set
        # compares the stored JSON text, so a record queued by an older version can still be claimed.
        data: dict[str, Any] = handler(self)
        if data.get("attempts_at_retry") == 0:
            del data["attempts_at_retry"]
        return data

    @property
    def key(self) -> str:
        """``<proposal hash>#<index>``: the message's address in every store."""
        return outbox_key(self.proposal_hash, self.index)

    @property
    def message_id(self) -> str:
        """The deterministic RFC 5322 Message-ID (angle brackets included)."""
        return message_id(self.proposal_hash, self.index)

    def claimable(self, now: datetime) -> bool:
        """True when a delivery may take it: still queued, and no live lease of another sender on it."""
        return self.status == "queued" and (not self.lease_until or now >= parse_utc(self.lease_until))

    def claimed(self, token: str, now: datetime, lease: timedelta) -> OutboxMessage:
        """This message held by ``token`` until ``now + lease``, one more attempt counted."""
        return self.model_copy(
            update={"claim_token": token, "lease_until": utc_iso(now + lease), "attempts": self.attempts + 1}
        )

    def sent(self, transport_id: str, now: datetime) -> OutboxMessage:
        """Marked sent with the transport's id for it."""
        return self.model_copy(
            update={
                "status": "sent",
                "transport_id": transport_id[:500],
                "sent_at": utc_iso(now),
                "claim_token": "",
                "lease_until": "",
                "last_error": "",
            }
        )

    @property
    def attempts_since_retry(self) -> int:
        """Attempts a server saw since the message was (re)queued: what the give-up budget counts."""
        return self.attempts - self.attempts_at_retry

    def not_reached(self, error: str) -> OutboxMessage:
        """Released after the transport could not be reached: queued, and the attempt not counted."""
        return self.not_sent(error, permanent=False).model_copy(update={"attempts": max(self.attempts - 1, 0)})

    def requeued(self) -> OutboxMessage:
        """A failed message queued again by a person, with a fresh budget of attempts."""
        if self.status != "failed":
            raise ValueError(f"message {self.key} is {self.status}, not failed: only a failed message is retried")
        return self.model_copy(
            update={"status": "queued", "attempts_at_retry": self.attempts, "claim_token": "", "lease_until": ""}
        )

    def content(self) -> dict[str, object]:
        """What the human approved of this message: its place in the plan, kind, recipient, subject and body."""
        return {"index": self.index, "kind": self.kind, "to": self.to, "subject": self.subject, "body": self.body}

    def not_sent(self, error: str, *, permanent: bool) -> OutboxMessage:
        """Released after a failed attempt: ``failed`` for good, else queued again for the next delivery."""
        return self.model_copy(
            update={
                "status": "failed" if permanent else "queued",
                "claim_token": "",
                "lease_until": "",
                "last_error": error[:500],
            }
        )


def outbox_key(proposal_hash: str, index: int) -> str:
    """The address of message ``index`` of the plan ``proposal_hash``."""
    return f"{proposal_hash}#{index:02d}"


def message_id(proposal_hash: str, index: int) -> str:
    """``<hash.index@outbox.production-orchestrator>``: the same for every attempt at one message."""
    return f"<{proposal_hash}.{index}@{MESSAGE_ID_DOMAIN}>"


def queue_messages(
    proposal: ProposalContent, proposal_hash: str, checkpoint_id: str, now: datetime
) -> tuple[OutboxMessage, ...]:
    """The outbox entries an apply of ``proposal`` queues: every drafted message, in draft order."""
    drafts = proposal.communication_drafts
    if len(drafts) > MAX_MESSAGES_PER_PLAN:
        raise ValueError(f"a plan may draft at most {MAX_MESSAGES_PER_PLAN} messages, this one drafts {len(drafts)}")
    return tuple(
        OutboxMessage(
            proposal_hash=proposal_hash,
            index=index,
            checkpoint_id=checkpoint_id,
            kind=draft.audience,
            to=draft.to,
            subject=draft.subject,
            body=draft.body,
            queued_at=utc_iso(now),
        )
        for index, draft in enumerate(drafts)
    )


def messages_digest(messages: Sequence[OutboxMessage]) -> str:
    """The content hash of a plan's queued messages (``plan_applied`` records it in the audit chain)."""
    return content_hash([m.content() for m in sorted(messages, key=lambda m: m.index)])


def binding_problem(message: OutboxMessage, proposal: ProposalContent | None) -> str | None:
    """Why ``message`` is not what the approved plan drafted (None when it is); ``proposal`` re-hashed already."""
    if proposal is None:
        return f"message {message.key} names proposal {message.proposal_hash}, which is not stored intact"
    drafts = proposal.communication_drafts
    if message.index >= len(drafts):
        return f"message {message.key}: the approved plan drafted only {len(drafts)} message(s)"
    draft = drafts[message.index]
    approved = {"kind": draft.audience, "to": draft.to, "subject": draft.subject, "body": draft.body}
    changed = [name for name, value in approved.items() if getattr(message, name) != value]
    if changed:
        return (
            f"message {message.key} differs from the approved plan's draft in its {', '.join(changed)} "
            "(changed in storage): it is not sent"
        )
    return None


_HEADER_UNSAFE = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


def _header_value(name: str, value: str) -> str:
    """``value`` if it is safe as one header line; the last check before any transport sees it."""
    if name in ("From", "To"):
        if not EMAIL_PATTERN.fullmatch(value):
            raise ValueError(f"{name} {value!r} is not a single plain e-mail address")
    elif _HEADER_UNSAFE.search(value):
        raise ValueError(f"{name} {value!r} holds a line break or control character")
    return value


def render_email(message: OutboxMessage, sender: str, sender_name: str = "") -> bytes:
    """The message as RFC 5322 bytes, a pure function of the record and the sender (``sender_name``, the shop's
    name, shown as the From display name).

    The Date is when it was queued and the Message-ID is derived from its address, so every attempt (SMTP,
    a file, SES) produces the same bytes. A header value holding a line break or a control character, or an
    address that is not one plain address, raises ``ValueError``.
    """
    email = EmailMessage(policy=SMTP)
    address = _header_value("From", sender)
    name = _HEADER_UNSAFE.sub("", " ".join(sender_name.split()))  # cosmetic: cleaned, never a reason to fail
    email["From"] = Address(display_name=name, addr_spec=address) if name else address
    email["To"] = _header_value("To", message.to)
    email["Subject"] = _header_value("Subject", message.subject)
    email["Date"] = format_datetime(parse_utc(message.queued_at))
    email["Message-ID"] = message.message_id
    email[OUTBOX_HEADER] = message.key
    email.set_content(message.body)
    return email.as_bytes()


def email_bytes(message: OutboxMessage, sender: str, sender_name: str = "") -> bytes:
    """:func:`render_email`, or a permanent ``DeliveryError`` when no transport could take the message."""
    try:
        return render_email(message, sender, sender_name)
    except ValueError as exc:  # a header holding a line break, an address that is not one address
        raise DeliveryError(f"message {message.key} cannot be rendered: {exc}", permanent=True) from None


def describe_outbox(messages: list[OutboxMessage]) -> list[str]:
    """Each message as a line for people: kind, recipient, subject and where its delivery stands."""
    return [f"To the {m.kind} ({m.to}): {m.subject} ({m.status})" for m in messages]
