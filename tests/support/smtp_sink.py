"""A tiny SMTP server on 127.0.0.1 that keeps every message it accepts (the tests' and evidence's inbox).

    client --greeting, EHLO, [STARTTLS, EHLO, AUTH], MAIL FROM, RCPT TO, DATA, <message>., QUIT--> SmtpSink

It speaks enough RFC 5321 for ``smtplib``: EHLO/HELO, STARTTLS, AUTH PLAIN, MAIL, RCPT, DATA (dot-unstuffing),
RSET, NOOP, QUIT. Each accepted message gets a queue id, answered as ``250 2.0.0 Ok: queued as <id>`` like
Postfix does. It can refuse at every step: ``replies`` maps a step (``connect``, ``EHLO``, ``STARTTLS``,
``AUTH``, ``MAIL``, ``RCPT``, ``DATA``, ``after DATA``, ``QUIT``) to the reply line it gets instead of the
usual one (``DROP`` closes the connection without a word); ``refuse`` maps one recipient to its RCPT reply.

It is bounded and stops by itself: one connection waits at most ``idle_seconds`` for a line, a message is at
most ``max_bytes``, at most ``max_connections`` are served (then ``421``), and the server shuts itself down
after ``lifetime_seconds`` even if a test never leaves its ``with`` block.
"""

from __future__ import annotations

import base64
import email
import email.policy
import secrets
import socketserver
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

STEPS = ("connect", "EHLO", "STARTTLS", "AUTH", "MAIL", "RCPT", "DATA", "after DATA", "QUIT")
DROP = "DROP"


@dataclass(frozen=True)
class Received:
    """One message the sink accepted."""

    queue_id: str
    mail_from: str
    recipients: tuple[str, ...]
    data: bytes
    over_tls: bool = False

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
    replies: dict[str, str] = field(default_factory=dict)  # step -> reply line instead of the usual one
    logins: list[tuple[str, str, bool]] = field(default_factory=list)  # (user, password, over TLS)
    commands: list[str] = field(default_factory=list)  # every command verb seen, in order
    connections: int = 0
    tls: ssl.SSLContext | None = None  # offer STARTTLS with this server context
    max_connections: int = 200
    max_bytes: int = 1 << 20
    idle_seconds: float = 10.0
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


class _Drop(Exception):
    """Close the connection now."""


