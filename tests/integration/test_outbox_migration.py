"""A data dir from before approval mail joined the outbox: its ``approval_mail`` rows move into the outbox when a
store first opens it (one transaction, the table dropped), keep their key and status, and the pipeline sees
them; a row that cannot be read stops the move and nothing moves."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from production_orchestrator.adapters.local.sqlite_store import SqliteShopStore
from tests.unit.domain.test_outbox_record import V1_MAIL, V1_PLAN

LEGACY = """
CREATE TABLE approval_mail (seq INTEGER PRIMARY KEY AUTOINCREMENT, mail_key TEXT NOT NULL UNIQUE, raw TEXT NOT NULL);
"""


def _legacy_dir(tmp_path: Path, *mails: dict[str, object]) -> Path:
    db = tmp_path / "shop.sqlite3"
    SqliteShopStore(db).close()
    with sqlite3.connect(db) as conn:
        conn.executescript(LEGACY)
        conn.execute(
            "INSERT INTO outbox (msg_key, proposal_hash, raw) VALUES (?, ?, ?)", ("a" * 64 + "#02", "a" * 64, V1_PLAN)
        )
        for n, mail in enumerate(mails):
            conn.execute("INSERT INTO approval_mail (mail_key, raw) VALUES (?, ?)", (f"k{n}", json.dumps(mail)))
    return db


def _tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_old_approval_mail_moves_into_the_outbox_once_and_old_plan_rows_stay_as_stored(tmp_path: Path) -> None:
    reminder = {**V1_MAIL, "kind": "reminder", "nonce": "", "point": "24h", "status": "queued", "transport_id": "",
                "sent_at": ""}  # fmt: skip
    db = _legacy_dir(tmp_path, V1_MAIL, reminder)
    store = SqliteShopStore(db)
    messages = store.outbox_messages()
    assert [(m.kind, m.status, m.schema_version) for m in messages] == [
        ("customer", "queued", 1), ("request", "sent", 2), ("reminder", "queued", 2)
    ]  # fmt: skip
    assert "approval_mail" not in _tables(db)
    with sqlite3.connect(db) as conn:
        (raw,) = conn.execute("SELECT raw FROM outbox WHERE proposal_hash != ''").fetchone()
    assert raw == V1_PLAN  # not rewritten
    assert SqliteShopStore(db).outbox_messages() == messages  # a second open moves nothing


def test_an_unreadable_old_row_stops_the_move_and_nothing_moves(tmp_path: Path) -> None:
    db = _legacy_dir(tmp_path, V1_MAIL, {**V1_MAIL, "nonce": "d" * 32, "schema_version": 7})
    with pytest.raises(ValueError, match="schema version 7"):
        SqliteShopStore(db)
    assert "approval_mail" in _tables(db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone() == (1,)
