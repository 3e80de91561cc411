"""`audit verify` on a real data dir: intact after a full run; an edit, a deletion or a reordering of one
stored event is found, naming the link."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.support.clidriver import Run, cli
from tests.support.net import APPROVERS


def _verify(data_dir: Path) -> Run:
    return cli("audit", "verify", "--data-dir", str(data_dir))


def _decided(started: Any) -> Path:
    data_dir, run = started("--approvers", APPROVERS)
    done = cli(
        "resume", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"], "--decision", "approve",
        "--reviewed-hash", run["PROPOSAL_HASH"], "--approver", "ben@example.com",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return data_dir


def _rows(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    return [(int(seq), str(raw)) for seq, raw in conn.execute("SELECT seq, raw FROM audit ORDER BY seq")]


def test_the_chain_of_a_full_run_is_intact(started: Any) -> None:
    data_dir = _decided(started)
    report = _verify(data_dir)
    assert report.returncode == 0 and report["AUDIT_CHAIN"] == "intact"
    assert int(report["AUDIT_EVENTS"]) >= 10
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        events = [json.loads(raw) for _, raw in _rows(conn)]
    votes = [e for e in events if e["event_type"] == "approval_vote"]
    # A CLI decision is a vote on the run's approval, with its receipt, like a page decision.
    assert len(votes) == 1 and votes[0]["detail"]["via"] == "cli" and votes[0]["detail"]["receipt"]["mac"]
    assert all(e["mac"] for e in events)  # every link of the chain is MACed


def _edit(conn: sqlite3.Connection) -> None:
    seq, raw = _rows(conn)[3]
    data = json.loads(raw)
    data["detail"]["tampered"] = True
    conn.execute("UPDATE audit SET raw = ? WHERE seq = ?", (json.dumps(data), seq))


def _delete(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM audit WHERE seq = ?", (_rows(conn)[3][0],))


def _reorder(conn: sqlite3.Connection) -> None:
    (seq_a, raw_a), (seq_b, raw_b) = _rows(conn)[3:5]
    conn.execute("UPDATE audit SET raw = ? WHERE seq = ?", (raw_b, seq_a))
    conn.execute("UPDATE audit SET raw = ? WHERE seq = ?", (raw_a, seq_b))


@pytest.mark.parametrize(("tamper", "broken_at"), [(_edit, "4"), (_delete, "4"), (_reorder, "4")])
def test_tampering_with_one_event_names_the_link(started: Any, tamper: Any, broken_at: str) -> None:
    data_dir = _decided(started)
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        tamper(conn)
    report = _verify(data_dir)
    assert report.returncode == 5 and report["AUDIT_CHAIN"] == "broken"
    assert report["BROKEN_AT"] == broken_at, report.stderr
    assert f"event #{broken_at}" in report.stderr


def _recompute(conn: sqlite3.Connection, change: Any) -> int:
    """Rewrite events with ``change`` and recompute every hash link and the head, as someone without the
    key would; returns the seq of the first event changed."""
    from production_orchestrator.domain.approval.audit_chain import chained, event_hash
    from production_orchestrator.domain.records import AuditEvent

    head = None
    first = 0
    for seq, raw in _rows(conn):
        event = AuditEvent.model_validate_json(raw)
        edited = change(event)
        if edited != event and not first:
            first = event.seq
        linked = chained(edited, head)
        if "mac" in type(linked).model_fields:
            linked = linked.model_copy(update={"mac": event.mac})  # the old MAC is all they have
        conn.execute("UPDATE audit SET raw = ? WHERE seq = ?", (linked.model_dump_json(), seq))
        head = (linked.seq, event_hash(linked))
    assert head is not None
    conn.execute("UPDATE audit_head SET seq = ?, hash = ?", head)
    return first


def test_rewriting_who_approved_and_recomputing_the_chain_is_found(started: Any) -> None:
    data_dir = _decided(started)

    def mallory(event: Any) -> Any:
        if event.detail.get("approver") == "ben@example.com":
            return event.model_copy(update={"detail": {**event.detail, "approver": "mallory@example.com"}})
        return event

    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        first = _recompute(conn, mallory)
    report = _verify(data_dir)
    assert report.returncode == 5 and report["AUDIT_CHAIN"] == "broken"
    assert report["BROKEN_SEQ"] == str(first) and "without the key" in report.stderr


def test_a_vote_whose_receipt_no_longer_verifies_is_named_by_its_seq(started: Any) -> None:
    data_dir = _decided(started)
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        raw = conn.execute("SELECT raw FROM approvals").fetchone()[0]
        conn.execute("UPDATE approvals SET raw = ?", (raw.replace('"mac":"', '"mac":"00', 1),))
        vote_seq = next(
            json.loads(raw)["seq"] for _, raw in _rows(conn) if json.loads(raw)["event_type"] == "approval_vote"
        )
    report = _verify(data_dir)
    assert report.returncode == 5 and report["BROKEN_SEQ"] == str(vote_seq)
    assert "receipt" in report.stderr