class _Handler(socketserver.StreamRequestHandler):
    sink: SmtpSink  # set on the subclass each sink serves with
    implicit_tls = False
    mail_from = ""
    recipients: list[str]
    over_tls = False

    def setup(self) -> None:
        self.request.settimeout(self.sink.idle_seconds)
        super().setup()
        self.over_tls = self.implicit_tls

    def reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")
        self.wfile.flush()

    def answer(self, step: str, usual: str) -> bool:
        """Send the step's reply (the configured one, else ``usual``); False when it was not the usual one."""
        configured = self.sink.replies.get(step)
        if configured == DROP:
            raise _Drop
        self.reply(configured or usual)
        return configured is None

    def handle(self) -> None:
        with self.sink.lock:
            self.sink.connections += 1
            over = self.sink.connections > self.sink.max_connections
        if over:
            self.reply("421 4.7.0 too many connections for this test sink")
            return
        self.recipients = []
        try:
            if not self.answer("connect", "220 sink.localhost ESMTP test sink"):
                return
            self.serve()
        except (_Drop, OSError, ssl.SSLError):
            return

    def serve(self) -> None:
        verbs = {
            "EHLO": self.ehlo,
            "HELO": self.ehlo,
            "STAR": self.starttls,
            "AUTH": self.auth,
            "MAIL": self.mail,
            "RCPT": self.rcpt,
            "DATA": self.data,
            "RSET": self.rset,
            "NOOP": lambda _: self.reply("250 2.0.0 Ok"),
        }
        while raw := self.rfile.readline(4096):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            verb = line[:4].upper()
            with self.sink.lock:
                self.sink.commands.append(line.split(" ", 1)[0].upper())
            if verb == "QUIT":
                self.answer("QUIT", "221 2.0.0 Bye")
                return
            verbs.get(verb, lambda _: self.reply("502 5.5.2 Command not recognized"))(line)

    def ehlo(self, _: str) -> None:
        configured = self.sink.replies.get("EHLO")
        if configured:
            self.answer("EHLO", configured)
            return
        lines = ["sink.localhost", "8BITMIME", "SMTPUTF8"]
        if self.sink.tls is not None and not self.over_tls:
            lines.append("STARTTLS")
        if self.over_tls:
            lines.append("AUTH PLAIN")
        for line in lines[:-1]:
            self.wfile.write(f"250-{line}\r\n".encode())
        self.reply(f"250 {lines[-1]}")

    def starttls(self, _: str) -> None:
        if self.sink.tls is None or self.over_tls:
            self.reply("502 5.5.1 STARTTLS not offered")
            return
        if not self.answer("STARTTLS", "220 2.0.0 Ready to start TLS"):
            return
        self.request = self.sink.tls.wrap_socket(self.request, server_side=True)
        self.rfile = self.request.makefile("rb")
        self.wfile = self.request.makefile("wb")
        self.over_tls = True

    def auth(self, line: str) -> None:
        parts = line.split()
        if len(parts) != 3 or parts[1].upper() != "PLAIN":
            self.reply("504 5.5.4 only AUTH PLAIN with an initial response")
            return
        _, user, password = base64.b64decode(parts[2]).decode("utf-8", "replace").split("\0", 2)
        with self.sink.lock:
            self.sink.logins.append((user, password, self.over_tls))
        self.answer("AUTH", "235 2.7.0 Authentication successful")

    def mail(self, line: str) -> None:
        self.mail_from, self.recipients = _address(line), []
        self.answer("MAIL", "250 2.1.0 Ok")

    def rcpt(self, line: str) -> None:
        rcpt = _address(line)
        refused = self.sink.refuse.get(rcpt)
        if refused:
            self.reply(refused)
            return
        if self.answer("RCPT", "250 2.1.5 Ok"):
            self.recipients.append(rcpt)

    def rset(self, _: str) -> None:
        self.mail_from, self.recipients = "", []
        self.reply("250 2.0.0 Ok")

    def data(self, _: str) -> None:
        if not self.answer("DATA", "354 End data with <CR><LF>.<CR><LF>"):
            return
        lines, size = [], 0
        while (raw := self.rfile.readline(1 << 16)) not in (b".\r\n", b".\n", b""):
            size += len(raw)
            if size > self.sink.max_bytes:
                self.reply("552 5.3.4 message too big for this test sink")
                raise _Drop
            lines.append(raw[1:] if raw.startswith(b"..") else raw)
        queue_id = secrets.token_hex(5).upper()
        if self.answer("after DATA", f"250 2.0.0 Ok: queued as {queue_id}"):
            with self.sink.lock:
                self.sink.received.append(
                    Received(queue_id, self.mail_from, tuple(self.recipients), b"".join(lines), self.over_tls)
                )


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def smtp_sink(
    *, tls: ssl.SSLContext | None = None, implicit_tls: bool = False, lifetime_seconds: float = 120.0
) -> Iterator[SmtpSink]:
    """A running sink on a free loopback port (STARTTLS offered with ``tls``; SMTPS with ``implicit_tls``)."""
    sink = SmtpSink(tls=None if implicit_tls else tls)
    handler = type("Handler", (_Handler,), {"sink": sink, "implicit_tls": implicit_tls})
    server = _Server(("127.0.0.1", 0), handler)
    if implicit_tls:
        assert tls is not None, "SMTPS needs a server TLS context"
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    sink.port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stop = threading.Timer(lifetime_seconds, server.shutdown)  # stops by itself, whatever the test does
    stop.daemon = True
    stop.start()
    try:
        yield sink
    finally:
        stop.cancel()
        server.shutdown()
        server.server_close()
