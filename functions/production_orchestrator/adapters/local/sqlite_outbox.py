"""The outbox of a local shop: one ``outbox`` table holding every kind of message, by key.

A plan's messages are inserted by the apply's transaction (``INSERT``: a key that exists means a hand-edited
store), approval requests and reminders by the approval change's (``INSERT OR IGNORE``: queued once, again after
a crash). Every delivery step afterwards is a compare-and-set on the row it read, in one ``BEGIN IMMEDIATE``.

A data dir from before approval mail joined the outbox keeps it in a table of its own (``approval_mail``, rows
of the record's version 1): the first store opened on it moves them into ``outbox`` in one transaction and drops
that table, so one port and one pipeline see them; a row that cannot be read stops the move, nothing moved.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from ...domain.errors import IntegrityError

if TYPE_CHECKING:  # the outbox's records load when a message is read or written, not with every store
    from ...domain.messages.outbox import OutboxMessage
    from ...domain.records import AuditEvent

OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    msg_key TEXT NOT NULL UNIQUE,
    proposal_hash TEXT NOT NULL,
    raw TEXT NOT NULL
);
"""
_LEGACY_TABLE = "approval_mail"


def queue_in(conn: sqlite3.Connection, messages: Sequence[OutboxMessage], *, once: bool) -> None:
    """Insert ``messages`` inside the caller's transaction. ``once``: a key already queued is left as it is (a
    retried change queues nothing twice); otherwise it is ``IntegrityError`` (the caller rolls back)."""
    verb = "INSERT OR IGNORE" if once else "INSERT"
    for message in messages:
        try:
            conn.execute(
                f"{verb} INTO outbox (msg_key, proposal_hash, raw) VALUES (?, ?, ?)",
                (message.key, message.proposal_hash, message.model_dump_json()),
            )
        except sqlite3.IntegrityError:
            # No application row, yet the message exists: only a hand-edited store gets here.
            raise IntegrityError(f"outbox message {message.key} exists for a plan that never applied") from None


def migrate_approval_mail(conn: sqlite3.Connection) -> int:
    """Move a data dir's old ``approval_mail`` rows into the outbox, in the caller's transaction; how many."""
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_LEGACY_TABLE,))
    if found.fetchone() is None:
        return 0
    from ...domain.messages.approval_mail import from_approval_mail_v1

    rows = conn.execute(f"SELECT raw FROM {_LEGACY_TABLE} ORDER BY seq").fetchall()
    queue_in(conn, [from_approval_mail_v1(str(r[0])) for r in rows], once=True)
    conn.execute(f"DROP TABLE {_LEGACY_TABLE}")
    return len(rows)


class SqliteOutbox:
    """``outbox_messages`` and ``replace_outbox_message`` of the SQLite shop store."""

    _conn: sqlite3.Connection

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _insert_audit(self, event: AuditEvent) -> None:
        raise NotImplementedError

    def _migrate_outbox(self) -> None:
        if self._conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (_LEGACY_TABLE,)).fetchone() is None:
            return  # the common case reads, never writes: a read-only command stays one
        with self._write() as conn:
            migrate_approval_mail(conn)  # again under the lock: another process may have moved them meanwhile

    def outbox_messages(self, proposal_hash: str | None = None) -> list[OutboxMessage]:
        """Every message (or one plan's), in ``outbox_order``."""
        from ...domain.messages.outbox import OutboxMessage, outbox_order

        if proposal_hash is None:
            rows = self._conn.execute("SELECT seq, raw FROM outbox").fetchall()
        else:
            rows = self._conn.execute(
                "SELECT seq, raw FROM outbox WHERE proposal_hash = ?", (proposal_hash,)
            ).fetchall()
        return outbox_order((int(r[0]), OutboxMessage.model_validate_json(r[1])) for r in rows)

    def replace_outbox_message(
        self, previous: OutboxMessage, updated: OutboxMessage, event: AuditEvent | None = None
    ) -> bool:
        """Compare-and-set on the stored record: ``updated`` (with ``event``) only if the row still reads as
        ``previous``."""
        from ...domain.messages.outbox import OutboxMessage

        if updated.key != previous.key:
            raise IntegrityError(f"outbox message {previous.key} cannot become {updated.key}")
        with self._write() as conn:
            row = conn.execute("SELECT raw FROM outbox WHERE msg_key = ?", (previous.key,)).fetchone()
            if row is None or OutboxMessage.model_validate_json(row[0]) != previous:
                return False
            conn.execute("UPDATE outbox SET raw = ? WHERE msg_key = ?", (updated.model_dump_json(), updated.key))
            if event is not None:
                self._insert_audit(event)
            return True
