"""A tiny SMTP server on 127.0.0.1 that keeps every message it accepts (the tests' and evidence's inbox).

    client --EHLO, MAIL FROM, RCPT TO, DATA, QUIT--> SmtpSink.received (envelope + raw bytes)

It speaks enough RFC 5321 for ``smtplib``: EHLO/HELO, MAIL, RCPT, DATA (dot-unstuffing), RSET, NOOP, QUIT.
Each accepted message gets a queue id, answered as ``250 2.0.0 Ok: queued as <id>`` like Postfix does.
``refuse`` maps a recipient to the reply it gets (e.g. ``550`` for good, ``451`` for now).
"""

from __future__ import annotations

import email
import email.policy
import secrets
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Received:
    """One message the sink accepted."""

    queue_id: str
    mail_from: str
    recipients: tuple[str, ...]
    data: bytes

    @property
    def message_id(self) -> str:
        """The Message-ID header."""
        return str(email.message_from_bytes(self.data, policy=email.policy.default)["Message-ID"])

    @property
    def headers(self) -> dict[str, str]:
        """Every header, by name."""
        parsed = email.message_from_bytes(self.data, policy=email.policy.default)
        return {name: str(value) for name, value in parsed.items()}


@dataclass
class SmtpSink:
    """What the server received, and how it should answer."""

    host: str = "127.0.0.1"
    port: int = 0
    received: list[Received] = field(default_factory=list)
    refuse: dict[str, str] = field(default_factory=dict)  # recipient -> reply line, e.g. "550 5.1.1 no such user"
    connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def address(self) -> str:
        """``HOST:PORT`` for ``outbox send --smtp``."""
        return f"{self.host}:{self.port}"

    def message_ids(self) -> list[str]:
        """Message-IDs in the order received (repeats included)."""
        return [r.message_id for r in self.received]


def _address(line: str) -> str:
    return line.split(":", 1)[1].strip().split()[0].strip("<>")


class _Handler(socketserver.StreamRequestHandler):
    sink: SmtpSink  # set on the subclass each sink serves with
    mail_from = ""
    recipients: list[str]

    def reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")
        self.wfile.flush()

    def handle(self) -> None:
        with self.sink.lock:
            self.sink.connections += 1
        self.recipients = []
        self.reply("220 self.sink.localhost ESMTP test sink")
        verbs = {
            "EHLO": self.ehlo,
            "HELO": self.ehlo,
            "MAIL": self.mail,
            "RCPT": self.rcpt,
            "DATA": self.data,
            "RSET": self.rset,
            "NOOP": lambda _: self.reply("250 2.0.0 Ok"),
        }
        while raw := self.rfile.readline(65536):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            verb = line[:4].upper()
            if verb == "QUIT":
                self.reply("221 2.0.0 Bye")
                return
            verbs.get(verb, lambda _: self.reply("502 5.5.2 Command not recognized"))(line)

    def ehlo(self, _: str) -> None:
        self.wfile.write(b"250-self.sink.localhost\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")

    def mail(self, line: str) -> None:
        self.mail_from, self.recipients = _address(line), []
        self.reply("250 2.1.0 Ok")

    def rcpt(self, line: str) -> None:
        rcpt = _address(line)
        refused = self.sink.refuse.get(rcpt)
        if refused:
            self.reply(refused)
            return
        self.recipients.append(rcpt)
        self.reply("250 2.1.5 Ok")

    def rset(self, _: str) -> None:
        self.mail_from, self.recipients = "", []
        self.reply("250 2.0.0 Ok")

    def data(self, _: str) -> None:
        self.reply("354 End data with <CR><LF>.<CR><LF>")
        lines = []
        while (raw := self.rfile.readline(1 << 20)) not in (b".\r\n", b".\n", b""):
            lines.append(raw[1:] if raw.startswith(b"..") else raw)
        queue_id = secrets.token_hex(5).upper()
        with self.sink.lock:
            self.sink.received.append(Received(queue_id, self.mail_from, tuple(self.recipients), b"".join(lines)))
        self.reply(f"250 2.0.0 Ok: queued as {queue_id}")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def smtp_sink() -> Iterator[SmtpSink]:
    """A running sink on a free loopback port."""
    sink = SmtpSink()
    server = _Server(("127.0.0.1", 0), type("Handler", (_Handler,), {"sink": sink}))
    sink.port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sink
    finally:
        server.shutdown()
        server.server_close()
