"""Read-only views of a local data dir, for evidence and tests: a fingerprint of everything stored."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

DB_NAME = "shop.sqlite3"
TABLES = ("shop", "proposals", "checkpoints", "decisions", "applications", "audit")


def _connect(data_dir: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{data_dir / DB_NAME}?mode=ro", uri=True)


def rows(data_dir: Path, table: str) -> list[tuple[Any, ...]]:
    """Every row of one table, in a stable order."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table}")
    with _connect(data_dir) as conn:
        return sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)


def fingerprint(data_dir: Path) -> dict[str, str]:
    """A hash per table and one over the session files: equal fingerprints mean nothing was written."""
    result = {table: hashlib.sha256(repr(rows(data_dir, table)).encode()).hexdigest() for table in TABLES}
    sessions = hashlib.sha256()
    for path in sorted((data_dir / "sessions").rglob("*")):
        if path.is_file():
            sessions.update(str(path.relative_to(data_dir)).encode())
            sessions.update(path.read_bytes())
    result["sessions"] = sessions.hexdigest()
    return result


def audit_types(data_dir: Path) -> list[str]:
    """Audit event types, oldest first."""
    with _connect(data_dir) as conn:
        return [json.loads(raw)["event_type"] for (raw,) in conn.execute("SELECT raw FROM audit ORDER BY seq")]


def shop_state(data_dir: Path) -> dict[str, Any]:
    """Revision and digest of the stored shop."""
    with _connect(data_dir) as conn:
        revision, digest = conn.execute("SELECT revision, digest FROM shop WHERE id = 1").fetchone()
    return {"revision": int(revision), "digest": str(digest)}


def application_count(data_dir: Path) -> int:
    """Plan applications recorded."""
    return len(rows(data_dir, "applications"))
