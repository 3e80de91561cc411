"""``python -m production_orchestrator serve``: the approval pages on 127.0.0.1 (or, with TLS, one LAN
address), for local runs.

    GET  /                 pending approvals (no links, no secrets)
    GET  /requests?k=      the operator's held requests (loopback only; held_page.py); POST completes one
    GET  /schedule         every machine over the days ahead, the pending plans laid over it (loopback only:
                           it names every customer; schedule_page.py); reads only, no secrets
    GET  /approve?a=&s=    the confirmation page (the same renderer as the decision Lambda); reads only
    HEAD /approve?a=&s=    headers only; reads only
    POST /approve?a=&s=    decide (locally the resume then runs in a fresh process: cli/processes.py)

Only requests naming this server (``Host: 127.0.0.1:<port>`` or ``localhost:<port>``; on a LAN address, that
address or a name given with ``--host-name``; on the scheme's default port, 443 over TLS and 80 without, the
name alone, as browsers send it: RFC 9110 section 7.2) are answered, so a page on another site that resolves its own
name to this address (DNS rebinding) cannot read the list. Anything but loopback is served over TLS only:
a link secret never crosses a network in clear text. A body
that is missing its length, too long, of another type or not UTF-8 gets 400 and the neutral page; the
server never waits for bytes a client did not announce. Access log lines carry the method, the path
without its query string and the status: never a secret.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import socket
import ssl
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..domain.errors import OrchestratorError
from ..domain.presentation import fingerprint, shop_zone
from ..services.evidence import load_checkpoint
from .endpoint import DecisionEndpoint, PageResponse
from .held_page import HeldPage
from .pages import CONTENT_TYPE, SECURITY_HEADERS, render_neutral
from .paths import APPROVE_PATH, HELD_PATH, LOOPBACK, SCHEDULE_PATH
from .summary import render_index

_LOG = logging.getLogger(__name__)
_MAX_BODY = 16 * 1024
_FORM_TYPE = "application/x-www-form-urlencoded"
_LENGTH = re.compile(r"^[0-9]{1,9}\Z")


class BadRequestError(ValueError):
    """A request this server does not read (answered 400 with the neutral page)."""


def read_form(headers: Any, stream: Any) -> dict[str, str]:
    """The form of a POST, read only as far as its announced length; ``BadRequestError`` when unusable."""
    length_text = str(headers.get("Content-Length") or "").strip()
    if not _LENGTH.fullmatch(length_text):
        raise BadRequestError("the request has no usable Content-Length")
    length = int(length_text)
    kind = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if kind != _FORM_TYPE or length > _MAX_BODY:
        raise BadRequestError("expected a small form post")
    try:
        text = stream.read(length).decode("utf-8")
        return dict(parse_qsl(text, keep_blank_values=True, errors="strict"))
    except (UnicodeDecodeError, ValueError):
        raise BadRequestError("the form is not readable text") from None


def names_this_server(host: str, names: Sequence[str], port: int, *, tls: bool) -> bool:
    """True when the ``Host`` header value ``host`` names this server: one of ``names`` (lower-case) and
    ``port``, where a missing or empty port means the scheme's default (443 over TLS, 80 without)."""
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 literal: [::1] or [::1]:port
        name, _, rest = host.partition("]")
        name += "]"
        if rest and not rest.startswith(":"):
            return False
        given = rest[1:]
    elif host.count(":") > 1:  # a bare IPv6 address is not a Host value
        return False
    else:
        name, _, given = host.partition(":")
    if given and not (given.isascii() and given.isdigit()):
        return False
    wanted = int(given) if given else (443 if tls else 80)
    return name in names and wanted == port


