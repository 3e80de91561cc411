"""One test per refusal code against a real checkpoint: exit 3, the code, a message, nothing written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import localstore
from tests.support.clidriver import Run
from tests.support.refusal_cases import (
    CASES,
    EXPIRING_WINDOW,
    Pending,
    observed_code,
    refusals_logged,
    start_into,
    tamper,
)


def assert_refused(run: Pending, result: Run, code: str, before: dict[str, str]) -> None:
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert result.stdout.strip() == f"REFUSED={code}" and observed_code(result) == code
    assert result.stderr.startswith("refused: ") and "Traceback" not in result.stderr
    assert localstore.fingerprint(run.data_dir) == before
    assert refusals_logged(run.data_dir)[-1]["code"] == code


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_refusal_code(code: str, fresh: Callable[..., Pending], tmp_path: Path) -> None:
    if code == "EXPIRED":
        run = start_into(tmp_path / "short", "rush-order", "--approval-window", EXPIRING_WINDOW)
    else:
        run = fresh()
    args = CASES[code](run)
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.cli(*args), code, before)


def test_checkpoint_missing(fresh: Callable[..., Pending]) -> None:
    run = fresh()
    before = localstore.fingerprint(run.data_dir)
    missing = run.resume_args()
    missing = (*missing[:2], "ckpt-" + "0" * 32, *missing[3:])
    assert_refused(run, run.cli(*missing), "CHECKPOINT_INVALID", before)


@pytest.mark.parametrize(
    ("old", "new"),
    [('"schema_version":1', '"schema_version":9'), ('{"schema', "[")],
    ids=["unknown-schema", "malformed"],
)
def test_checkpoint_unreadable(old: str, new: str, fresh: Callable[..., Pending]) -> None:
    run = fresh()
    sql = "UPDATE checkpoints SET raw = replace(raw, ?, ?) WHERE checkpoint_id = ?"
    tamper(run.data_dir, sql, old, new, run.checkpoint_id)
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "CHECKPOINT_INVALID", before)


def test_interrupt_not_pending_in_the_stored_session(fresh: Callable[..., Pending]) -> None:
    run = fresh()
    agent_json = next((run.data_dir / "sessions").rglob("agent.json"))
    data = json.loads(agent_json.read_text())
    data["_internal_state"]["interrupt_state"]["activated"] = False
    agent_json.write_text(json.dumps(data))
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "INTERRUPT_MISMATCH", before)


def test_stored_session_gone(fresh: Callable[..., Pending]) -> None:
    run = fresh()
    for path in sorted((run.data_dir / "sessions").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "SESSION_MISMATCH", before)


@pytest.mark.parametrize(
    "flags", [("--region", "eu-west-1"), ("--profile", "payroll-admin"), ("--provider", "bedrock")]
)
def test_provider_mismatch_variants(flags: tuple[str, str], fresh: Callable[..., Pending]) -> None:
    run = fresh()
    before = localstore.fingerprint(run.data_dir)
    result = run.resume("approve", *flags)
    assert_refused(run, result, "PROVIDER_MISMATCH", before)
    assert "payroll-admin" not in result.stderr


def test_proposal_missing(fresh: Callable[..., Pending]) -> None:
    run = fresh()
    tamper(run.data_dir, "DELETE FROM proposals WHERE proposal_hash = ?", run.proposal_hash)
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "PROPOSAL_INTEGRITY", before)


@pytest.mark.parametrize("first", ["approve", "reject"])
def test_replay_after_a_decision(first: str, fresh: Callable[..., Pending]) -> None:
    run = fresh()
    assert run.resume(first).returncode == 0
    before = localstore.fingerprint(run.data_dir)
    for again in ("approve", "reject"):
        assert_refused(run, run.resume(again), "ALREADY_DECIDED", before)
    assert localstore.application_count(run.data_dir) == (1 if first == "approve" else 0)


def test_expired_shows_in_status(tmp_path: Path) -> None:
    run = start_into(tmp_path / "short", "rush-order", "--approval-window", EXPIRING_WINDOW)
    CASES["EXPIRED"](run)
    status = json.loads(run.cli("status", "--json").stdout)
    assert status["approvals"][0]["status"] == "expired"
