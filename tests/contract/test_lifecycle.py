"""Start, exit, resume in a fresh process: approve and reject for every reference scenario."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from production_orchestrator.domain.scenarios import SCENARIOS
from tests.support import localstore
from tests.support.clidriver import cli
from tests.support.refusal_cases import Pending, start_into

SCENARIO_NAMES = sorted(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_approve_applies_exactly_the_reviewed_plan_once(scenario: str, fresh: Callable[..., Pending]) -> None:
    run = fresh(scenario)
    digest_at_interrupt = localstore.shop_state(run.data_dir)["digest"]
    resumed = run.resume("approve", "--interrupt-id", run.interrupt_id, "--session-id", run.session_id)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.values["DECISION"] == "approved"
    assert resumed.values["STATE_REVISION"] == "2"
    assert resumed.values["PLAN_APPLIED_COUNT"] == "1"
    assert resumed.values["START_PID"] != resumed.values["RESUME_PID"]
    assert localstore.application_count(run.data_dir) == 1
    state = localstore.shop_state(run.data_dir)
    assert state["revision"] == 2 and state["digest"] != digest_at_interrupt
    types = localstore.audit_types(run.data_dir)
    assert types.count("plan_applied") == 1
    assert types.index("approval_requested") < types.index("decision_recorded") < types.index("plan_applied")
    assert localstore.rows(run.data_dir, "applications")[0][0] == run.proposal_hash


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_reject_changes_nothing_in_the_shop(scenario: str, fresh: Callable[..., Pending]) -> None:
    run = fresh(scenario)
    before = localstore.shop_state(run.data_dir)
    resumed = run.resume("reject", "--reason", "customer called to cancel")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.values["DECISION"] == "rejected"
    assert resumed.values["STATE_REVISION"] == "1"
    assert resumed.values["PLAN_APPLIED_COUNT"] == "0"
    assert localstore.shop_state(run.data_dir) == before
    assert localstore.application_count(run.data_dir) == 0
    types = localstore.audit_types(run.data_dir)
    assert "plan_applied" not in types and "plan_rejected" in types
    decisions = localstore.rows(run.data_dir, "decisions")
    assert json.loads(decisions[0][1])["decision"]["reason"] == "customer called to cancel"


def test_start_prints_the_pinned_keys_and_audits_every_tool(fresh: Callable[..., Pending]) -> None:
    run = fresh("rush-order")
    assert set(dict(run.start_values)) >= {"SESSION_ID", "CHECKPOINT_ID", "INTERRUPT_ID", "PROPOSAL_HASH"}
    assert len(run.proposal_hash) == 64 and run.interrupt_id.startswith("v1:before_tool_call:")
    types = localstore.audit_types(run.data_dir)
    assert types.count("tool_called") == 7
    assert types[-1] == "approval_requested"
    assert localstore.shop_state(run.data_dir)["revision"] == 1


def test_same_scenario_on_a_fresh_shop_gives_the_same_hash(templates: Callable[[str], Pending], tmp_path: Path) -> None:
    again = start_into(tmp_path / "again", "rush-order")
    assert again.proposal_hash == templates("rush-order").proposal_hash
    assert again.session_id != templates("rush-order").session_id


def test_second_start_gets_its_own_checkpoint_and_the_order_waits_beside_the_shop(
    fresh: Callable[..., Pending],
) -> None:
    run = fresh("rush-order")
    second = run.cli("start", "--scenario", "rush-order")
    assert second.returncode == 0, second.stderr
    assert second.values["CHECKPOINT_ID"] != run.checkpoint_id
    assert second.values["PROPOSAL_HASH"] == run.proposal_hash
    status = json.loads(run.cli("status", "--json").stdout)
    assert [a["status"] for a in status["approvals"]] == ["pending", "pending"]
    with localstore._connect(run.data_dir) as conn:
        (state,) = conn.execute("SELECT state FROM shop").fetchone()
    assert [o["id"] for o in json.loads(state)["orders"]].count("RUSH-200") == 0  # held with the runs
    shown = json.loads(run.cli("shop", "show", "--json").stdout)
    assert [p["order"] for p in shown["pending"]] == ["RUSH-200", "RUSH-200"]


def test_another_scenario_on_a_seeded_shop_is_refused(fresh: Callable[..., Pending]) -> None:
    run = fresh("rush-order")
    before = localstore.fingerprint(run.data_dir)
    other = run.cli("start", "--scenario", "team-jerseys")
    assert other.returncode == 2
    assert "rush-order" in other.stderr and "Traceback" not in other.stderr
    assert localstore.fingerprint(run.data_dir) == before


def test_show_and_status_describe_the_pending_plan(fresh: Callable[..., Pending]) -> None:
    run = fresh("rush-order")
    shown = run.cli("show", "--checkpoint", run.checkpoint_id)
    assert shown.returncode == 0
    for expected in ("RUSH-200", "STANDARD-100", "THREAD-RED-40", run.proposal_hash, "short by 600"):
        assert expected in shown.stdout
    status = json.loads(run.cli("status", "--json").stdout)
    assert status["revision"] == 1 and status["plan_applied_count"] == 0
    assert status["approvals"][0]["status"] == "pending"


@pytest.mark.parametrize(
    "args",
    [
        ("start", "--scenario", "no-such-scenario"),
        ("start", "--approval-window", "forever"),
        ("resume", "--checkpoint", "ckpt-x", "--decision", "approve", "--reviewed-hash", "0" * 64),
        ("resume", "--checkpoint", "ckpt-" + "0" * 32, "--decision", "approve", "--reviewed-hash", "abc"),
        ("resume", "--checkpoint", "ckpt-" + "0" * 32, "--decision", "maybe", "--reviewed-hash", "0" * 64),
        ("show", "--checkpoint", "../../etc/passwd"),
        ("shop", "set-inventory", "RED", "5"),
        ("shop", "set-inventory", "THREAD-RED-40", "-5"),
    ],
)
def test_bad_arguments_are_one_clear_line(args: tuple[str, ...], fresh: Callable[..., Pending]) -> None:
    run = fresh("rush-order")
    before = localstore.fingerprint(run.data_dir)
    result = run.cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error:")
    assert localstore.fingerprint(run.data_dir) == before


def test_missing_or_unreadable_data_dir_is_a_clear_error(tmp_path: Path) -> None:
    missing = cli("status", "--data-dir", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no shop" in missing.stderr
    assert not (tmp_path / "nope").exists()
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "shop.sqlite3").write_bytes(b"this is not a database" * 100)
    broken = cli("status", "--data-dir", str(junk))
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
