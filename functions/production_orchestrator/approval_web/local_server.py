"""``python -m production_orchestrator serve``: the approval pages on 127.0.0.1, for local runs.

    GET  /                 pending approvals (no links, no secrets)
    GET  /approve?a=&s=    the confirmation page (the same renderer as the decision Lambda); reads only
    HEAD /approve?a=&s=    headers only; reads only
    POST /approve?a=&s=    decide (locally the resume then runs in a fresh process: cli/processes.py)

Access log lines carry the method, the path without its query string and the status: never a secret.
"""

from __future__ import annotations

import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..domain.errors import OrchestratorError
from ..domain.presentation import fingerprint
from ..domain.records import parse_utc
from ..lifecycle.evidence import load_checkpoint
from .endpoint import DecisionEndpoint, PageResponse
from .pages import CONTENT_TYPE, SECURITY_HEADERS, render_index, render_invalid, render_neutral

_LOG = logging.getLogger(__name__)
LOOPBACK = "127.0.0.1"
APPROVE_PATH = "/approve"
_MAX_BODY = 16 * 1024
_FORM_TYPE = "application/x-www-form-urlencoded"


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

    def _get(self, head: bool) -> None:
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
        for approval in approvals.list_approvals():  # type: ignore[attr-defined]
            if approval.status != "pending" or self.endpoint.clock() >= parse_utc(approval.expires_at):
                continue
            try:
                order = load_checkpoint(store, approval.checkpoint_id).target_order_id
            except OrchestratorError:
                order = "?"
            rows.append((approval, order, fingerprint(approval.proposal_hash)))
        return render_index(rows, self.endpoint.clock())

    def do_GET(self) -> None:
        self._get(head=False)

    def do_HEAD(self) -> None:
        self._get(head=True)

    def do_POST(self) -> None:
        if urlsplit(self.path).path != APPROVE_PATH:
            self._send(404, render_neutral())
            return
        length = int(self.headers.get("Content-Length") or 0)
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != _FORM_TYPE or length > _MAX_BODY:
            self._send(400, render_invalid("expected a small form post"))
            return
        form = dict(parse_qsl(self.rfile.read(length).decode("utf-8", "replace"), keep_blank_values=True))
        self._page(self.endpoint.post(self._query(), form))


def make_server(endpoint: DecisionEndpoint, port: int) -> ThreadingHTTPServer:
    """A server for ``endpoint`` bound to 127.0.0.1 only (``port`` 0 picks a free one)."""
    handler = type("Handler", (_Handler,), {"endpoint": endpoint})
    return ThreadingHTTPServer((LOOPBACK, port), handler)
