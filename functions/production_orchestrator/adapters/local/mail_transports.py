"""Local transports for the outbox: an SMTP server, or a directory of ``.eml`` files.

Both hand over the bytes the delivery rendered (messages/outbox.py, messages/approval_mail.py), which depend
only on the message record and the sender, so a retry hands over exactly what the first attempt did (same
Message-ID): a receiving side that drops repeated Message-IDs sees each message once, and a file that exists
already is that message, delivered.
"""

from __future__ import annotations

import os
import re
import smtplib
import ssl
from pathlib import Path
from typing import Literal

from ...domain.errors import DeliveryError
from ...domain.messages.outbox import OutboxMessage

_QUEUED_AS = re.compile(r"queued as ([A-Za-z0-9._-]{1,100})", re.IGNORECASE)
SmtpSecurity = Literal["none", "starttls", "smtps"]


def _reply(code: int, reply: bytes | str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    return f"{code} {' '.join(text.split())[:200]}"


def _session_error(step: str, code: int, reply: bytes | str) -> DeliveryError:
    """The server refused the session itself (greeting, EHLO, STARTTLS, login, MAIL FROM): every message would
    get the same answer, so none is counted as tried; they stay queued until the server or settings change."""
    return DeliveryError(f"smtp {step} refused: {_reply(code, reply)}", permanent=False, unreachable=True)


def _message_error(step: str, code: int, reply: bytes | str) -> DeliveryError:
    """The server refused this message: 5xx for good (its text kept), 4xx (or anything else) for now."""
    return DeliveryError(f"smtp {step} refused: {_reply(code, reply)}", permanent=500 <= code < 600)


class SmtpTransport:
    """One SMTP connection per message (``--smtp HOST:PORT``); STARTTLS or SMTPS, and login only over TLS.

    The reply that ends DATA decides: 2xx sent, 4xx queued for the next send, 5xx failed with the server's
    text. QUIT after an accepted message is a courtesy: whatever it answers, the message was delivered.
    """

    name = "smtp"

    def __init__(
        self,
        host: str,
        port: int,
        sender: str,
        *,
        security: SmtpSecurity = "none",
        username: str = "",
        password: str = "",
        timeout: float = 30.0,
        tls_context: ssl.SSLContext | None = None,
        sender_name: str = "",
    ) -> None:
        if username and security == "none":
            # The CLI refuses this with its own code before anything is claimed; never send a password in clear.
            raise ValueError("SMTP credentials need TLS (STARTTLS or SMTPS)")
        self._host, self._port, self._sender = host, port, sender
        self._security, self._username, self._password = security, username, password
        self._timeout = timeout
        self._tls = tls_context
        self._sender_name = sender_name

    def __repr__(self) -> str:
        return f"SmtpTransport({self._host}:{self._port}, {self._security})"  # never the password

    def _context(self) -> ssl.SSLContext:
        return self._tls if self._tls is not None else ssl.create_default_context()

    def _unavailable(self, exc: BaseException) -> DeliveryError:
        return DeliveryError(
            f"smtp {self._host}:{self._port} unavailable: {type(exc).__name__}", permanent=False, unreachable=True
        )

    def _connect(self) -> smtplib.SMTP:
        """Connected and greeted (over TLS from the first byte for SMTPS)."""
        try:
            if self._security == "smtps":
                return smtplib.SMTP_SSL(self._host, self._port, timeout=self._timeout, context=self._context())
            return smtplib.SMTP(self._host, self._port, timeout=self._timeout)
        except smtplib.SMTPConnectError as exc:  # a greeting other than 220
            raise _session_error("greeting", exc.smtp_code, exc.smtp_error) from None
        except (OSError, smtplib.SMTPException) as exc:
            raise self._unavailable(exc) from None

    def _greet(self, smtp: smtplib.SMTP) -> None:
        """EHLO, STARTTLS (and EHLO again) and login, as configured; DeliveryError when the server refuses."""
        code, reply = smtp.ehlo()
        if code != 250:
            raise _session_error("EHLO", code, reply)
        if self._security == "starttls":
            if not smtp.has_extn("starttls"):
                raise DeliveryError(
                    f"smtp {self._host}:{self._port} does not offer STARTTLS", permanent=False, unreachable=True
                )
            code, reply = smtp.starttls(context=self._context())
            if code != 220:  # smtplib carries on in clear after most refusals: never log in or send so
                raise _session_error("STARTTLS", code, reply)
            code, reply = smtp.ehlo()
            if code != 250:
                raise _session_error("EHLO after STARTTLS", code, reply)
        if self._username:
            smtp.login(self._username, self._password)

    def _open(self) -> smtplib.SMTP:
        """Connected, greeted, EHLO'd, upgraded to TLS and logged in as configured."""
        smtp = self._connect()
        try:
            self._greet(smtp)
        except DeliveryError:
            smtp.close()
            raise
        except smtplib.SMTPNotSupportedError:
            smtp.close()
            raise DeliveryError(
                f"smtp {self._host}:{self._port} does not offer login (AUTH)", permanent=False, unreachable=True
            ) from None
        except smtplib.SMTPResponseException as exc:  # STARTTLS or login refused
            smtp.close()
            raise _session_error("STARTTLS or login", exc.smtp_code, exc.smtp_error) from None
        except (OSError, smtplib.SMTPException) as exc:  # a dropped connection, a failed TLS handshake
            smtp.close()
            raise self._unavailable(exc) from None
        return smtp

    @property
    def sender(self) -> str:
        """The envelope and From address."""
        return self._sender

    @property
    def sender_name(self) -> str:
        """The From display name."""
        return self._sender_name

    def send(self, message: OutboxMessage, data: bytes) -> str:
        """MAIL, RCPT, DATA; the server's queue id (``queued as X``) or else the Message-ID."""
        return self._deliver(message.to, data, message.message_id)

    def _deliver(self, to: str, data: bytes, message_id: str) -> str:
        smtp = self._open()
        offered = False  # whether the message's bytes went out: a drop after that may have delivered it
        try:
            code, reply = smtp.mail(self._sender)
            if code != 250:
                raise _session_error("MAIL FROM", code, reply)
            code, reply = smtp.rcpt(to)
            if code not in (250, 251):
                raise _message_error(f"RCPT TO {to}", code, reply)
            offered = True
            code, reply = smtp.data(data)  # raises SMTPDataError unless DATA is answered 354
            if not 200 <= code < 300:
                raise _message_error("the message (end of DATA)", code, reply)
        except smtplib.SMTPDataError as exc:
            smtp.close()
            raise _message_error("DATA", exc.smtp_code, exc.smtp_error) from None
        except DeliveryError:
            smtp.close()
            raise
        except (OSError, smtplib.SMTPException) as exc:
            # Dropped before the message went out: the server went away (no attempt counted). Dropped while or
            # after it went out: perhaps delivered, unconfirmed; the retry sends the same bytes (same Message-ID).
            smtp.close()
            raise DeliveryError(
                f"smtp {self._host}:{self._port} dropped the connection: {type(exc).__name__}",
                permanent=False,
                unreachable=not offered,
            ) from None
        # Accepted: QUIT is a courtesy and its answer (or a dropped connection) changes nothing.
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException):
            smtp.close()
        text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
        queued = _QUEUED_AS.search(text)
        return f"smtp:{queued.group(1)}" if queued else message_id


