"""The approval page's "Change the plan" form (local ``serve``): a POST with guidance makes version 2 in a fresh
process; the same link then shows version 2 with version 1's timeline beside it; version 2 is approved once and
applies; version 1 is refused after it. GET still changes nothing."""

from __future__ import annotations

import json
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urlencode
from urllib.request import Request, urlopen

from tests.approvals.test_policy import approval_rows
from tests.support.clidriver import cli
from tests.support.local_serve import Served
from tests.support.localstore import fingerprint
from tests.support.net import APPROVERS, free_port


def _post(url: str, form: dict[str, str]) -> tuple[int, str]:
    request = Request(url, data=urlencode(form).encode(), method="POST")
    try:
        with urlopen(request, timeout=180) as response:
            return response.status, response.read().decode()
    except HTTPError as refused:
        return refused.code, refused.read().decode()


def test_change_the_plan_from_the_page_then_approve_version_2_once(started: Any) -> None:
    port = free_port()
    data_dir, run = started(
        "--approvers", APPROVERS, "--max-versions", "2", link_base=f"http://127.0.0.1:{port}/approve"
    )
    served = Served(data_dir, port)
    link, v1 = run["APPROVAL_URL_1"], run["PROPOSAL_HASH"]
    try:
        before = (fingerprint(data_dir), approval_rows(data_dir))
        with urlopen(link, timeout=20) as response:
            page = response.read().decode()
        assert "Change the plan" in page and 'name="decision" value="revise"' in page and "<script" not in page
        assert (fingerprint(data_dir), approval_rows(data_dir)) == before
        status, bad = _post(link, {"decision": "revise", "reviewed_hash": v1, "keep": "NOPE-1"})
        assert status == 409 and "UNKNOWN_ORDER" in bad
        assert (fingerprint(data_dir), approval_rows(data_dir)) == before
        status, made = _post(link, {"decision": "revise", "reviewed_hash": v1, "keep": "STANDARD-100"})
        assert status == 200 and "Version 2" in made, made
        with urlopen(link, timeout=20) as response:
            page = response.read().decode()
        shown = json.loads(cli("status", "--data-dir", str(data_dir), "--json").stdout)
        v2 = next(a for a in shown["approvals"] if a["version"] == 2)
        assert v2["proposal_hash"] in page and "Version 1 (replaced by this one)" in page
        assert "STANDARD-100 is no longer moved" in page
        # Version 2 is the last this run allows (--max-versions 2): no form offers another, a POST is refused.
        assert 'value="revise"' not in page and "Version 2 is the last this plan may have" in page
        before = (fingerprint(data_dir), approval_rows(data_dir))
        status, last = _post(link, {"decision": "revise", "reviewed_hash": v2["proposal_hash"], "note": "again"})
        assert status == 409 and "VERSION_LIMIT" in last, last
        assert (fingerprint(data_dir), approval_rows(data_dir)) == before
        status, refused = _post(link, {"decision": "approve", "reviewed_hash": v1})
        assert status == 409 and "not recorded" in refused  # version 1's hash: the link now decides version 2
        status, done = _post(link, {"decision": "approve", "reviewed_hash": v2["proposal_hash"]})
        assert status == 200 and "applied, once" in done, done
        status, _ = _post(link, {"decision": "approve", "reviewed_hash": v2["proposal_hash"]})
        assert status in (200, 409)  # a second click records nothing new
    finally:
        served.stop()
    after = json.loads(cli("status", "--data-dir", str(data_dir), "--json").stdout)
    assert after["plan_applied_count"] == 1
    resumed = cli("resume", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"], "--decision",
                  "approve", "--reviewed-hash", v1, "--approver", "ana@example.com")  # fmt: skip
    assert resumed.returncode == 3 and resumed["REFUSED"] == "SUPERSEDED"
    shop = json.loads(cli("shop", "show", "--data-dir", str(data_dir), "--json").stdout)
    standard = next(o for o in shop["orders"] if o["id"] == "STANDARD-100")
    assert standard["schedule"] == [{"machine": "EMB-01", "day": "2026-08-12", "minutes": 360}]


def test_a_get_or_head_with_the_forms_fields_changes_nothing_and_a_note_may_start_with_a_dash(started: Any) -> None:
    port = free_port()
    data_dir, run = started("--approvers", APPROVERS, link_base=f"http://127.0.0.1:{port}/approve")
    served = Served(data_dir, port)
    link, v1 = run["APPROVAL_URL_1"], run["PROPOSAL_HASH"]
    fields = {"decision": "revise", "reviewed_hash": v1, "keep": "STANDARD-100", "note": "x"}
    try:
        before = (fingerprint(data_dir), approval_rows(data_dir))
        for method in ("GET", "HEAD"):  # a mail scanner fetching the form's fields as a link changes nothing
            with urlopen(Request(f"{link}&{urlencode(fields)}", method=method), timeout=20) as response:
                assert response.status == 200
        assert (fingerprint(data_dir), approval_rows(data_dir)) == before
        # Each value reaches the revision as a value, never as a flag of the process that plans it.
        note = "--approver=eve: -the customer called"
        status, made = _post(link, {**fields, "note": note, "overtime": "EMB-01:2026-08-12:120"})
        assert status == 200 and "Version 2" in made, made
    finally:
        served.stop()
    shown = json.loads(cli("status", "--data-dir", str(data_dir), "--json").stdout)
    v2 = next(a for a in shown["approvals"] if a["version"] == 2)
    revised = json.loads(cli("show", "--data-dir", str(data_dir), "--checkpoint", v2["checkpoint_id"], "--json").stdout)
    assert revised["proposal"]["revision"]["guidance"]["note"] == note
    assert revised["proposal"]["revision"]["given_by"] == "ana@example.com"
