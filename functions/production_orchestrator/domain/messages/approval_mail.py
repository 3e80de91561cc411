"""Approval e-mail: the requests (with each approver's link) and reminders, two kinds of outbox message.

    queued (with the approval change that asks for it, in one transaction: start, relink, escalation, reminder)
      --claim (compare-and-set: lease, attempt + 1)--> the link rebuilt (links.py) -> transport --marked--> sent
                                                     \\--the approval closed, expired, or the link replaced--> void
                                                     \\--refused for good--> failed      \\--for now--> queued

A row holds no secret: only which link it is for (the approval, the approver and the link's nonce). The secret
is derived again at send time from the shop's link key and checked against the hash the approval stores, so
a request queued for a link that was replaced since (relink) is void, never sent with a stale or a new link.
Its Message-ID is derived from its key: a retry after a crash between "the transport accepted it" and "marked
sent" carries the same id and the same bytes (the one at-least-once window, as for the plan's messages).

Before approval mail joined the outbox it was a record of its own (``ApprovalMail``, schema version 1, in a
local data dir's ``approval_mail`` table); :func:`from_approval_mail_v1` reads one into the outbox record.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from typing import Any

from ..approval.approvals import ApprovalRecord
from ..planning.proposal import ProposalContent
from ..planning.timeline import day_label
from ..presentation import describe_buys, describe_moves, fingerprint, shop_time, time_left, timing
from ..records import Checkpoint, parse_utc, utc_iso
from ..shop.model import EMAIL_PATTERN
from .outbox import OUTBOX_SCHEMA_VERSION, OutboxMessage

APPROVAL_MAIL_HEADER = "X-Production-Orchestrator-Approval"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")
# The fields of the record approval mail had before it joined the outbox (its schema version 1).
_V1_FIELDS = frozenset(
    {"schema_version", "approval_id", "approver", "kind", "nonce", "point", "queued_at", "status", "attempts",
     "claim_token", "lease_until", "transport_id", "sent_at", "last_error"}
)  # fmt: skip


def is_mail_address(approver: str) -> bool:
    """True when ``approver`` (as the policy keeps it) is one plain e-mail address: their link goes by e-mail."""
    return bool(EMAIL_PATTERN.fullmatch(approver))


def approval_request(approval_id: str, approver: str, nonce: str, now: datetime) -> OutboxMessage:
    """The request carrying ``approver``'s link ``nonce`` (the secret is rebuilt at send)."""
    return OutboxMessage(kind="request", approval_id=approval_id, to=approver, nonce=nonce, queued_at=utc_iso(now))


def approval_reminder(approval_id: str, approver: str, point: str, now: datetime) -> OutboxMessage:
    """The reminder to ``approver`` at reminder ``point``."""
    return OutboxMessage(kind="reminder", approval_id=approval_id, to=approver, point=point, queued_at=utc_iso(now))


def from_approval_mail_v1(raw: str) -> OutboxMessage:
    """A stored approval mail of the record before the outbox held it (version 1) as the outbox record; any
    other version or shape is refused by name (``ValueError``)."""
    data: Any = json.loads(raw)
    if not isinstance(data, dict) or data.get("schema_version") != 1 or not set(data) <= _V1_FIELDS:
        version = data.get("schema_version") if isinstance(data, dict) else None
        raise ValueError(f"approval mail record of schema version {version!r} is not one this release reads (1)")
    fields = {k: v for k, v in data.items() if k not in ("schema_version", "approver")}
    return OutboxMessage(schema_version=OUTBOX_SCHEMA_VERSION, to=data.get("approver", ""), **fields)


