"""The outbox: every message the shop sends, queued with the change that asks for it, delivered by one step.

    queued (with its change, one atomic write: a plan's apply, an approval's start, relink, escalation, reminder)
      --claim (lease, attempt + 1)--> being sent --its kind still wants it? no--> void (an approval closed, a link
                                                  |                              replaced: approval kinds only)
                                                  --transport accepted, marked--> sent (transport id)
                                                  \\--transport refused it for good--> failed
                                                  \\--transient error, or the sender died--> queued
                                                     (the lease runs out; the next delivery retries)
                                                  \\--transport unreachable--> queued, attempt not counted
    failed --``outbox retry`` (audited)--> queued, with a fresh budget of attempts

Two families of kinds share the record and the pipeline; what differs is a per-kind rule (services/outbox):

- plan kinds (``customer``, ``operator``, ``supplier``): an approved plan's drafted message. Its recipient,
  subject and body are the proposal's draft at its index (the proposal is content-addressed and re-hashed on
  read), and ``plan_applied`` records the digest of the messages it queued in the MACed audit chain. A record
  edited in storage is refused at send and named by ``audit verify``. Addressed ``<proposal hash>#<index>``.
- approval kinds (``request``, ``reminder``): one approver's request (for one link, named by its nonce) or
  reminder (at one point). The row holds no secret: the link is rebuilt from the shop's key at send
  (messages/approval_mail.py), and a row whose approval closed or whose link was replaced is void.

Every message's RFC 5322 ``Message-ID`` is derived from its key: a retry after a crash between "the transport
accepted it" and "marked sent" carries the same id, so the receiving side can drop the second copy. That window
is the one place delivery is at-least-once (README: Messages out).

Schema versions: 2 is this record (both families). 1 is the plan messages' record before approval mail joined
the outbox, the same fields: it is read as it is and written back as version 1, so a stored row compares equal to
what was read (DynamoDB's compare-and-set compares the stored JSON text). Any other version is refused by name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from ..approval.approvals import APPROVAL_ID_PATTERN
from ..canonical import content_hash
from ..errors import DeliveryError
from ..planning.proposal import ProposalContent
from ..records import CheckpointId, ProposalHash, Timestamp, parse_utc, require_id, utc_iso
from ..shop.model import EMAIL_PATTERN

OUTBOX_SCHEMA_VERSION: Literal[2] = 2
READABLE_VERSIONS = (1, 2)
PlanKind = Literal["customer", "operator", "supplier"]
ApprovalKind = Literal["request", "reminder"]
OutboxKind = Literal[PlanKind, ApprovalKind]
PLAN_KINDS: frozenset[str] = frozenset(get_args(PlanKind))
APPROVAL_KINDS: frozenset[str] = frozenset(get_args(ApprovalKind))
OutboxStatus = Literal["queued", "sent", "failed", "void"]
MAX_MESSAGES_PER_PLAN = 20
# Message-ID right-hand sides: fixed, so an id depends on nothing but the message's key.
MESSAGE_ID_DOMAIN = "outbox.production-orchestrator"
MAIL_ID_DOMAIN = "approvals.production-orchestrator"
OUTBOX_HEADER = "X-Production-Orchestrator-Outbox"
_HEX32 = r"^([0-9a-f]{32})?$"
_CLAIM_TOKEN = re.compile(r"[0-9a-f]{32}")
ClaimToken = Annotated[str, AfterValidator(lambda v: v if v == "" else require_id(v, _CLAIM_TOKEN, "claim token"))]
OptionalApprovalId = Annotated[
    str, AfterValidator(lambda v: v if v == "" else require_id(v, APPROVAL_ID_PATTERN, "approval id"))
]
# Serialized only by the family that has them: a plan message reads and writes as it did before approval mail.
_PLAN_ONLY = ("proposal_hash", "index", "checkpoint_id", "subject", "body")
_APPROVAL_ONLY = ("approval_id", "nonce", "point")


def is_plan_kind(kind: str) -> bool:
    """True for the kinds of a plan's drafted messages (customer, operator, supplier)."""
    return kind in PLAN_KINDS


