"""Who may decide, receipts, quorum and GET/HEAD safety, through the shared endpoint on real SQLite stores.

Each test starts from a run the real CLI started; the endpoint is the one `serve` and the Lambda use, with
a recording callback in place of the resume process (the resume is exercised by the CLI tests below).
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from production_orchestrator.approval_web.endpoint import DecisionEndpoint
from production_orchestrator.cli.root import local_approvals, local_mac_key, local_runtime, utc_now
from tests.support.clidriver import Run, cli
from tests.support.localstore import fingerprint
from tests.support.net import APPROVERS

SOD = ("--approvers", APPROVERS, "--requester", "ana@example.com", "--separation-of-duties")
QUORUM = ("--approvers", APPROVERS, "--quorum", "2", "--quorum-above", "100")


class Recorder:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        self.calls.append(output)


def endpoint(data_dir: Path, **overrides: Any) -> tuple[DecisionEndpoint, Recorder]:
    recorder = Recorder()
    rt = local_runtime(data_dir, create=False)
    made = DecisionEndpoint(
        rt=dataclasses.replace(
            rt,
            approvals=local_approvals(data_dir),
            callback=recorder,
            clock=utc_now,
            receipt_key=local_mac_key(data_dir),
        ),
        **overrides,
    )
    return made, recorder


def link(run: Run, number: int) -> dict[str, str]:
    query = parse_qs(urlsplit(run[f"APPROVAL_URL_{number}"]).query)
    return {"a": query["a"][0], "s": query["s"][0]}


def form(run: Run, decision: str, reason: str = "") -> dict[str, str]:
    return {"decision": decision, "reviewed_hash": run["PROPOSAL_HASH"], "reason": reason}


def approval_rows(data_dir: Path) -> list[Any]:
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        return conn.execute("SELECT raw FROM approvals ORDER BY seq").fetchall()


def test_get_and_head_burn_nothing(started: Any) -> None:
    data_dir, run = started(*SOD)
    made, recorder = endpoint(data_dir)
    before = (fingerprint(data_dir), approval_rows(data_dir))
    for _ in range(3):
        page = made.show(link(run, 2))
        assert page.status == 200 and "RUSH-200" in page.body
    assert (fingerprint(data_dir), approval_rows(data_dir)) == before
    assert recorder.calls == []
    # The link still decides after any number of prefetches.
    assert made.post(link(run, 2), form(run, "reject", "not today")).label == "recorded"


def test_a_decision_from_someone_not_on_the_list_is_refused(started: Any) -> None:
    data_dir, run = started(*SOD)
    made, recorder = endpoint(data_dir, allowed_approvers=["ana@example.com", "cy@example.com"])
    before = approval_rows(data_dir)
    page = made.post(link(run, 2), form(run, "approve"))  # ben was removed from the configured list
    assert page.status == 403 and "not recorded" in page.body.lower()
    assert approval_rows(data_dir) == before and recorder.calls == []
    refused = cli(
        "resume", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"], "--decision", "approve",
        "--reviewed-hash", run["PROPOSAL_HASH"], "--approver", "mallory@example.com",
    )  # fmt: skip
    assert refused.returncode == 3 and refused["REFUSED"] == "UNAUTHORIZED_APPROVER"


def test_the_requester_may_not_approve_their_own_plan(started: Any) -> None:
    data_dir, run = started(*SOD)
    made, recorder = endpoint(data_dir)
    shown = made.show(link(run, 1))
    assert "Approve this exact plan" not in shown.body and "separation of duties" in shown.body
    page = made.post(link(run, 1), form(run, "approve"))
    assert page.status == 403 and recorder.calls == []
    refused = cli(
        "resume", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"], "--decision", "approve",
        "--reviewed-hash", run["PROPOSAL_HASH"], "--approver", "ana@example.com",
    )  # fmt: skip
    assert refused["REFUSED"] == "UNAUTHORIZED_APPROVER"
    # Rejecting their own plan is allowed.
    assert made.post(link(run, 1), form(run, "reject", "withdrawn")).label == "recorded"


def test_a_large_purchase_needs_two_approvals_and_one_reject_decides(started: Any) -> None:
    data_dir, run = started(*QUORUM)  # rush-order procures 600 > 100
    made, recorder = endpoint(data_dir)
    first = made.post(link(run, 1), form(run, "approve"))
    assert first.label == "vote_recorded" and "1 given" in first.body and recorder.calls == []
    assert made.post(link(run, 1), form(run, "approve")).label == "closed"  # the same approver again
    second = made.post(link(run, 2), form(run, "approve"))
    assert second.label == "recorded" and len(recorder.calls) == 1
    assert made.post(link(run, 3), form(run, "reject", "late")).label == "closed"

    other, other_run = started(*QUORUM)
    made, recorder = endpoint(other)
    assert made.post(link(other_run, 1), form(other_run, "approve")).label == "vote_recorded"
    assert made.post(link(other_run, 3), form(other_run, "reject", "too much thread")).label == "recorded"
    assert len(recorder.calls) == 1


def test_a_rejection_needs_a_reason(started: Any) -> None:
    data_dir, run = started(*SOD)
    made, _ = endpoint(data_dir)
    assert made.post(link(run, 2), form(run, "reject", "  ")).status == 400
    assert made.post(link(run, 2), form(run, "reject", "no")).label == "recorded"


def _decided(started: Any) -> tuple[Path, Run]:
    data_dir, run = started(*SOD)
    made, recorder = endpoint(data_dir)
    assert made.post(link(run, 2), form(run, "reject", "wait for the delivery")).label == "recorded"
    assert recorder.calls
    return data_dir, run


def _resume_approval(data_dir: Path, run: Run) -> Run:
    return cli(
        "resume-approval", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"],
        "--approval", run["APPROVAL_ID"],
    )  # fmt: skip


def test_an_intact_receipt_resumes(started: Any) -> None:
    data_dir, run = _decided(started)
    done = _resume_approval(data_dir, run)
    assert done.returncode == 0, done.stderr
    assert done["DECISION"] == "rejected" and done["STATE_REVISION"] == "1"


def test_a_receipt_altered_in_storage_is_refused(started: Any) -> None:
    for old, new in (('"reason":"wait for the delivery"', '"reason":"ship it"'), ('"mac":"', '"mac":"0')):
        data_dir, run = _decided(started)
        with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
            raw = conn.execute("SELECT raw FROM approvals").fetchone()[0]
            assert old in raw
            conn.execute("UPDATE approvals SET raw = ?", (raw.replace(old, new, 1),))
        before = fingerprint(data_dir)
        refused = _resume_approval(data_dir, run)
        assert refused.returncode == 3 and refused["REFUSED"] == "RECEIPT_INVALID", refused.stderr
        assert fingerprint(data_dir) == before


def test_the_receipt_key_file_is_private(started: Any) -> None:
    data_dir, _ = _decided(started)
    assert (data_dir / "receipt.key").stat().st_mode & 0o777 == 0o600


def test_stale_plan_shows_what_changed_and_proposes_again(started: Any) -> None:
    data_dir, run = started(*SOD)
    assert cli("shop", "--data-dir", str(data_dir), "set-inventory", "THREAD-RED-40", "0").returncode == 0
    made, _ = endpoint(data_dir)
    page = made.show(link(run, 2))
    assert "Inventory THREAD-RED-40: 600 -&gt; 0." in page.body and "Propose again on the current shop" not in page.body
    refused = cli(
        "resume", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"], "--decision", "approve",
        "--reviewed-hash", run["PROPOSAL_HASH"], "--approver", "ben@example.com",
    )  # fmt: skip
    assert refused["REFUSED"] == "STALE_DOMAIN_STATE"
    assert "Inventory THREAD-RED-40: 600 -> 0." in refused.stderr and "repropose" in refused.stderr
    again = cli("repropose", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"])
    assert again.returncode == 0, again.stderr
    assert again["PROPOSAL_HASH"] != run["PROPOSAL_HASH"] and again["SUPERSEDED_APPROVAL_ID"] == run["APPROVAL_ID"]
    # The same link now opens the new plan; the old checkpoint shows as superseded.
    fresh_page = made.show(link(run, 2))
    assert fresh_page.status == 200 and again["PROPOSAL_HASH"] in fresh_page.body
    status = cli("status", "--data-dir", str(data_dir))
    assert f"{run['CHECKPOINT_ID']}  superseded" in status.stdout
