"""What the CLI says: ``--json`` on start, resume, show and status (KEY=value stays the default), refusals in
JSON too, ``show`` leading with the approval's status, ``history``, and ``start`` saying what to do next."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support import localstore
from tests.support.clidriver import Run, cli
from tests.support.refusal_cases import Pending


def _json(run: Run) -> Any:
    assert run.returncode in (0, 3), run.stderr
    return json.loads(run.stdout)  # the whole of stdout is one JSON document


def test_start_json_is_one_object_with_every_value(tmp_path: Path) -> None:
    run = cli("start", "--data-dir", str(tmp_path / "d"), "--approvers", "ana@example.com,ben", "--json")
    values = _json(run)
    assert list(values)[:4] == ["session_id", "checkpoint_id", "interrupt_id", "proposal_hash"]
    assert values["stop_reason"] == "interrupt" and len(values["proposal_hash"]) == 64
    # ana has an address: her link waits in the outbox (never on stdout); ben's is printed, as before.
    assert values["approvers"][0] == {"approver": "ana@example.com", "sent": "outbox"}
    assert values["approvers"][1]["approver"] == "ben"
    assert values["approval_url"] == values["approvers"][1]["approval_url"]
    assert values["approval_url"].startswith("http://127.0.0.1:8765/approve?a=appr-")
    assert "next:" in run.stderr and "outbox send" in run.stderr


def test_start_prints_key_values_and_what_to_do_next(pending: Callable[..., Pending]) -> None:
    run = pending()
    start = dict(run.start_values)
    assert {"CHECKPOINT_ID", "PROPOSAL_HASH", "APPROVAL_URL", "APPROVER_1", "APPROVAL_URL_1"} <= set(start)
    fresh = cli(
        "start", "--data-dir", str(run.data_dir.parent / "other"), "--link-base", "http://127.0.0.1:9100/approve"
    )
    assert fresh.returncode == 0, fresh.stderr
    lines = fresh.stderr.splitlines()
    assert lines[0].startswith("next: run `production-orchestrator serve --data-dir ")
    assert "--port 9100" in lines[0] and "APPROVAL_URL" in lines[0]
    assert f"show --data-dir {run.data_dir.parent / 'other'} --checkpoint {fresh['CHECKPOINT_ID']}" in fresh.stderr
    assert "resume" in fresh.stderr and all("=" not in line.split()[0] for line in lines)


def test_show_states_the_status_first_then_the_plan(pending: Callable[..., Pending]) -> None:
    run = pending()
    first = run.cli("show", "--checkpoint", run.checkpoint_id).stdout.splitlines()[0]
    assert first.startswith("Status: pending (waiting for a decision until ")
    document = _json(run.cli("show", "--checkpoint", run.checkpoint_id, "--json"))
    assert next(iter(document)) == "status" and document["status"] == "pending"
    assert document["proposal_hash"] == run.proposal_hash
    assert document["proposal"]["target_order"]["id"] == "RUSH-200"
    assert document["checkpoint"]["checkpoint_id"] == run.checkpoint_id
    assert run.resume("reject", "--reason", "wait for the delivery").returncode == 0
    after = run.cli("show", "--checkpoint", run.checkpoint_id)
    assert after.stdout.startswith("Status: rejected (rejected by shop-owner; nothing was applied)")
    assert _json(run.cli("show", "--checkpoint", run.checkpoint_id, "--json"))["status"] == "rejected"


def test_show_says_expired_and_superseded(pending: Callable[..., Pending]) -> None:
    short = pending("--approval-window", "1s")
    time.sleep(1.2)  # past the one-second window, however fast the start returned
    assert _json(short.cli("show", "--checkpoint", short.checkpoint_id, "--json"))["status"] == "expired"
    run = pending()
    assert run.cli("shop", "set-inventory", "THREAD-RED-40", "0").returncode == 0
    again = run.cli("repropose", "--checkpoint", run.checkpoint_id, "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["superseded_approval_id"]
    assert _json(run.cli("show", "--checkpoint", run.checkpoint_id, "--json"))["status"] == "superseded"


def test_resume_json_and_a_refusal_in_json(pending: Callable[..., Pending]) -> None:
    run = pending()
    done = _json(run.resume("approve", "--json"))
    assert done["decision"] == "approved" and done["outcome"] == "applied"
    assert (done["state_revision"], done["plan_applied_count"]) == (2, 1)
    assert done["checkpoint_id"] == run.checkpoint_id
    before = localstore.fingerprint(run.data_dir)
    again = run.resume("approve", "--json")
    assert again.returncode == 3
    assert list(json.loads(again.stdout)) == ["refused", "message"]
    assert json.loads(again.stdout)["refused"] == "ALREADY_DECIDED"
    assert again.stderr.startswith("refused: ")
    assert localstore.fingerprint(run.data_dir) == before


def test_key_value_lines_stay_the_default(pending: Callable[..., Pending]) -> None:
    run = pending()
    done = run.resume("approve")
    assert done.stdout.splitlines()[:3] == [
        f"CHECKPOINT_ID={run.checkpoint_id}",
        "DECISION=approved",
        "OUTCOME=applied",
    ]
    assert done["STATE_REVISION"] == "2" and done["PLAN_APPLIED_COUNT"] == "1"


def test_status_json(pending: Callable[..., Pending]) -> None:
    run = pending()
    report = _json(run.cli("status", "--json"))
    assert (report["revision"], report["plan_applied_count"]) == (1, 0)
    assert [(a["checkpoint_id"], a["status"]) for a in report["approvals"]] == [(run.checkpoint_id, "pending")]


def test_history_lists_decisions_with_approver_reason_and_time(pending: Callable[..., Pending]) -> None:
    run = pending()
    assert run.resume("reject", "--reason", "the customer called to cancel").returncode == 0
    lines = run.cli("history").stdout.splitlines()
    # A decision typed at resume is a vote on the run's approval (with its receipt), then the decision.
    assert [line.split()[1] for line in lines] == ["requested", "vote", "decision", "rejected"]
    # people read the shop's clock: the rush-order shop keeps Europe/Berlin time, offset shown
    assert all(line.split()[0].endswith(("+01:00", "+02:00")) for line in lines), lines
    decision = lines[2]
    assert run.checkpoint_id in decision and "shop-owner reject" in decision
    assert '"the customer called to cancel"' in decision and '"the customer called to cancel"' in lines[1]
    entries = _json(run.cli("history", "--json"))["history"]
    assert entries[2]["approver"] == "shop-owner" and entries[2]["decision"] == "reject"
    assert entries[2]["reason"] == "the customer called to cancel" and entries[2]["at"].endswith("Z")
    assert _json(run.cli("audit", "show", "--json")) == {"history": entries}
    other = _json(run.cli("history", "--checkpoint", "ckpt-" + "0" * 32, "--json"))
    assert other == {"history": []}
