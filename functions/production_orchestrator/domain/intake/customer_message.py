"""A customer's e-mail as the planner reads it: plain text or an ``.eml`` (RFC 5322, MIME).

    raw text -> headers? (From / Date / Subject / To / Message-ID)
                 yes: sender, sent day, message id, subject; the body the customer's mail client shows:
                      the HTML part's visible text (visible_text.py), else the text/plain part, its bytes
                      decoded as what they are (UTF-8 declared Latin-1, 8-bit, no charset at all)
                 no:  the whole text is the body
             -> thread.py: the newest message | its signature | the messages it quotes or forwards
             -> ``text``: one canonical rendering (the headers that matter, a blank line, the body, the
                signature, the earlier messages), which the model sees, the proposal keeps and a re-run
                reads again into the same parts

Attachments are never read; only the text of the message counts toward its size limit.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
from dataclasses import dataclass
from datetime import date
from email.message import EmailMessage, MIMEPart

from ..errors import IntakeError, MimeTooDeepError, RequestTooLongError
from ..shop.model import EMAIL_PATTERN, Language
from .language import detect_language, writes_day_first
from .thread import signature_name, split_signature, split_thread
from .visible_text import decode_bytes, visible_text

MAX_REQUEST_CHARS = 20_000
_KNOWN_HEADERS = ("from", "date", "subject", "to", "message-id")


@dataclass(frozen=True)
class CustomerMessage:
    """The parts of an e-mail the intake uses; ``text`` is the canonical rendering of them. ``body`` is the
    newest message without its signature; ``earlier`` the messages it quotes or forwards, as written."""

    body: str
    sender: str = ""
    sender_name: str = ""
    date_header: str = ""
    message_id: str = ""
    subject: str = ""
    signature: str = ""
    earlier: str = ""

    @property
    def language(self) -> Language:
        """The language the newest message is written in (en, de, fr, es, nl)."""
        return detect_language(f"{self.subject}\n{self.body}" if self.body.strip() else self.earlier)

    @property
    def day_first(self) -> bool | None:
        """Whether the sender writes 04/06/2027 for 4 June (language.writes_day_first)."""
        return writes_day_first(self.language, self.sender, f"{self.body}\n{self.signature}")

    @property
    def signed_name(self) -> str:
        """The name the signature gives, if any."""
        return signature_name(self.signature)

    @property
    def sent_day(self) -> date | None:
        """The day the sender dated it (in the sender's own offset): what "by Friday" counts from."""
        return sent_day(self.date_header)

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
        body = "\n\n".join(part for part in (self.body, self.signature, self.earlier) if part)
        return "\n".join(head) + "\n\n" + body if head else body


def _body_text(message: EmailMessage) -> str:
    # A mail client shows the HTML part when there is one: the text/plain alternative (which may say
    # something else, hidden from the customer) is read only when there is no HTML.
    part = message.get_body(preferencelist=("html", "plain"))
    if part is None:
        return ""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    content = decode_bytes(payload, part.get_content_charset())
    return visible_text(content) if part.get_content_subtype() == "html" else content


def _header(parsed: EmailMessage, name: str) -> str:
    """A header's value on one line: undecodable bytes of 8-bit headers read as UTF-8 (else Windows-1252),
    line breaks from encoded words folded into spaces. ``IntakeError`` for one the email package cannot
    read (an encoded ``From:`` holding a line break): a sender nobody can name starts nothing."""
    try:
        value = str(parsed.get(name, "") or "")
    except (ValueError, LookupError, IndexError, TypeError):
        raise IntakeError(f"the e-mail's {name} header cannot be read") from None
    if any("\udc80" <= c <= "\udcff" for c in value):
        value = decode_bytes(value.encode("utf-8", "surrogateescape"), None)
    return " ".join(value.split())


def sent_day(value: str | None) -> date | None:
    """The day an RFC 5322 date names, in its own offset (None when it names none)."""
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).date()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _clean(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def _parts(body: str) -> tuple[str, str, str]:
    newest, earlier = split_thread(_clean(body))
    message, signature = split_signature(newest)
    return message, signature, earlier


# Mail clients nest a few multiparts (mixed > alternative > related, a forward's own): deeper is refused before
# the parser (which recurses, and checks each line against every open boundary) ever sees it.
MAX_MIME_DEPTH = 12
MAX_MIME_BOUNDARIES = 64
_BOUNDARY = re.compile(r"boundary\s{0,8}=", re.IGNORECASE)


def _mime_depth(message: MIMEPart) -> int:
    """How deep ``message``'s multiparts nest, walked without recursion."""
    deepest = 0
    pending: list[tuple[MIMEPart, int]] = [(message, 0)]
    while pending:
        part, depth = pending.pop()
        deepest = max(deepest, depth)
        if part.is_multipart() and depth <= MAX_MIME_DEPTH:
            pending += [(child, depth + 1) for child in part.iter_parts()]
    return deepest


def _parsed(raw: str) -> EmailMessage | None:
    if len(_BOUNDARY.findall(raw)) > MAX_MIME_BOUNDARIES:
        raise MimeTooDeepError(f"the e-mail declares more than {MAX_MIME_BOUNDARIES} MIME boundaries")
    # Parsed as bytes, so an 8-bit body is decoded by its own charset (or as the UTF-8 it usually is).
    parsed = email.message_from_bytes(raw.encode("utf-8", "surrogateescape"), policy=email.policy.default)
    if not isinstance(parsed, EmailMessage):
        return None
    if _mime_depth(parsed) > MAX_MIME_DEPTH:
        raise MimeTooDeepError(f"the e-mail nests its MIME parts more than {MAX_MIME_DEPTH} levels deep")
    return parsed


def read_message(raw: str) -> CustomerMessage:
    """The e-mail in ``raw`` (plain text or RFC 5322); ``IntakeError`` when it is empty or too long,
    ``MimeTooDeepError`` when its MIME parts nest deeper than any mail client writes."""
    if not isinstance(raw, str) or not raw.strip():
        raise IntakeError("the customer request is empty")
    raw = raw.lstrip("\ufeff")
    parsed = _parsed(raw)
    if not isinstance(parsed, EmailMessage) or not any(h in parsed for h in _KNOWN_HEADERS):
        body, signature, earlier = _parts(raw)
        message = CustomerMessage(body=body, signature=signature, earlier=earlier)
    else:
        name, address = email.utils.parseaddr(_header(parsed, "From"))
        valid = bool(EMAIL_PATTERN.fullmatch(address))
        body, signature, earlier = _parts(_body_text(parsed))
        message = CustomerMessage(
            body=body,
            sender=address if valid else "",
            sender_name=" ".join(name.split())[:120] if valid else "",
            date_header=_header(parsed, "Date")[:100],
            message_id=_header(parsed, "Message-ID")[:200],
            subject=_header(parsed, "Subject")[:300],
            signature=signature,
            earlier=earlier,
        )
    if not message.text.strip() or (not (message.body + message.earlier).strip() and not message.subject):
        raise IntakeError("the customer request has no text")
    if len(message.text) > MAX_REQUEST_CHARS:
        raise RequestTooLongError(f"the customer request's text is longer than {MAX_REQUEST_CHARS} characters")
    return message
