"""The rehearsal clock (--now / PO_NOW) through the installed CLI: every command reads the same clock, the data
dir keeps the latest time it has seen, and a clock earlier than that is refused (CLOCK_BEHIND) with nothing
written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.clidriver import cli

START = "2026-08-12T08:00:00Z"


def _started(data_dir: Path) -> dict[str, str]:
    run = cli("--now", START, "start", "--data-dir", str(data_dir), "--scenario", "rush-order")
    assert run.returncode == 0, run.stderr
    return {"checkpoint": run["CHECKPOINT_ID"], "hash": run["PROPOSAL_HASH"]}


def test_status_reads_the_rehearsal_clock_and_the_data_dir_keeps_the_latest_time(tmp_path: Path) -> None:
    data_dir = tmp_path / "d"
    started = _started(data_dir)
    pending = cli("--now", "2026-08-12T10:00:00Z", "status", "--data-dir", str(data_dir))
    assert pending.returncode == 0 and "pending" in pending.stdout, pending.stdout
    later = cli("status", "--data-dir", str(data_dir), environ={"PO_NOW": "2026-08-20T08:00:00Z"})
    assert later.returncode == 0 and f"{started['checkpoint']}  expired" in later.stdout, later.stdout
    assert json.loads((data_dir / "clock.json").read_text())["latest"] == "2026-08-20T08:00:00Z"


def test_a_clock_earlier_than_the_data_dir_has_seen_is_refused_with_nothing_written(tmp_path: Path) -> None:
    data_dir = tmp_path / "d"
    started = _started(data_dir)
    assert cli("--now", "2026-08-20T08:00:00Z", "status", "--data-dir", str(data_dir)).returncode == 0
    db = (data_dir / "shop.sqlite3").read_bytes()
    back = cli(
        "--now", "2026-08-12T09:00:00Z", "resume", "--data-dir", str(data_dir), "--checkpoint", started["checkpoint"],
        "--decision", "approve", "--reviewed-hash", started["hash"], "--approver", "owner@example.com",
    )  # fmt: skip
    assert back.returncode == 2 and "CLOCK_BEHIND" in back.stderr, back.stderr
    assert (data_dir / "shop.sqlite3").read_bytes() == db
    assert json.loads((data_dir / "clock.json").read_text())["latest"] == "2026-08-20T08:00:00Z"


def test_a_decision_the_next_day_on_the_rehearsal_clock_is_stale_by_time(tmp_path: Path) -> None:
    data_dir = tmp_path / "d"
    started = _started(data_dir)
    late = cli(
        "--now", "2026-08-13T09:00:00Z", "resume", "--data-dir", str(data_dir), "--checkpoint", started["checkpoint"],
        "--decision", "approve", "--reviewed-hash", started["hash"], "--approver", "owner@example.com",
    )  # fmt: skip
    assert late.returncode != 0 and "STALE_DOMAIN_STATE" in (late.stdout + late.stderr)
    assert "a day that has passed (today is 2026-08-13 in Europe/Berlin)" in late.stderr


def test_a_bad_clock_is_a_usage_error() -> None:
    run = cli("--now", "yesterday", "status", "--data-dir", "/nonexistent-po-dir")
    assert run.returncode == 2 and "not a time like" in run.stderr, run.stderr