class OutboxMessage(BaseModel):
    """One message the shop sends (a plan's draft, or an approval request or reminder) and how its delivery stands."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when first used

    schema_version: Literal[1, 2] = OUTBOX_SCHEMA_VERSION
    # A plan's message: which plan, which of its drafts, and what the human approved of it.
    proposal_hash: ProposalHash | Literal[""] = ""
    index: int = Field(default=0, ge=0, lt=MAX_MESSAGES_PER_PLAN)
    checkpoint_id: CheckpointId | Literal[""] = ""
    kind: OutboxKind
    to: str = Field(min_length=3, max_length=254)
    subject: str = Field(default="", max_length=998)
    body: str = Field(default="", max_length=100_000)
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
    # An approval's message: which approval, and the link (its nonce) a request is for or the reminder point.
    approval_id: OptionalApprovalId = ""
    nonce: str = Field(default="", pattern=_HEX32)
    point: str = Field(default="", max_length=40)

    @model_validator(mode="before")
    @classmethod
    def _known_version(cls, data: Any) -> Any:
        # Refused by name, before any field is read: a newer release's record must not be half-understood.
        if isinstance(data, dict) and data.get("schema_version", OUTBOX_SCHEMA_VERSION) not in READABLE_VERSIONS:
            raise ValueError(
                f"outbox record schema version {data.get('schema_version')!r} is not one this release reads "
                f"({', '.join(map(str, READABLE_VERSIONS))}): upgrade production-orchestrator"
            )
        return data

    @model_validator(mode="after")
    def _whole_of_its_kind(self) -> OutboxMessage:
        if is_plan_kind(self.kind):
            missing = [n for n in ("proposal_hash", "checkpoint_id", "subject") if not getattr(self, n)]
            stray = [n for n in _APPROVAL_ONLY if getattr(self, n)]
        else:
            missing = ["approval_id"] if not self.approval_id else []
            missing += ["nonce"] if self.kind == "request" and not self.nonce else []
            missing += ["point"] if self.kind == "reminder" and not self.point else []
            stray = [n for n in _PLAN_ONLY if getattr(self, n)]
            if self.schema_version == 1:
                raise ValueError(f"an outbox record of version 1 holds plan messages only, not a {self.kind}")
        if missing or stray:
            raise ValueError(
                f"a {self.kind} message needs {', '.join(missing) or 'nothing more'} and has no "
                f"{', '.join(stray) or 'stray field'}"
            )
        return self

    @model_serializer(mode="wrap")
    def _only_its_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A plan message never retried serializes exactly as before either field existed: DynamoDB's compare-and-
        # set compares the stored JSON text, so a record queued by an older version can still be claimed.
        data: dict[str, Any] = handler(self)
        if data.get("attempts_at_retry") == 0:
            del data["attempts_at_retry"]
        for name in _APPROVAL_ONLY if is_plan_kind(self.kind) else _PLAN_ONLY:
            data.pop(name, None)
        return data

    @property
    def is_plan(self) -> bool:
        """True for a plan's drafted message, False for an approval request or reminder."""
        return is_plan_kind(self.kind)

    @property
    def approver(self) -> str:
        """Whom an approval request or reminder goes to (its recipient)."""
        return self.to

    @property
    def key(self) -> str:
        """The message's address in every store: ``<proposal hash>#<index>`` for a plan's message; a request:
        one per link (approval and nonce); a reminder: one per approval, point and approver."""
        if self.is_plan:
            return outbox_key(self.proposal_hash, self.index)
        if self.kind == "request":
            return f"{self.approval_id}#request#{self.nonce}"
        return f"{self.approval_id}#reminder#{self.point}#{self.to}"

    @property
    def message_id(self) -> str:
        """The deterministic RFC 5322 Message-ID (angle brackets included), the same for every attempt."""
        if self.is_plan:
            return message_id(self.proposal_hash, self.index)
        return f"<{self.file_stem}@{MAIL_ID_DOMAIN}>"

    @property
    def file_stem(self) -> str:
        """The message's name as a file (``outbox send --to-dir``): the same for every attempt."""
        if self.is_plan:
            return f"{self.proposal_hash}-{self.index:02d}"
        return hashlib.sha256(self.key.encode()).hexdigest()[:40]

    def claimable(self, now: datetime) -> bool:
        """True when a delivery may take it: still queued, and no live lease of another sender on it."""
        return self.status == "queued" and (not self.lease_until or now >= parse_utc(self.lease_until))

    def claimed(self, token: str, now: datetime, lease: timedelta) -> OutboxMessage:
        """This message held by ``token`` until ``now + lease``, one more attempt counted."""
        return self.model_copy(
            update={"claim_token": token, "lease_until": utc_iso(now + lease), "attempts": self.attempts + 1}
        )

    def _released(self, **update: object) -> OutboxMessage:
        return self.model_copy(update={"claim_token": "", "lease_until": "", **update})

    def sent(self, transport_id: str, now: datetime) -> OutboxMessage:
        """Marked sent with the transport's id for it."""
        return self._released(status="sent", transport_id=transport_id[:500], sent_at=utc_iso(now), last_error="")

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
        return self._released(status="queued", attempts_at_retry=self.attempts)

    def voided(self, why: str) -> OutboxMessage:
        """Never to be sent: what asked for it no longer wants it (an approval closed, its link replaced)."""
        return self._released(status="void", last_error=why[:500])

    def content(self) -> dict[str, object]:
        """What the human approved of a plan's message: its place in the plan, kind, recipient, subject and body."""
        return {"index": self.index, "kind": self.kind, "to": self.to, "subject": self.subject, "body": self.body}

    def not_sent(self, error: str, *, permanent: bool) -> OutboxMessage:
        """Released after a failed attempt: ``failed`` for good, else queued again for the next delivery."""
        return self._released(status="failed" if permanent else "queued", last_error=error[:500])


def outbox_order(rows: Iterable[tuple[int, OutboxMessage]]) -> list[OutboxMessage]:
    """Messages as every store lists them, from ``(insert sequence, message)``: by queue time, then a plan's by
    key (its drafts in order) before an approval's in the order they were queued."""
    ordered = sorted(rows, key=lambda r: (r[1].queued_at, not r[1].is_plan, r[1].key if r[1].is_plan else "", r[0]))
    return [message for _, message in ordered]


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
    # Headers are not folded at 78: the email package folds a long Subject before an encoded word so that it
    # reads back with a doubled space ("logo  está"); 998 is RFC 5322's own limit.
    email = EmailMessage(policy=SMTP.clone(max_line_length=998))
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
