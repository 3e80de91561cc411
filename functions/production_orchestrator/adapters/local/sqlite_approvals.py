"""SQLite implementation of :class:`ApprovalStore`, in the data dir's database.

Each status change is one ``BEGIN IMMEDIATE`` transaction that re-reads the record and applies the
domain's transition to what it read (pending, unexpired, the votes seen), so a double click or two
approvers racing on one data dir serialize on the database lock exactly as the DynamoDB conditional
updates do. The shop store writes a run's approval in the transaction that writes its checkpoint, with
:func:`insert_approval` and :func:`supersede_in`, and (:class:`SqliteApprovalChanges`) an approval's change with its
audit event and the approval mail it queues in the outbox, in one transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from ... import faults
from ...domain.approval.approvals import APPROVAL_ID_PATTERN, ApprovalRecord, ApprovalTransitions
from ...domain.errors import IntegrityError, NotFoundError
from ...domain.records import CHECKPOINT_ID_PATTERN, AuditEvent, parse_utc, require_id
from .sqlite_db import SqliteDatabase
from .sqlite_outbox import queue_in
from .sqlite_runs import RUNS_SCHEMA, index_run

if TYPE_CHECKING:  # the outbox's records load when a message is read or written
    from ...domain.messages.outbox import OutboxMessage

APPROVALS_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS approvals (
    approval_id TEXT PRIMARY KEY,
    checkpoint_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    raw TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS approvals_by_checkpoint ON approvals (checkpoint_id, seq);
"""
    + RUNS_SCHEMA
)  # an approval's change moves its run in the index (sqlite_runs.py)


def read_approval(conn: sqlite3.Connection, approval_id: str) -> ApprovalRecord | None:
    """The approval ``approval_id`` as stored (None for an id that could never exist)."""
    if not isinstance(approval_id, str) or not APPROVAL_ID_PATTERN.fullmatch(approval_id):
        return None
    row = conn.execute("SELECT raw FROM approvals WHERE approval_id = ?", (approval_id,)).fetchone()
    return None if row is None else ApprovalRecord.model_validate_json(row[0])


def insert_approval(conn: sqlite3.Connection, record: ApprovalRecord) -> None:
    """Insert ``record`` inside the caller's transaction; an existing id is ``IntegrityError``."""
    try:
        conn.execute(
            "INSERT INTO approvals (approval_id, checkpoint_id, seq, raw) "
            "VALUES (?, ?, (SELECT COUNT(*) FROM approvals), ?)",
            (record.approval_id, record.checkpoint_id, record.model_dump_json()),
        )
    except sqlite3.IntegrityError:
        raise IntegrityError(f"approval {record.approval_id} already exists") from None
    index_run(conn, record.checkpoint_id)


def save_approval(conn: sqlite3.Connection, record: ApprovalRecord) -> None:
    """Overwrite the stored ``record`` inside the caller's transaction (which read it first)."""
    conn.execute("UPDATE approvals SET raw = ? WHERE approval_id = ?", (record.model_dump_json(), record.approval_id))
    index_run(conn, record.checkpoint_id)


def supersede_in(conn: sqlite3.Connection, record: ApprovalRecord) -> None:
    """Inside the caller's transaction: the approval ``record`` replaces (``record.supersedes``) moves from
    pending to superseded. Raises the domain's refusal when it is no longer open: the caller rolls back."""
    old = read_approval(conn, record.supersedes)
    if old is None:
        raise NotFoundError(f"approval {record.supersedes} does not exist")
    save_approval(
        conn,
        old.superseded(
            record.approval_id,
            parse_utc(record.created_at),
            version=record.version,
            proposal_hash=record.proposal_hash,
        ),
    )


class SqliteApprovalStore(SqliteDatabase, ApprovalTransitions):
    """Approval records of one data dir."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, APPROVALS_SCHEMA)

    def create_approval(self, record: ApprovalRecord) -> None:
        """Create the approval; an existing id is ``IntegrityError``."""
        with self._write() as conn:
            insert_approval(conn, record)

    def get_approval(self, approval_id: str) -> ApprovalRecord | None:
        """The approval, or None (also for an id that could never exist)."""
        return read_approval(self._conn, approval_id)

    def approvals_for(self, checkpoint_id: str) -> list[ApprovalRecord]:
        """Every approval requested for ``checkpoint_id``, oldest first."""
        require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
        rows = self._conn.execute(
            "SELECT raw FROM approvals WHERE checkpoint_id = ? ORDER BY seq", (checkpoint_id,)
        ).fetchall()
        return [ApprovalRecord.model_validate_json(r[0]) for r in rows]

    def list_approvals(self) -> list[ApprovalRecord]:
        """Every approval, oldest first."""
        return [
            ApprovalRecord.model_validate_json(r[0])
            for r in self._conn.execute("SELECT raw FROM approvals ORDER BY seq")
        ]

    def _change(self, approval_id: str, change: Callable[[ApprovalRecord], ApprovalRecord]) -> ApprovalRecord:
        """Read, transform (the domain raises when the transition is not allowed), write: one transaction."""
        with self._write() as conn:
            before = read_approval(conn, approval_id)
            if before is None:
                raise NotFoundError(f"approval {approval_id} does not exist")
            after = change(before)
            if after != before:
                save_approval(conn, after)
            return after


class SqliteApprovalChanges:
    """``change_approval`` of the SQLite shop store: each change one ``BEGIN IMMEDIATE`` transaction, so the
    approval, its audit event and the mail it queues in the outbox commit together."""

    _conn: sqlite3.Connection

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _insert_audit(self, event: AuditEvent) -> None:
        raise NotImplementedError

    def change_approval(
        self,
        approval_id: str,
        change: Callable[[ApprovalRecord], ApprovalRecord],
        event: Callable[[ApprovalRecord], AuditEvent | None],
        mail: Sequence[OutboxMessage] = (),
    ) -> tuple[ApprovalRecord, bool]:
        """The approval's transition, its audit event and the approval mail it queues, in one transaction (all of
        it or nothing); nothing is written when the transition changes nothing. Returns (record, changed)."""
        with self._write() as conn:
            before = read_approval(conn, approval_id)
            if before is None:
                raise NotFoundError(f"approval {approval_id} does not exist")
            after = change(before)
            if after == before:
                return after, False
            save_approval(conn, after)
            found = event(after)
            if found is not None:
                self._insert_audit(found)
            faults.point("inside_approval_change")  # written, not committed: a crash here leaves nothing
            queue_in(conn, mail, once=True)  # by key: a request or reminder is never queued twice
            return after, True
