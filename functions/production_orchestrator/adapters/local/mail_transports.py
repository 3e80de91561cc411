"""Local transports for the outbox: an SMTP server, or a directory of ``.eml`` files.

Both send the bytes of :func:`email_bytes`, which depend only on the message record and the sender, so a
retry hands over exactly what the first attempt did (same Message-ID): a receiving side that drops
repeated Message-IDs sees each message once, and a file that exists already is that message, delivered.
"""

from __future__ import annotations

import os
import re
import smtplib
import ssl
from pathlib import Path

from ...domain.errors import DeliveryError
from ...domain.messages.outbox import OutboxMessage, email_bytes

_QUEUED_AS = re.compile(r"queued as ([A-Za-z0-9._-]{1,100})", re.IGNORECASE)


def _reply(code: int, reply: bytes | str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    return f"{code} {text.strip()[:200]}"


class SmtpTransport:
    """One SMTP connection per message (``--smtp HOST:PORT``); optional STARTTLS and login."""

    name = "smtp"

    def __init__(
        self,
        host: str,
        port: int,
        sender: str,
        *,
        starttls: bool = False,
        username: str = "",
        password: str = "",
        timeout: float = 30.0,
    ) -> None:
        self._host, self._port, self._sender = host, port, sender
        self._starttls, self._username, self._password = starttls, username, password
        self._timeout = timeout

    def __repr__(self) -> str:
        return f"SmtpTransport({self._host}:{self._port})"  # never the password

    def send(self, message: OutboxMessage) -> str:
        """MAIL, RCPT, DATA; the server's queue id (``queued as X``) or else the Message-ID."""
        data = email_bytes(message, self._sender)
        try:
            with smtplib.SMTP(self._host, self._port, timeout=self._timeout) as smtp:
                smtp.ehlo()
                if self._starttls:
                    smtp.starttls(context=ssl.create_default_context())
                    smtp.ehlo()
                if self._username:
                    smtp.login(self._username, self._password)
                code, reply = smtp.mail(self._sender)
                if code != 250:
                    raise DeliveryError(f"sender refused: {_reply(code, reply)}", permanent=code >= 500)
                code, reply = smtp.rcpt(message.to)
                if code not in (250, 251):
                    raise DeliveryError(f"recipient {message.to} refused: {_reply(code, reply)}", permanent=code >= 500)
                code, reply = smtp.data(data)
        except smtplib.SMTPResponseException as exc:  # DATA refused, or a refused login or STARTTLS
            raise DeliveryError(
                f"smtp refused: {_reply(exc.smtp_code, exc.smtp_error)}", permanent=exc.smtp_code >= 500
            ) from None
        except (OSError, smtplib.SMTPException) as exc:  # connection refused, timeout, dropped connection
            raise DeliveryError(
                f"smtp {self._host}:{self._port} unavailable: {type(exc).__name__}", permanent=False
            ) from None
        text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
        queued = _QUEUED_AS.search(text)
        return f"smtp:{queued.group(1)}" if queued else message.message_id


class EmlDirectory:
    """Writes each message to ``DIR/<proposal hash>-<index>.eml`` (``--to-dir DIR``); idempotent by file name."""

    name = "eml"

    def __init__(self, directory: Path, sender: str) -> None:
        self._dir, self._sender = directory, sender

    def send(self, message: OutboxMessage) -> str:
        """Create the file unless it exists; a file of that name already is this message, delivered."""
        data = email_bytes(message, self._sender)
        name = f"{message.proposal_hash}-{message.index:02d}.eml"
        target = self._dir / name
        try:
            self._dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not target.exists():
                temporary = self._dir / f".{name}.{os.getpid()}.tmp"
                temporary.write_bytes(data)
                try:
                    # link() never replaces: of two racing writers one creates the file, the other finds it.
                    os.link(temporary, target)
                except FileExistsError:
                    pass
                finally:
                    temporary.unlink()
        except OSError as exc:
            raise DeliveryError(f"cannot write {target}: {exc.strerror}", permanent=False) from None
        return f"eml:{name}"
