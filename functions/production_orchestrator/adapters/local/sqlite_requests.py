"""The request keys of runs and the held requests of :class:`SqliteShopStore` (which provides ``_conn``,
``_write`` and ``_insert_audit``).

``run_requests`` is keyed by (request hash, generation): the one conditional insert two identical starts race
on, inside the checkpoint's transaction. It is indexed by request hash (the key) and by the sender's
Message-ID, so the duplicate check reads the runs of one request, never every run.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from ...domain.errors import HeldRequestCode, HeldRequestError, RequestClaimTakenError
from ...domain.intake.held import PossibleDuplicate
from ...domain.intake.request_key import RunRequest
from ...domain.records import AuditEvent

REQUESTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_requests (
    request_hash TEXT NOT NULL,
    generation INTEGER NOT NULL,
    checkpoint_id TEXT NOT NULL UNIQUE,
    message_key TEXT NOT NULL,
    raw TEXT NOT NULL,
    PRIMARY KEY (request_hash, generation)
);
CREATE INDEX IF NOT EXISTS run_requests_by_message ON run_requests (message_key);
CREATE TABLE IF NOT EXISTS held_requests (
    held_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    raw TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS held_requests_by_status ON held_requests (status, created_at);
"""


def insert_request_key(conn: sqlite3.Connection, key: RunRequest) -> None:
    """Create ``key`` inside the caller's transaction; ``RequestClaimTakenError`` when its generation is taken."""
    try:
        conn.execute(
            "INSERT INTO run_requests (request_hash, generation, checkpoint_id, message_key, raw)"
            " VALUES (?, ?, ?, ?, ?)",
            (key.request_hash, key.generation, key.checkpoint_id, key.message_key, key.model_dump_json()),
        )
    except sqlite3.IntegrityError:
        raise RequestClaimTakenError("another start of this request wrote its run first") from None


class SqliteRequests:
    """Reads of the request index and the held requests' conditional writes."""

    _conn: sqlite3.Connection

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:  # provided by SqliteDatabase
        raise NotImplementedError

    def _insert_audit(self, event: AuditEvent) -> None:  # provided by SqliteShopStore
        raise NotImplementedError

    def _keys(self, sql: str, *args: Any) -> list[RunRequest]:
        return [RunRequest.model_validate_json(r[0]) for r in self._conn.execute(sql, args)]

    def runs_of_request(self, request_hash: str) -> list[RunRequest]:
        """The request keys stored under ``request_hash``, by generation (the primary key's index)."""
        return self._keys("SELECT raw FROM run_requests WHERE request_hash = ? ORDER BY generation", request_hash)

    def runs_of_message(self, message_key: str) -> list[RunRequest]:
        """The request keys of the runs whose envelope had the Message-ID ``message_key`` (indexed)."""
        if not message_key:
            return []
        return self._keys("SELECT raw FROM run_requests WHERE message_key = ? ORDER BY rowid", message_key)

    def _held(self, rows: Iterator[Any]) -> list[PossibleDuplicate]:
        return [PossibleDuplicate.model_validate_json(r[0]) for r in rows]

    def hold_request(self, record: PossibleDuplicate, event: AuditEvent) -> PossibleDuplicate:
        """Insert the held request with ``event`` unless its id exists; what is stored."""
        with self._write() as conn:
            row = conn.execute("SELECT raw FROM held_requests WHERE held_id = ?", (record.held_id,)).fetchone()
            if row is not None:
                return PossibleDuplicate.model_validate_json(row[0])
            conn.execute(
                "INSERT INTO held_requests (held_id, created_at, status, raw) VALUES (?, ?, ?, ?)",
                (record.held_id, record.created_at, record.status, record.model_dump_json()),
            )
            self._insert_audit(event)
            return record

    def get_held_request(self, held_id: str) -> PossibleDuplicate | None:
        """The held request ``held_id``, or None."""
        row = self._conn.execute("SELECT raw FROM held_requests WHERE held_id = ?", (held_id,)).fetchone()
        return None if row is None else PossibleDuplicate.model_validate_json(row[0])

    def held_requests(self) -> list[PossibleDuplicate]:
        """Every held request, oldest first."""
        return self._held(self._conn.execute("SELECT raw FROM held_requests ORDER BY created_at, held_id"))

    def close_held_request(self, record: PossibleDuplicate, event: AuditEvent) -> None:
        """Replace the stored hold by ``record`` (started or dropped) with ``event`` while it is still held."""
        with self._write() as conn:
            row = conn.execute("SELECT status FROM held_requests WHERE held_id = ?", (record.held_id,)).fetchone()
            if row is None:
                raise HeldRequestError(HeldRequestCode.NOT_FOUND, f"no held request {record.held_id}")
            if row[0] != "held":
                raise HeldRequestError(
                    HeldRequestCode.REQUEST_NOT_HELD, f"held request {record.held_id} was already {row[0]}"
                )
            conn.execute(
                "UPDATE held_requests SET status = ?, raw = ? WHERE held_id = ?",
                (record.status, record.model_dump_json(), record.held_id),
            )
            self._insert_audit(event)
