"""SQLite implementation of :class:`ApprovalStore`, in the data dir's database.

Each status change is one ``BEGIN IMMEDIATE`` transaction that re-reads the record and checks the
condition (pending, unexpired, the votes seen), so a double click or two approvers racing on one data dir
serialize on the database lock exactly as the DynamoDB conditional updates do.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from ...domain.approvals import APPROVAL_ID_PATTERN, ApprovalRecord, ApprovalStatus, Vote
from ...domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, IntegrityError, NotFoundError
from ...domain.records import CHECKPOINT_ID_PATTERN, parse_utc, require_id, utc_iso
from .sqlite_db import SqliteDatabase

_SCHEMA = """
CREATE TABLE IF NOT EXISTS approvals (
    approval_id TEXT PRIMARY KEY,
    checkpoint_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    raw TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS approvals_by_checkpoint ON approvals (checkpoint_id, seq);
"""


class SqliteApprovalStore(SqliteDatabase):
    """Approval records of one data dir."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, _SCHEMA)

    def create_approval(self, record: ApprovalRecord) -> None:
        """Create the approval; an existing id is ``IntegrityError``."""
        with self._write() as conn:
            try:
                conn.execute(
                    "INSERT INTO approvals (approval_id, checkpoint_id, seq, raw) "
                    "VALUES (?, ?, (SELECT COUNT(*) FROM approvals), ?)",
                    (record.approval_id, record.checkpoint_id, record.model_dump_json()),
                )
            except sqlite3.IntegrityError:
                raise IntegrityError(f"approval {record.approval_id} already exists") from None

    def get_approval(self, approval_id: str) -> ApprovalRecord | None:
        """The approval, or None (also for an id that could never exist)."""
        if not isinstance(approval_id, str) or not APPROVAL_ID_PATTERN.match(approval_id):
            return None
        row = self._conn.execute("SELECT raw FROM approvals WHERE approval_id = ?", (approval_id,)).fetchone()
        return None if row is None else ApprovalRecord.model_validate_json(row[0])

    def approvals_for(self, checkpoint_id: str) -> list[ApprovalRecord]:
        """Every approval requested for ``checkpoint_id``, oldest first."""
        require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
        rows = self._conn.execute(
            "SELECT raw FROM approvals WHERE checkpoint_id = ? ORDER BY seq", (checkpoint_id,)
        ).fetchall()
        return [ApprovalRecord.model_validate_json(r[0]) for r in rows]

    def list_approvals(self) -> list[ApprovalRecord]:
        """Every approval, oldest first (the local server lists the pending ones)."""
        return [
            ApprovalRecord.model_validate_json(r[0])
            for r in self._conn.execute("SELECT raw FROM approvals ORDER BY seq")
        ]

    def _existing(self, approval_id: str) -> ApprovalRecord:
        record = self.get_approval(approval_id)
        if record is None:
            raise NotFoundError(f"approval {approval_id} does not exist")
        return record

    def _save(self, record: ApprovalRecord) -> None:
        self._conn.execute(
            "UPDATE approvals SET raw = ? WHERE approval_id = ?", (record.model_dump_json(), record.approval_id)
        )

    def record_approval_vote(self, approval_id: str, vote: Vote, *, now: datetime) -> ApprovalRecord:
        """Add ``vote`` to the pending, unexpired approval; a reject or the quorum decides it."""
        with self._write():
            before = self._existing(approval_id)
            if before.status == "decided":
                raise DecisionAlreadyClaimedError(f"approval {approval_id} was already decided")
            if before.status == "expired" or now >= parse_utc(before.expires_at):
                raise ApprovalExpiredError(f"approval {approval_id} expired at {before.expires_at}")
            if before.has_voted(vote.decision.approver):
                raise DecisionAlreadyClaimedError(f"{vote.decision.approver} already decided on approval {approval_id}")
            after = before.with_vote(vote, utc_iso(now))
            self._save(after)
            return after

    def expire_approval(
        self, approval_id: str, *, now: datetime, from_status: ApprovalStatus = "pending", superseded_by: str = ""
    ) -> ApprovalRecord:
        """``from_status`` -> expired; an already expired approval is returned unchanged."""
        with self._write():
            before = self._existing(approval_id)
            if before.status == "expired":
                return before
            if before.status != from_status:
                raise DecisionAlreadyClaimedError(f"approval {approval_id} is {before.status}, not {from_status}")
            after = before.model_copy(
                update={"status": "expired", "closed_at": utc_iso(now), "superseded_by": superseded_by}
            )
            self._save(after)
            return after
