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
    from production_orchestrator.cli.approvals import local_endpoint

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
