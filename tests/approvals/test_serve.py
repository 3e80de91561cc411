"""The local server: loopback only, GET/HEAD burn nothing, safe headers, and no secret in any page, header
or log line."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from urllib.request import Request, urlopen

from tests.approvals.test_policy import approval_rows
from tests.support.local_serve import Served
from tests.support.localstore import fingerprint
from tests.support.net import APPROVERS, free_port


def test_get_and_head_over_http_change_nothing_and_leak_nothing(started: Any) -> None:
    port = free_port()
    data_dir, run = started("--approvers", APPROVERS, link_base=f"http://127.0.0.1:{port}/approve")
    served = Served(data_dir, port)
    secrets = [parse_qs(urlsplit(run[f"APPROVAL_URL_{n}"]).query)["s"][0] for n in (1, 2, 3)]
    before = (fingerprint(data_dir), approval_rows(data_dir))
    seen: list[str] = []
    try:
        for method in ("HEAD", "GET", "HEAD", "GET"):
            with urlopen(Request(run["APPROVAL_URL_1"], method=method), timeout=10) as response:
                body = response.read().decode()
                headers = dict(response.headers.items())
            assert response.status == 200
            assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer"
            assert "script-src" not in headers["Content-Security-Policy"]
            assert "'unsafe-inline'" not in headers["Content-Security-Policy"]
            assert (body == "") == (method == "HEAD")
            seen += [body, repr(headers)]
        with urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            index = response.read().decode()
        assert "RUSH-200" in index and "ana@example.com" in index
        seen.append(index)
    finally:
        log = served.stop()
    assert (fingerprint(data_dir), approval_rows(data_dir)) == before
    for secret in secrets:
        assert all(secret not in text for text in [*seen, log])


def test_the_server_binds_loopback_only(started: Any) -> None:
    from production_orchestrator.approval_web.local_server import make_server
    from production_orchestrator.cli.approval_side import local_endpoint

    data_dir, _ = started("--approvers", APPROVERS)
    server = make_server(local_endpoint(Path(data_dir), []), 0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()


def test_a_post_runs_the_resume_in_a_fresh_process_and_status_shows_it(started: Any) -> None:
    from urllib.parse import urlencode

    from tests.support.clidriver import cli

    port = free_port()
    data_dir, run = started("--approvers", APPROVERS, link_base=f"http://127.0.0.1:{port}/approve")
    served = Served(data_dir, port)
    form = {"decision": "reject", "reviewed_hash": run["PROPOSAL_HASH"], "reason": "not this week"}
    try:
        request = Request(run["APPROVAL_URL_2"], data=urlencode(form).encode(), method="POST")
        with urlopen(request, timeout=120) as response:
            page = response.read().decode()
    finally:
        log = served.stop()
    assert "Plan rejected" in page and "changed nothing" in page
    assert "resume process finished" in log and "exit=0 decision=rejected" in log
    status = cli("status", "--data-dir", str(data_dir))
    assert f"{run['CHECKPOINT_ID']}  rejected  by ben@example.com" in status.stdout


def _raw(port: int, request: bytes, timeout: float = 5) -> bytes:
    """Send ``request`` as bytes and read until the server closes (it must answer and close promptly)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_hostile_requests_get_400_and_the_neutral_page_without_hanging(started: Any) -> None:
    import threading
    import time

    from production_orchestrator.approval_web.local_server import make_server
    from production_orchestrator.approval_web.pages import NEUTRAL_MESSAGE
    from production_orchestrator.cli.approval_side import local_endpoint

    data_dir, run = started("--approvers", APPROVERS)
    server = make_server(local_endpoint(Path(data_dir), []), 0)
    port = int(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = urlsplit(run["APPROVAL_URL_2"])
    target = f"{path.path}?{path.query}".encode()
    host = f"Host: 127.0.0.1:{port}\r\n".encode()
    form = b"decision=reject&reviewed_hash=" + run["PROPOSAL_HASH"].encode() + b"&reason=no"
    kind = b"Content-Type: application/x-www-form-urlencoded\r\n"
    before = (fingerprint(data_dir), approval_rows(data_dir))
    post = b"POST " + target + b" HTTP/1.1\r\n" + host + kind
    hostile = {
        "non-numeric length": post + b"Content-Length: abc\r\n\r\n" + form,
        "negative length": post + b"Content-Length: -1\r\n\r\n",
        "no length": post + b"\r\n" + form,
        "over the limit": post + b"Content-Length: 999999\r\n\r\nx",
        "not utf-8": post + b"Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc",
        "percent-encoded not utf-8": post + b"Content-Length: 21\r\n\r\ndecision=reject&r=%FF",
        "another host (DNS rebinding)": b"GET / HTTP/1.1\r\nHost: evil.example:" + str(port).encode() + b"\r\n\r\n",
        "no host": b"GET / HTTP/1.0\r\n\r\n",
    }  # fmt: skip
    try:
        for name, request in hostile.items():
            began = time.monotonic()
            answer = _raw(port, request).decode("utf-8", "replace")
            assert answer.startswith("HTTP/1.0 400"), (name, answer[:80])
            assert NEUTRAL_MESSAGE in answer and "RUSH-200" not in answer, name
            assert time.monotonic() - began < 3, f"{name}: the server waited for bytes nobody announced"
        ok = _raw(port, b"GET / HTTP/1.1\r\nHost: localhost:" + str(port).encode() + b"\r\n\r\n").decode()
        assert ok.startswith("HTTP/1.0 200") and "RUSH-200" in ok
    finally:
        server.shutdown()
        server.server_close()
    assert (fingerprint(data_dir), approval_rows(data_dir)) == before
