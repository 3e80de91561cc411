"""One test per refusal code against a real checkpoint: exit 3, the code, a message, nothing written."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from scripts import localstore
from scripts.clidriver import Run

from tests.contract.conftest import Started, start_into


def tamper(data_dir: Path, sql: str, *params: object) -> None:
    """An out-of-band edit of the store, as an attacker or a bug would make it."""
    with sqlite3.connect(data_dir / localstore.DB_NAME) as conn:
        assert conn.execute(sql, params).rowcount == 1


def assert_refused(run: Started, result: Run, code: str, before: dict[str, str]) -> None:
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert result.stdout.strip() == f"REFUSED={code}"
    assert result.stderr.startswith("refused: ") and "Traceback" not in result.stderr
    assert localstore.fingerprint(run.data_dir) == before
    logged = [json.loads(line) for line in (run.data_dir / "refusals.jsonl").read_text().splitlines()]
    assert logged[-1]["code"] == code


def test_checkpoint_missing(fresh: Callable[..., Started]) -> None:
    run = fresh()
    before = localstore.fingerprint(run.data_dir)
    result = run.cli(
        "resume", "--checkpoint", "ckpt-" + "0" * 32, "--decision", "approve", "--reviewed-hash", run.proposal_hash
    )
    assert_refused(run, result, "CHECKPOINT_INVALID", before)


@pytest.mark.parametrize(
    ("old", "new"),
    [('"start_pid":', '"start_pid":1'), ('"schema_version":1', '"schema_version":9'), ('{"schema', "[")],
    ids=["field-tampered", "unknown-schema", "malformed"],
)
def test_checkpoint_invalid(old: str, new: str, fresh: Callable[..., Started]) -> None:
    run = fresh()
    tamper(
        run.data_dir,
        "UPDATE checkpoints SET raw = replace(raw, ?, ?) WHERE checkpoint_id = ?",
        old,
        new,
        run.checkpoint_id,
    )
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "CHECKPOINT_INVALID", before)


def test_interrupt_mismatch(fresh: Callable[..., Started]) -> None:
    run = fresh()
    before = localstore.fingerprint(run.data_dir)
    other = run.interrupt_id.replace("tooluse-", "tooluse-x")
    assert_refused(run, run.resume("approve", "--interrupt-id", other), "INTERRUPT_MISMATCH", before)


def test_interrupt_not_pending_in_the_stored_session(fresh: Callable[..., Started]) -> None:
    run = fresh()
    agent_json = next((run.data_dir / "sessions").rglob("agent.json"))
    data = json.loads(agent_json.read_text())
    data["_internal_state"]["interrupt_state"]["activated"] = False
    agent_json.write_text(json.dumps(data))
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "INTERRUPT_MISMATCH", before)


def test_session_mismatch(fresh: Callable[..., Started]) -> None:
    run = fresh()
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume("approve", "--session-id", "sess-" + "0" * 32), "SESSION_MISMATCH", before)


def test_stored_session_gone(fresh: Callable[..., Started]) -> None:
    run = fresh()
    for path in sorted((run.data_dir / "sessions").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "SESSION_MISMATCH", before)


@pytest.mark.parametrize(
    "flags",
    [
        ("--model", "another-model"),
        ("--region", "eu-west-1"),
        ("--profile", "payroll-admin"),
        ("--provider", "bedrock"),
    ],
)
def test_provider_mismatch(flags: tuple[str, str], fresh: Callable[..., Started]) -> None:
    run = fresh()
    before = localstore.fingerprint(run.data_dir)
    result = run.resume("approve", *flags)
    assert_refused(run, result, "PROVIDER_MISMATCH", before)
    assert "payroll-admin" not in result.stderr


def test_proposal_integrity(fresh: Callable[..., Started]) -> None:
    run = fresh()
    tamper(
        run.data_dir,
        "UPDATE proposals SET data = CAST(replace(CAST(data AS TEXT), '600', '6000') AS BLOB) WHERE proposal_hash = ?",
        run.proposal_hash,
    )
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "PROPOSAL_INTEGRITY", before)


def test_proposal_missing(fresh: Callable[..., Started]) -> None:
    run = fresh()
    tamper(run.data_dir, "DELETE FROM proposals WHERE proposal_hash = ?", run.proposal_hash)
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "PROPOSAL_INTEGRITY", before)


def test_reviewed_hash_mismatch(fresh: Callable[..., Started]) -> None:
    run = fresh()
    before = localstore.fingerprint(run.data_dir)
    result = run.cli("resume", "--checkpoint", run.checkpoint_id, "--decision", "approve", "--reviewed-hash", "f" * 64)
    assert_refused(run, result, "REVIEWED_HASH_MISMATCH", before)


def test_stale_domain_state(fresh: Callable[..., Started]) -> None:
    run = fresh()
    changed = run.cli("shop", "set-inventory", "THREAD-RED-40", "1500")
    assert changed.returncode == 0, changed.stderr
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "STALE_DOMAIN_STATE", before)
    assert localstore.shop_state(run.data_dir)["revision"] == 1


@pytest.mark.parametrize("first", ["approve", "reject"])
def test_already_decided_replay(first: str, fresh: Callable[..., Started]) -> None:
    run = fresh()
    assert run.resume(first).returncode == 0
    before = localstore.fingerprint(run.data_dir)
    for again in ("approve", "reject"):
        assert_refused(run, run.resume(again), "ALREADY_DECIDED", before)
    assert localstore.application_count(run.data_dir) == (1 if first == "approve" else 0)


def test_expired(tmp_path: Path) -> None:
    run = start_into(tmp_path / "short", "rush-order", "--approval-window", "1s")
    time.sleep(1.2)
    before = localstore.fingerprint(run.data_dir)
    assert_refused(run, run.resume(), "EXPIRED", before)
    status = json.loads(run.cli("status", "--json").stdout)
    assert status["approvals"][0]["status"] == "expired"
