"""Approval e-mail: the requests (with each approver's link) and reminders a local shop sends through its outbox.

    queued (with the approval change that asks for it, in one transaction: start, relink, escalation, reminder)
      --claim (compare-and-set: lease, attempt + 1)--> the link rebuilt (links.py) -> transport --marked--> sent
                                                     \\--the approval closed, expired, or the link replaced--> void
                                                     \\--refused for good--> failed      \\--for now--> queued

A row holds no secret: only which link it is for (the approval, the approver and the link's nonce). The secret
is derived again at send time from the shop's link key and checked against the hash the approval stores, so
a request queued for a link that was replaced since (relink) is void, never sent with a stale or a new link.
Its Message-ID is derived from its key: a retry after a crash between "the transport accepted it" and "marked
sent" carries the same id and the same bytes (the one at-least-once window, as for the plan's messages).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..approval.approvals import ApprovalId, ApprovalRecord
from ..planning.proposal import ProposalContent
from ..planning.timeline import day_label
from ..presentation import describe_buys, describe_moves, fingerprint, shop_time, time_left, timing
from ..records import Checkpoint, Timestamp, parse_utc, utc_iso
from ..shop.model import EMAIL_PATTERN

APPROVAL_MAIL_SCHEMA_VERSION: Literal[1] = 1
ApprovalMailKind = Literal["request", "reminder"]
ApprovalMailStatus = Literal["queued", "sent", "failed", "void"]
MAIL_ID_DOMAIN = "approvals.production-orchestrator"
APPROVAL_MAIL_HEADER = "X-Production-Orchestrator-Approval"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


def is_mail_address(approver: str) -> bool:
    """True when ``approver`` (as the policy keeps it) is one plain e-mail address: their link goes by e-mail."""
    return bool(EMAIL_PATTERN.fullmatch(approver))


class ApprovalMail(BaseModel):
    """One approval request or reminder to one approver, and how its delivery stands (no secret in it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = APPROVAL_MAIL_SCHEMA_VERSION
    approval_id: ApprovalId
    approver: str = Field(min_length=3, max_length=254)
    kind: ApprovalMailKind
    nonce: str = Field(default="", pattern=r"^([0-9a-f]{32})?$")  # the link a request is for
    point: str = Field(default="", max_length=40)  # the reminder point
    queued_at: Timestamp
    status: ApprovalMailStatus = "queued"
    attempts: int = Field(default=0, ge=0)
    claim_token: str = Field(default="", pattern=r"^([0-9a-f]{32})?$")
    lease_until: str = ""
    transport_id: str = Field(default="", max_length=500)
    sent_at: str = ""
    last_error: str = Field(default="", max_length=500)

    @property
    def key(self) -> str:
        """A request: one per link (approval and nonce); a reminder: one per approval, point and approver."""
        if self.kind == "request":
            return f"{self.approval_id}#request#{self.nonce}"
        return f"{self.approval_id}#reminder#{self.point}#{self.approver}"

    @property
    def message_id(self) -> str:
        """The RFC 5322 Message-ID, the same for every attempt at this mail."""
        return f"<{hashlib.sha256(self.key.encode()).hexdigest()[:40]}@{MAIL_ID_DOMAIN}>"

    def claimable(self, now: datetime) -> bool:
        """Queued, and no live lease of another sender on it."""
        return self.status == "queued" and (not self.lease_until or now >= parse_utc(self.lease_until))

    def claimed(self, token: str, now: datetime, lease: timedelta) -> ApprovalMail:
        """Held by ``token`` until ``now + lease``, one more attempt counted."""
        return self.model_copy(
            update={"claim_token": token, "lease_until": utc_iso(now + lease), "attempts": self.attempts + 1}
        )

    def _released(self, **update: object) -> ApprovalMail:
        return self.model_copy(update={"claim_token": "", "lease_until": "", **update})

    def sent(self, transport_id: str, now: datetime) -> ApprovalMail:
        """Marked sent with the transport's id for it."""
        return self._released(status="sent", transport_id=transport_id[:500], sent_at=utc_iso(now), last_error="")

    def not_sent(self, error: str, *, permanent: bool, counted: bool = True) -> ApprovalMail:
        """Released after a failed attempt: failed for good, or queued for the next send (``counted``: False when
        no server saw it)."""
        attempts = self.attempts if counted else max(self.attempts - 1, 0)
        return self._released(status="failed" if permanent else "queued", last_error=error[:500], attempts=attempts)

    def voided(self, why: str) -> ApprovalMail:
        """Never to be sent: the approval closed, or the link it carries was replaced."""
        return self._released(status="void", last_error=why[:500])


def render_approval_email(mail: ApprovalMail, *, sender: str, sender_name: str, subject: str, body: str) -> bytes:
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
    mail: ApprovalMail,
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


def why_void(record: ApprovalRecord | None, mail: ApprovalMail, now: datetime) -> str | None:
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


def request_mail(record: ApprovalRecord, approver: str, now: datetime) -> ApprovalMail | None:
    """The request carrying ``approver``'s current link, when it can go by e-mail (an address, a derivable link)."""
    link = record.link_of(approver)
    if link is None or not link.nonce or not is_mail_address(link.approver):
        return None
    return ApprovalMail(
        approval_id=record.approval_id, approver=link.approver, kind="request", nonce=link.nonce, queued_at=utc_iso(now)
    )
