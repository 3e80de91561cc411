"""The runs' tables of the SQLite data dir and their index: what ``status``, ``shop show``, ``order list`` and the
operator's changes read, without reading every run.

    checkpoints (seq, id, raw)  decisions (id, raw)  approvals (id, checkpoint id, seq, raw)
        -> run_index: one row a run, written in the transaction of every write that can open or close it
           (the checkpoint, an approval's insert or change, a decision's claim, take-over and completion)
           seq, created_at            the latest N runs, runs since a day
           open, open_until           the runs that may still hold their request: a partial index

A run is open while a reader could still list it (:func:`openness`): a claimed decision until the resume
completes, a decided approval until the resume claims it, an undecided run or a pending approval until its window
closes (``open_until``). The index is a superset the services judge run by run, so an index row can only make a
run be read, never hide one; what decides a closed run's fate (a completed decision, a rejection, an expiry, a
newer version) is written in the same transaction as its index row.

A data dir from before the index (or a row written around the store) is caught up when the store opens: the
checkpoints past the index's highest seq are indexed then (:func:`catch_up`).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from ...domain.approval.approvals import ApprovalRecord
from ...domain.records import parse_utc
from ..run_lists import recent

RUNS_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    checkpoint_id TEXT NOT NULL UNIQUE,
    raw TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS decisions (checkpoint_id TEXT PRIMARY KEY, raw TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS run_index (
    checkpoint_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    open INTEGER NOT NULL,
    open_until REAL
);
CREATE INDEX IF NOT EXISTS run_index_open ON run_index (seq) WHERE open = 1;
CREATE INDEX IF NOT EXISTS run_index_by_seq ON run_index (seq, created_at);
"""


def _checkpoint_times(raw: str) -> tuple[str, float | None]:
    """(created_at, expires_at in epoch seconds) the checkpoint claims; ("", None) when it cannot be read (the
    run stays in the index: its readers refuse it)."""
    try:
        data = json.loads(raw)
        return str(data.get("created_at", "")), parse_utc(str(data["expires_at"])).timestamp()
    except (ValueError, KeyError, TypeError, AttributeError):
        return "", None


def openness(decision_raw: str | None, approval_raws: list[str], expires: float | None) -> tuple[bool, float | None]:
    """(open, open until: None for no time limit) of a run, from its decision, its approvals (oldest first) and
    its checkpoint's window. A superset of what its readers look for, the clock aside: the open statuses of
    ``services.status.checkpoint_status`` (resuming, decided, no_approval: for as long as they last; pending: in
    its window), the plans waiting for a decision (``services.shop.life.pending_checkpoints``: undecided, in the
    window) and the approvals waiting for a person (``services.status.pending_approval_ages``)."""
    try:
        completed = None if decision_raw is None else json.loads(decision_raw).get("completion") is not None
        approvals = [ApprovalRecord.model_validate_json(raw) for raw in approval_raws]
    except (ValueError, AttributeError):
        return True, None
    if completed is False or (completed is None and (not approvals or approvals[-1].status == "decided")):
        return True, None  # resuming, no_approval, decided: open until a write closes them
    windows = [parse_utc(a.expires_at).timestamp() for a in approvals]
    until = max([w for w in (expires, *windows) if w is not None], default=None)
    if completed is None or any(a.status == "pending" for a in approvals):
        return True, until  # None: a window that cannot be read never closes here
    return False, None


def index_run(conn: sqlite3.Connection, checkpoint_id: str) -> None:
    """Write the run's index row from what is stored (inside the caller's transaction)."""
    row = conn.execute("SELECT seq, raw FROM checkpoints WHERE checkpoint_id = ?", (checkpoint_id,)).fetchone()
    if row is None:
        return  # an approval stored before (or without) its checkpoint: the checkpoint's write indexes it
    created, expires = _checkpoint_times(str(row[1]))
    decision = conn.execute("SELECT raw FROM decisions WHERE checkpoint_id = ?", (checkpoint_id,)).fetchone()
    approvals = conn.execute("SELECT raw FROM approvals WHERE checkpoint_id = ? ORDER BY seq", (checkpoint_id,))
    is_open, until = openness(
        None if decision is None else str(decision[0]), [str(a[0]) for a in approvals.fetchall()], expires
    )
    conn.execute(
        "INSERT OR REPLACE INTO run_index (checkpoint_id, seq, created_at, open, open_until) VALUES (?, ?, ?, ?, ?)",
        (checkpoint_id, int(row[0]), created, int(is_open), until),
    )


def catch_up(conn: sqlite3.Connection) -> bool:
    """Index the checkpoints past the index's highest seq (a data dir from before it); True when the index is
    complete (False: it could not be written, e.g. a read-only data dir, and readers read every run)."""
    behind = "SELECT COALESCE(MAX(seq), 0) FROM checkpoints"
    indexed = "SELECT COALESCE(MAX(seq), 0) FROM run_index"
    if conn.execute(behind).fetchone()[0] <= conn.execute(indexed).fetchone()[0]:
        return True
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return False
    try:
        top = conn.execute(indexed).fetchone()[0]
        missing = [str(r[0]) for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE seq > ?", (top,))]
        for checkpoint_id in missing:
            index_run(conn, checkpoint_id)
        conn.execute("COMMIT")
    except sqlite3.OperationalError:
        conn.execute("ROLLBACK")
        return False
    return True


class SqliteRuns:
    """The runs' reads of :class:`SqliteShopStore` (which provides ``_conn`` and ``_indexed``)."""

    _conn: sqlite3.Connection
    _indexed: bool

    def open_checkpoints(self, now: datetime) -> list[str]:
        """The checkpoints of the runs that may still be open at ``now``, oldest first (the partial index)."""
        if not self._indexed:
            return [str(r[0]) for r in self._conn.execute("SELECT raw FROM checkpoints ORDER BY seq")]
        rows = self._conn.execute(
            "SELECT c.raw FROM run_index r JOIN checkpoints c ON c.checkpoint_id = r.checkpoint_id"
            " WHERE r.open = 1 AND (r.open_until IS NULL OR r.open_until >= ?) ORDER BY r.seq",
            (int(now.timestamp()),),
        )
        return [str(r[0]) for r in rows]

    def recent_checkpoints(self, limit: int | None, since: str | None) -> tuple[list[str], int]:
        """The latest ``limit`` checkpoints (None or 0: all) created on or after ``since``, oldest first, and how
        many are stored."""
        total = int(self._conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0])
        cap = limit or -1
        if since is None:
            sql, args = "SELECT raw FROM checkpoints ORDER BY seq DESC LIMIT ?", (cap,)
        elif self._indexed:
            sql = (
                "SELECT c.raw FROM run_index r JOIN checkpoints c ON c.checkpoint_id = r.checkpoint_id"
                " WHERE r.created_at >= ? ORDER BY r.seq DESC LIMIT ?"
            )
            args = (since, cap)  # type: ignore[assignment]
        else:
            return recent(
                [str(r[0]) for r in self._conn.execute("SELECT raw FROM checkpoints ORDER BY seq")], limit, since
            )
        return [str(r[0]) for r in self._conn.execute(sql, args)][::-1], total
