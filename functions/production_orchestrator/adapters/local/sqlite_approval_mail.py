"""The local approval changes that go with an audit event and approval mail, and the approval-mail outbox.

Part of :class:`~.sqlite_store.SqliteShopStore`: each change is one ``BEGIN IMMEDIATE`` transaction on the shop's
database, so the approval, its audit event (linked into the chain) and the mail it queues commit together or
not at all (a relink can no longer revoke a link without its ``approval_relinked``, or the reverse).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

from ... import faults
from ...domain.approval.approvals import ApprovalRecord
from ...domain.errors import IntegrityError, NotFoundError
from ...domain.messages.approval_mail import ApprovalMail
from ...domain.records import AuditEvent
from .sqlite_approvals import read_approval, save_approval

APPROVAL_MAIL_SCHEMA = """
CREATE TABLE IF NOT EXISTS approval_mail (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    mail_key TEXT NOT NULL UNIQUE,
    raw TEXT NOT NULL
);
"""


class SqliteApprovalChanges:
    """``change_approval``, ``approval_mail`` and ``replace_approval_mail`` of the SQLite shop store."""

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
        mail: Sequence[ApprovalMail] = (),
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
            for item in mail:
                conn.execute(
                    "INSERT OR IGNORE INTO approval_mail (mail_key, raw) VALUES (?, ?)",
                    (item.key, item.model_dump_json()),
                )
            return after, True

    def approval_mail(self) -> list[ApprovalMail]:
        """Every approval request and reminder queued, in queue order."""
        return [
            ApprovalMail.model_validate_json(r[0])
            for r in self._conn.execute("SELECT raw FROM approval_mail ORDER BY seq")
        ]

    def replace_approval_mail(
        self, previous: ApprovalMail, updated: ApprovalMail, event: AuditEvent | None = None
    ) -> bool:
        """Compare-and-set: ``updated`` (with ``event``) only if the stored mail still reads as ``previous``."""
        if updated.key != previous.key:
            raise IntegrityError(f"approval mail {previous.key} cannot become {updated.key}")
        with self._write() as conn:
            row = conn.execute("SELECT raw FROM approval_mail WHERE mail_key = ?", (previous.key,)).fetchone()
            if row is None or ApprovalMail.model_validate_json(row[0]) != previous:
                return False
            conn.execute(
                "UPDATE approval_mail SET raw = ? WHERE mail_key = ?", (updated.model_dump_json(), updated.key)
            )
            if event is not None:
                self._insert_audit(event)
            return True
