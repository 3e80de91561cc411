"""``python -m production_orchestrator serve``: the approval pages on 127.0.0.1, for local runs.

    GET  /                 pending approvals (no links, no secrets)
    GET  /approve?a=&s=    the confirmation page (the same renderer as the decision Lambda); reads only
    HEAD /approve?a=&s=    headers only; reads only
    POST /approve?a=&s=    decide: the resume then runs in a fresh process (SubprocessResume)

Access log lines carry the method, the path without its query string and the status: never a secret.
"""

from __future__ import annotations

import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ...approval_endpoint import DecisionEndpoint, PageResponse
from ...approval_page import CONTENT_TYPE, SECURITY_HEADERS, render_index, render_invalid, render_neutral
from ...domain.records import Checkpoint, parse_utc
from ...presentation import fingerprint
from .processes import SubprocessRepropose, SubprocessResume
from .runtime import local_approvals, local_mac_key, local_runtime, utc_now

_LOG = logging.getLogger(__name__)
LOOPBACK = "127.0.0.1"
APPROVE_PATH = "/approve"
_MAX_BODY = 16 * 1024
_FORM_TYPE = "application/x-www-form-urlencoded"


def build_endpoint(data_dir: Path, provider_args: list[str]) -> DecisionEndpoint:
    """The local composition: SQLite stores, the key file, resumes and re-proposals as fresh processes."""
    rt = local_runtime(data_dir, create=False)
    return DecisionEndpoint(
        store=rt.store,
        approvals=local_approvals(data_dir),
        callback=SubprocessResume(data_dir, provider_args),
        clock=utc_now,
        mac_key=local_mac_key(data_dir),
        reproposer=SubprocessRepropose(data_dir, provider_args),
        report_outcome=True,
    )


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
            if approval.status != "pending" or utc_now() >= parse_utc(approval.expires_at):
                continue
            raw = store.get_checkpoint(approval.checkpoint_id)
            order = Checkpoint.model_validate_json(raw).target_order_id if raw else "?"
            rows.append((approval, order, fingerprint(approval.proposal_hash)))
        return render_index(rows, utc_now())

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


def make_server(data_dir: Path, port: int, provider_args: list[str]) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1 only (``port`` 0 picks a free one)."""
    handler = type("Handler", (_Handler,), {"endpoint": build_endpoint(data_dir, provider_args)})
    return ThreadingHTTPServer((LOOPBACK, port), handler)