class EmlDirectory:
    """Writes each message to ``DIR/<proposal hash>-<index>.eml`` (a plan's) or ``DIR/approval-<id>.eml`` (an
    approval request or reminder) (``--to-dir DIR``); idempotent by file name."""

    name = "eml"

    def __init__(self, directory: Path, sender: str, sender_name: str = "") -> None:
        self._dir, self._sender, self._sender_name = directory, sender, sender_name

    @property
    def sender(self) -> str:
        """The From address."""
        return self._sender

    @property
    def sender_name(self) -> str:
        """The From display name."""
        return self._sender_name

    def send(self, message: OutboxMessage, data: bytes) -> str:
        """Create the file unless it exists; a file of that name already is this message, delivered."""
        stem = message.file_stem if message.is_plan else f"approval-{message.file_stem}"
        return self._write(f"{stem}.eml", data)

    def _write(self, name: str, data: bytes) -> str:
        target = self._dir / name
        try:
            self._dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not target.exists():
                temporary = self._dir / f".{name}.{os.getpid()}.tmp"
                # 0600: an approval e-mail carries a link secret (the directory is the mailbox, 0700 too).
                with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
                    handle.write(data)
                try:
                    # link() never replaces: of two racing writers one creates the file, the other finds it.
                    os.link(temporary, target)
                except FileExistsError:
                    pass
                finally:
                    temporary.unlink()
        except OSError as exc:
            raise DeliveryError(f"cannot write {target}: {exc.strerror}", permanent=False, unreachable=True) from None
        return f"eml:{name}"
