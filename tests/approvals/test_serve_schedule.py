"""``serve``'s /schedule: the whole shop's schedule on loopback (200, the same security headers as every page,
no script, no link secret, each pending plan pointing at its line in the list of pending approvals); and a
Host header without a port names the scheme's default port (RFC 9110 7.2)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from urllib.request import urlopen

from tests.approvals.test_policy import approval_rows
from tests.support.local_serve import Served
from tests.support.localstore import fingerprint
from tests.support.net import APPROVERS, free_port


def test_get_schedule_shows_the_shop_and_the_pending_plan_with_the_pages_headers(started: Any) -> None:
    from production_orchestrator.approval_web.layout import SECURITY_HEADERS

    port = free_port()
    data_dir, run = started("--approvers", APPROVERS, link_base=f"http://127.0.0.1:{port}/approve")
    secrets = [parse_qs(urlsplit(run[f"APPROVAL_URL_{n}"]).query)["s"][0] for n in (1, 2, 3)]
    before = (fingerprint(data_dir), approval_rows(data_dir))
    served = Served(data_dir, port)
    try:
        with urlopen(f"http://127.0.0.1:{port}/schedule", timeout=30) as response:
            page = response.read().decode()
            headers = dict(response.headers.items())
        with urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            index = response.read().decode()
            index_headers = dict(response.headers.items())
    finally:
        log = served.stop()
    assert response.status == 200
    assert headers["Content-Security-Policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    assert headers["Content-Security-Policy"] == index_headers["Content-Security-Policy"]
    assert all(headers[name] == value for name, value in SECURITY_HEADERS.items())
    assert "<script" not in page.lower() and "RUSH-200" in page and 'id="plan-1"' in page
    fp = run["PROPOSAL_HASH"][:16]
    assert f'href="/#p-{fp}"' in page and f'id="p-{fp}"' in index  # the plan's line in the list of approvals
    assert 'href="/schedule"' in index
    assert (fingerprint(data_dir), approval_rows(data_dir)) == before  # reading it changed nothing
    for secret in secrets:
        assert secret not in page and secret not in index and secret not in log
    assert "GET /schedule" in log


def _get(port: int, host: str, path: str = "/") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_host_without_a_port_is_the_default_port_as_browsers_send_it(started: Any) -> None:
    from production_orchestrator.approval_web.local_server import make_server
    from production_orchestrator.cli.approval_side import local_endpoint

    data_dir, _ = started("--approvers", APPROVERS)
    server = make_server(local_endpoint(Path(data_dir), []), 0)
    port = int(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert _get(port, f"127.0.0.1:{port}").startswith(b"HTTP/1.0 200")
        assert _get(port, "127.0.0.1").startswith(b"HTTP/1.0 400")  # no port is 80, not this one
        # The server as `serve --port 80` sees itself (binding 80 needs privileges a test does not have): a
        # browser then sends the name alone, and the name alone is this server; with the port, too.
        server.server_address = ("127.0.0.1", 80)
        for host in ("127.0.0.1", "localhost", "127.0.0.1:80", "LOCALHOST:"):
            assert _get(port, host).startswith(b"HTTP/1.0 200"), host
            assert _get(port, host, "/schedule").startswith(b"HTTP/1.0 200"), host
        for host in (f"127.0.0.1:{port}", "evil.example", "127.0.0.1:443"):
            assert _get(port, host).startswith(b"HTTP/1.0 400"), host
    finally:
        server.shutdown()
        server.server_close()
