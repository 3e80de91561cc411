"""``python -m production_orchestrator serve``: the approval pages on 127.0.0.1, for local runs.

    GET  /                 pending approvals (no links, no secrets)
    GET  /approve?a=&s=    the confirmation page (the same renderer as the decision Lambda); reads only
    HEAD /approve?a=&s=    headers only; reads only
    POST /approve?a=&s=    decide (locally the resume then runs in a fresh process: cli/processes.py)

Only requests naming this server (``Host: 127.0.0.1:<port>`` or ``localhost:<port>``) are answered, so a
page on another site that resolves its own name to 127.0.0.1 (DNS rebinding) cannot read the list. A body
that is missing its length, too long, of another type or not UTF-8 gets 400 and the neutral page; the
server never waits for bytes a client did not announce. Access log lines carry the method, the path
without its query string and the status: never a secret.
"""

from __future__ import annotations

import logging
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..domain.errors import OrchestratorError
from ..domain.presentation import fingerprint, shop_zone
from ..lifecycle.evidence import load_checkpoint
from .endpoint import DecisionEndpoint, PageResponse
from .pages import CONTENT_TYPE, SECURITY_HEADERS, render_index, render_neutral

_LOG = logging.getLogger(__name__)
LOOPBACK = "127.0.0.1"
APPROVE_PATH = "/approve"
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


class _Handler(BaseHTTPRequestHandler):
    endpoint: DecisionEndpoint
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
        host = str(self.headers.get("Host") or "").strip().lower()
        if host in (f"{LOOPBACK}:{port}", f"localhost:{port}"):
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
        else:
            self._send(404, render_neutral(), head=head)

    def _index(self) -> str:
        store, approvals = self.endpoint.store, self.endpoint.approvals
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
        return render_index(rows, now, shop_zone(store.load_state()))

    def do_GET(self) -> None:
        self._get(head=False)

    def do_HEAD(self) -> None:
        self._get(head=True)

    def do_POST(self) -> None:
        if not self._host_ok():
            return
        if urlsplit(self.path).path != APPROVE_PATH:
            self._send(404, render_neutral())
            return
        try:
            form = read_form(self.headers, self.rfile)
        except BadRequestError:
            _LOG.info("POST %s -> bad request", APPROVE_PATH)
            self.close_connection = True  # whatever else the client sends is not read
            self._send(400, render_neutral())
            return
        self._page(self.endpoint.post(self._query(), form))


def make_server(endpoint: DecisionEndpoint, port: int) -> ThreadingHTTPServer:
    """A server for ``endpoint`` bound to 127.0.0.1 only (``port`` 0 picks a free one)."""
    handler = type("Handler", (_Handler,), {"endpoint": endpoint})
    return ThreadingHTTPServer((LOOPBACK, port), handler)