def render_approval_email(mail: OutboxMessage, *, sender: str, sender_name: str, subject: str, body: str) -> bytes:
    """RFC 5322 bytes: the same for every attempt (Date is when it was queued, Message-ID from its key).

    ``ValueError`` for a sender or recipient that is not one plain address, or a subject with a line break.
    """
    for name, address in (("From", sender), ("To", mail.approver)):
        if not EMAIL_PATTERN.fullmatch(address):
            raise ValueError(f"{name} {address!r} is not a single plain e-mail address")
    if _UNSAFE.search(subject):
        raise ValueError("the subject holds a line break or control character")
    email = EmailMessage(policy=SMTP)
    shown = _UNSAFE.sub("", " ".join(sender_name.split()))
    email["From"] = Address(display_name=shown, addr_spec=sender) if shown else sender
    email["To"] = mail.approver
    email["Subject"] = subject
    email["Date"] = format_datetime(parse_utc(mail.queued_at))
    email["Message-ID"] = mail.message_id
    email[APPROVAL_MAIL_HEADER] = f"{mail.approval_id} {mail.kind}"
    email.set_content(body)
    return email.as_bytes()


def summary_lines(checkpoint: Checkpoint, proposal: ProposalContent, zone: str) -> list[str]:
    """What an approver needs to decide from a phone's mail app: order, customer, due, on time or at risk,
    what moves and is bought, the fingerprint and the deadline (in the shop's time)."""
    order = proposal.target_order
    _, sentence = timing(proposal)
    return [
        f"Order:       {order.id} for {order.customer} ({order.quantity} x {order.product})",
        f"Due:         {day_label(order.due)}",
        f"Timing:      {sentence}",
        f"Moves:       {'; '.join(describe_moves(proposal)) or 'nothing else moves'}",
        f"Buys:        {'; '.join(describe_buys(proposal)) or 'nothing'}",
        f"Fingerprint: {fingerprint(checkpoint.proposal_hash)}",
        f"Decide by:   {shop_time(checkpoint.expires_at, zone)}",
    ]


def compose(
    mail: OutboxMessage,
    record: ApprovalRecord,
    checkpoint: Checkpoint,
    proposal: ProposalContent,
    link: str,
    zone: str,
    now: datetime,
) -> tuple[str, str]:
    """Subject and body of a request or reminder (``link`` empty: it cannot be rebuilt, ask for a new one)."""
    fp = fingerprint(checkpoint.proposal_hash)
    order_id = proposal.target_order.id
    if mail.kind == "request":
        subject = f"Approve plan for order {order_id}? [{fp}]"
        opening = ["A production plan is waiting for your decision.", ""]
    else:
        subject = f"Reminder: plan for order {order_id} waits for your decision [{fp}]"
        opening = [
            f"A production plan for order {order_id} still waits for your decision.",
            f"Time left: {time_left(record.expires_at, now)}.",
            "",
        ]
    how = (
        [
            "Open this link to see the plan and decide. Opening it changes nothing; only the Approve or",
            "Reject button on the page records a decision:",
            link,
            "",
            "The link is yours alone: do not forward it.",
        ]
        if link
        else ["Ask the operator for a new link (production-orchestrator approvals relink)."]
    )
    body = "\n".join(
        [*opening, *summary_lines(checkpoint, proposal, zone), "", *how, "If nobody decides in time, nothing changes."]
    )
    return subject, body


def why_void(record: ApprovalRecord | None, mail: OutboxMessage, now: datetime) -> str | None:
    """The one rule every send of approval mail asks, after its claim: is it still wanted, for this link? Why
    not (the approval closed or expired, the approver no longer asked or voted, the link replaced), or None."""
    if record is None:
        return f"approval {mail.approval_id} does not exist"
    if not record.is_open(now):
        return f"approval {record.approval_id} is {record.state(now)}"
    link = record.link_of(mail.approver)
    if link is None:
        return f"{mail.approver} is not asked on approval {record.approval_id}"
    if record.has_voted(mail.approver):
        return f"{mail.approver} already voted"
    if mail.kind == "request" and link.nonce != mail.nonce:
        return f"the link of {mail.approver} was replaced since (relink): the request for the new one goes instead"
    return None


def request_mail(record: ApprovalRecord, approver: str, now: datetime) -> OutboxMessage | None:
    """The request carrying ``approver``'s current link, when it can go by e-mail (an address, a derivable link)."""
    link = record.link_of(approver)
    if link is None or not link.nonce or not is_mail_address(link.approver):
        return None
    return approval_request(record.approval_id, link.approver, link.nonce, now)