class _Handler(BaseHTTPRequestHandler):
    endpoint: DecisionEndpoint
    held: HeldPage | None = None  # the operator's held-request page (loopback only)
    schedule: bool = False  # the shop's schedule page (loopback only)
    host_names: tuple[str, ...] = (LOOPBACK, "localhost")
    tls: bool = False
    timeout = 60  # seconds a client may idle mid-request (and mid-handshake) before its connection is closed

    def setup(self) -> None:
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(self.timeout)
            self.request.do_handshake()  # in this request's thread: accept() never waits on a handshake
        super().setup()

    server_version = "production-orchestrator"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        # The request line holds the link secret: log the path alone.
        _LOG.info("%s %s", self.command, urlsplit(self.path).path)

    def _send(self, status: int, body: str, *, head: bool = False) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", CONTENT_TYPE)
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _page(self, page: PageResponse, *, head: bool = False) -> None:
        _LOG.info("%s %s -> %s", self.command, urlsplit(self.path).path, page.label)
        self._send(page.status, page.body, head=head)

    def _query(self) -> dict[str, str]:
        return dict(parse_qsl(urlsplit(self.path).query))

    def _host_ok(self) -> bool:
        port = int(self.server.server_address[1])  # type: ignore[index]
        if names_this_server(str(self.headers.get("Host") or ""), self.host_names, port, tls=self.tls):
            return True
        _LOG.info("%s %s -> wrong host", self.command, urlsplit(self.path).path)
        self._send(400, render_neutral())
        return False

    def _get(self, head: bool) -> None:
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        if path == "/":
            self._send(200, self._index(), head=head)
        elif path == APPROVE_PATH:
            self._page(self.endpoint.show(self._query()), head=head)
        elif path == HELD_PATH and self.held is not None:
            self._page(self.held.show(self._query()), head=head)
        elif path == SCHEDULE_PATH and self.schedule:
            self._send(*self._schedule(), head=head)
        else:
            self._send(404, render_neutral(), head=head)

    def _index(self) -> str:
        store, approvals = self.endpoint.rt.store, self.endpoint.rt.approvals
        rows = []
        now = self.endpoint.clock()
        for approval in approvals.list_approvals():
            if not approval.is_open(now):
                continue
            try:
                order = load_checkpoint(store, approval.checkpoint_id).target_order_id
            except OrchestratorError:
                order = "?"
            rows.append((approval, order, fingerprint(approval.proposal_hash)))
        return render_index(rows, now, shop_zone(store.load_state()), schedule=self.schedule)

    def _schedule(self) -> tuple[int, str]:
        from ..services.shop.schedule import shop_schedule
        from .schedule_page import render_schedule

        try:
            return 200, render_schedule(shop_schedule(self.endpoint.rt), served=True)
        except OrchestratorError:  # no shop (yet): the page of a path this server does not answer
            return 404, render_neutral()

    def _same_site(self) -> bool:
        """The browser says the form came from this server, or says nothing (a script, curl): ``Origin`` names this
        server when sent, and ``Sec-Fetch-Site`` is same-origin or none when sent."""
        port = int(self.server.server_address[1])  # type: ignore[index]
        origin = str(self.headers.get("Origin") or "")
        site = str(self.headers.get("Sec-Fetch-Site") or "")
        if site and site not in ("same-origin", "none"):
            return False
        if not origin:
            return True
        parts = urlsplit(origin)
        scheme = "https" if self.tls else "http"
        return parts.scheme == scheme and names_this_server(parts.netloc, self.host_names, port, tls=self.tls)

    def do_GET(self) -> None:
        self._get(head=False)

    def do_HEAD(self) -> None:
        self._get(head=True)

    def do_POST(self) -> None:
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        if path != APPROVE_PATH and (path != HELD_PATH or self.held is None):
            self._send(404, render_neutral())
            return
        try:
            form = read_form(self.headers, self.rfile)
        except BadRequestError:
            _LOG.info("POST %s -> bad request", path)
            self.close_connection = True  # whatever else the client sends is not read
            self._send(400, render_neutral())
            return
        if path == HELD_PATH and self.held is not None:
            self._page(self.held.post(self._query(), form, same_site=self._same_site()))
            return
        self._page(self.endpoint.post(self._query(), form))


def is_loopback(address: str) -> bool:
    """True for 127.0.0.0/8 and ::1 (``localhost`` is a name, not an address: not accepted)."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def check_bind(address: str, *, tls: bool) -> str:
    """``address`` if ``serve`` may listen on it: one IP address (not a wildcard: the Host check names the
    address), and TLS for anything but loopback. Else ``ValueError`` saying why."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise ValueError(f"--bind {address!r} is not an IP address (e.g. 192.168.1.20)") from None
    if ip.is_unspecified:
        raise ValueError(f"--bind {address} listens everywhere: name the one LAN address the links point at")
    if not ip.is_loopback and not tls:
        raise ValueError(
            f"--bind {address} is not loopback: link secrets would cross the network in clear text; "
            "pass --tls-cert and --tls-key (a certificate for the name or address the links use)"
        )
    return str(ip)


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server context (TLS 1.2 or newer) for ``cert``/``key``; ``ValueError`` if they cannot be used."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"cannot use the TLS certificate {cert} with key {key}: {exc}") from None
    return context


def make_server(
    endpoint: DecisionEndpoint,
    port: int,
    *,
    bind: str = LOOPBACK,
    tls: ssl.SSLContext | None = None,
    host_names: Sequence[str] = (),
    held: HeldPage | None = None,
) -> ThreadingHTTPServer:
    """A server for ``endpoint`` bound to ``bind`` (127.0.0.1 unless told; see :func:`check_bind`), over TLS
    when ``tls`` is given; ``port`` 0 picks a free one. Requests must name ``bind`` (or, on loopback,
    ``localhost``) or one of ``host_names`` in their Host header. ``held`` (the operator's held-request page) and
    the shop's schedule are served on loopback only."""
    check_bind(bind, tls=tls is not None)
    if held is not None and not is_loopback(bind):
        raise ValueError("the held-request page is the operator's: it is served on loopback only")
    names = {bind.lower(), *(name.strip().lower() for name in host_names if name.strip())}
    if ":" in bind:
        names.add(f"[{bind.lower()}]")
    if is_loopback(bind):
        names.add("localhost")
    attributes = {
        "endpoint": endpoint,
        "host_names": tuple(sorted(names)),
        "tls": tls is not None,
        "held": held,
        "schedule": is_loopback(bind),
    }
    handler = type("Handler", (_Handler,), attributes)
    server_class = _V6Server if ":" in bind else _Server
    server = server_class((bind, port), handler)
    if tls is not None:
        # The handshake runs in the request's thread (first read), so a slow client cannot stall accept().
        server.socket = tls.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    return server


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A failed TLS handshake (a plain-HTTP client, a scanner) or a dropped connection: one line, no trace.
        _LOG.info("connection dropped before a request was read")


class _V6Server(_Server):
    address_family = socket.AF_INET6
