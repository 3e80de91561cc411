"""A customer's e-mail as the planner reads it: plain text or an ``.eml`` (RFC 5322, MIME).

    raw text -> headers? (From / Date / Subject / To / Message-ID)
                 yes: sender, sent day, message id, subject; the text/plain body (else text/html, tags dropped)
                 no:  the whole text is the body
             -> ``text``: one canonical rendering (the headers that matter, a blank line, the body), which
                the model sees, the proposal keeps and a re-run reads again

Attachments are never read; only the text of the message counts toward its size limit.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import html
import re
from dataclasses import dataclass
from datetime import date
from email.message import EmailMessage

from ..errors import IntakeError, RequestTooLongError
from ..shop.model import EMAIL_PATTERN

MAX_REQUEST_CHARS = 20_000
_KNOWN_HEADERS = ("from", "date", "subject", "to", "message-id")


@dataclass(frozen=True)
class CustomerMessage:
    """The parts of an e-mail the intake uses; ``text`` is the canonical rendering of them."""

    body: str
    sender: str = ""
    sender_name: str = ""
    date_header: str = ""
    message_id: str = ""
    subject: str = ""

    @property
    def sent_day(self) -> date | None:
        """The day the sender dated it (in the sender's own offset): what "by Friday" counts from."""
        return _sent_day(self.date_header)

    @property
    def text(self) -> str:
        """Headers that matter, a blank line, the body (just the body when there were no headers)."""
        head = []
        if self.sender:
            head.append(f"From: {email.utils.formataddr((self.sender_name, self.sender))}")
        if self.date_header:
            head.append(f"Date: {self.date_header}")
        if self.subject:
            head.append(f"Subject: {self.subject}")
        if self.message_id:
            head.append(f"Message-ID: {self.message_id}")
        return "\n".join(head) + "\n\n" + self.body if head else self.body


def _body_text(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, ValueError):  # an unknown charset or a broken transfer encoding
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload or "")
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        content = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"(?i)<br\s*/?>|</p>", "\n", content)))
    return content


def _sent_day(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).date()
    except (TypeError, ValueError, IndexError):
        return None


def _clean(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def read_message(raw: str) -> CustomerMessage:
    """The e-mail in ``raw`` (plain text or RFC 5322); ``IntakeError`` when it is empty or too long."""
    if not isinstance(raw, str) or not raw.strip():
        raise IntakeError("the customer request is empty")
    parsed = email.message_from_string(raw.lstrip("\ufeff"), policy=email.policy.default)
    if not isinstance(parsed, EmailMessage) or not any(parsed.get(h) for h in _KNOWN_HEADERS):
        message = CustomerMessage(body=_clean(raw))
    else:
        name, address = email.utils.parseaddr(str(parsed.get("From", "")))
        valid = bool(EMAIL_PATTERN.fullmatch(address))
        message = CustomerMessage(
            body=_clean(_body_text(parsed)),
            sender=address if valid else "",
            sender_name=" ".join(name.split())[:120] if valid else "",
            date_header=" ".join(str(parsed.get("Date", "")).split())[:100],
            message_id=" ".join(str(parsed.get("Message-ID", "")).split())[:200],
            subject=" ".join(str(parsed.get("Subject", "")).split())[:300],
        )
    if not message.body.strip() and not message.subject:
        raise IntakeError("the customer request has no text")
    if len(message.text) > MAX_REQUEST_CHARS:
        raise RequestTooLongError(f"the customer request's text is longer than {MAX_REQUEST_CHARS} characters")
    return message
