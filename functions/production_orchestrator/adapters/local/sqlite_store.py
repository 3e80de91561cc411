"""SQLite implementation of :class:`ShopStore`.

Every write is one ``BEGIN IMMEDIATE`` transaction, so two processes racing on one data dir serialize on
the database lock: the decision claim is a conditional insert on the checkpoint id and the apply is a
conditional update keyed by the proposal hash, which also queues the plan's messages (outbox rows keyed by
proposal hash and index) in the same transaction.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import faults
from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.audit_chain import chained, head_of
from ...domain.errors import (
    DecisionAlreadyClaimedError,
    IntegrityError,
    ShopError,
    StaleStateError,
)
from ...domain.ports import MacKey
from ...domain.records import AuditEvent, Completion, DecisionRecord
from ...domain.shop.model import ShopState
from ..run_lists import events_of
from .sqlite_approvals import APPROVALS_SCHEMA, SqliteApprovalChanges, insert_approval, supersede_in
from .sqlite_db import SqliteDatabase
from .sqlite_outbox import OUTBOX_SCHEMA, SqliteOutbox, queue_in
from .sqlite_requests import REQUESTS_SCHEMA, SqliteRequests, insert_request_key
from .sqlite_runs import RUNS_SCHEMA, SqliteRuns, catch_up, index_run

if TYPE_CHECKING:  # the outbox's records load when a message is read or written
    from ...domain.intake.request_key import RunRequest
    from ...domain.messages.outbox import OutboxMessage

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS shop (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER NOT NULL,
    digest TEXT NOT NULL,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS proposals (proposal_hash TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS applications (
    proposal_hash TEXT PRIMARY KEY,
    checkpoint_id TEXT NOT NULL,
    revision INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, raw TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit_index (
    seq INTEGER PRIMARY KEY,
    checkpoint_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_index_by_checkpoint ON audit_index (checkpoint_id, seq);
CREATE INDEX IF NOT EXISTS audit_index_by_type ON audit_index (event_type, seq);
CREATE TABLE IF NOT EXISTS audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    mac TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS snapshots (digest TEXT PRIMARY KEY, data BLOB NOT NULL);
"""
    + RUNS_SCHEMA
    + REQUESTS_SCHEMA
    + OUTBOX_SCHEMA
    + APPROVALS_SCHEMA
)


class SqliteShopStore(SqliteDatabase, SqliteOutbox, SqliteApprovalChanges, SqliteRequests, SqliteRuns):
    """One shop in one SQLite file. With ``audit_key`` every audit link and the chain head are MACed."""

    def __init__(self, path: Path, audit_key: MacKey | None = None) -> None:
        super().__init__(path, _SCHEMA)
        self._audit_key = audit_key
        columns = {str(r[1]) for r in self._conn.execute("PRAGMA table_info(audit_head)")}
        if "mac" not in columns:  # a data dir from before the chain was keyed
            with contextlib.suppress(sqlite3.OperationalError):  # another process added it meanwhile
                self._conn.execute("ALTER TABLE audit_head ADD COLUMN mac TEXT NOT NULL DEFAULT ''")
        self._migrate_outbox()  # a data dir from before approval mail joined the outbox
        # A data dir from before the runs' and the audit's indexes: index what is stored (once).
        self._indexed = catch_up(self._conn) and self._catch_up_audit()

    def _catch_up_audit(self) -> bool:
        """Index the audit events past the audit index's highest seq; False when it cannot be written."""
        top = "SELECT COALESCE(MAX(seq), 0) FROM audit_index"
        if (
            self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM audit").fetchone()[0]
            <= self._conn.execute(top).fetchone()[0]
        ):
            return True
        try:
            with self._write() as conn:
                rows = conn.execute("SELECT seq, raw FROM audit WHERE seq > (" + top + ")").fetchall()
                conn.executemany(
                    "INSERT OR REPLACE INTO audit_index (seq, checkpoint_id, event_type, at) VALUES (?, ?, ?, ?)",
                    [(int(seq), *_audit_keys(str(raw))) for seq, raw in rows],
                )
        except sqlite3.OperationalError:
            return False
        return True

    def _insert_audit(self, event: AuditEvent) -> None:
        # Inside the caller's BEGIN IMMEDIATE: the head read here cannot move before this commits.
        row = self._conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        linked = chained(event, None if row is None else (int(row[0]), str(row[1])), self._audit_key)
        cursor = self._conn.execute("INSERT INTO audit (raw) VALUES (?)", (linked.model_dump_json(),))
        self._conn.execute(
            "INSERT OR REPLACE INTO audit_index (seq, checkpoint_id, event_type, at) VALUES (?, ?, ?, ?)",
            (cursor.lastrowid, linked.checkpoint_id, linked.event_type, linked.at),
        )
        self._conn.execute(
            "INSERT OR REPLACE INTO audit_head (id, seq, hash, mac) VALUES (1, ?, ?, ?)",
            head_of(linked, self._audit_key),
        )

    def _state_row(self) -> tuple[int, str, str] | None:
        row = self._conn.execute("SELECT revision, digest, state FROM shop WHERE id = 1").fetchone()
        return None if row is None else (int(row[0]), str(row[1]), str(row[2]))

    def _replace_state(self, state: ShopState) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO shop (id, revision, digest, state) VALUES (1, ?, ?, ?)",
            (state.revision, state.digest(), state.model_dump_json()),
        )

    def load_state(self) -> ShopState | None:
        """The current shop state, or None before it was seeded."""
        row = self._state_row()
        return None if row is None else ShopState.model_validate_json(row[2])

    def seed(self, state: ShopState, event: AuditEvent) -> ShopState:
        """Store ``state`` if the shop is empty; a shop of another name is an error."""
        with self._write():
            row = self._state_row()
            if row is not None:
                existing = ShopState.model_validate_json(row[2])
                if existing.name != state.name:
                    raise ShopError(
                        f"this data dir holds the {existing.name!r} shop; use another --data-dir for {state.name!r}"
                    )
                return existing
            self._replace_state(state)
            self._insert_audit(event)
            return state

    def replace_shop(self, state: ShopState, expected: tuple[int, str] | None, event: AuditEvent) -> None:
        """Put ``state`` in place of the shop whose revision and digest are ``expected`` (None: no shop yet)."""
        with self._write():
            row = self._state_row()
            found = None if row is None else (row[0], row[1])
            if found != expected:
                raise StaleStateError(
                    "the shop changed while it was being replaced",
                    expected=None if expected is None else {"revision": expected[0], "digest": expected[1]},
                    found=None if found is None else {"revision": found[0], "digest": found[1]},
                )
            self._replace_state(state)
            self._insert_audit(event)

    def set_inventory(self, material_id: str, quantity: int, event: AuditEvent) -> ShopState:
        """The operator's out-of-band count of ``material_id``; changes the digest, not the revision."""
        with self._write():
            state = self.load_state()
            if state is None:
                raise ShopError("the shop has not been seeded")
            updated = state.with_inventory(material_id, quantity)
            self._replace_state(updated)
            self._insert_audit(event)
            return updated

    def put_proposal(self, proposal_hash: str, data: bytes) -> None:
        """Create the immutable proposal; identical bytes are a no-op, different bytes ``IntegrityError``."""
        with self._write() as conn:
            row = conn.execute("SELECT data FROM proposals WHERE proposal_hash = ?", (proposal_hash,)).fetchone()
            if row is not None:
                if bytes(row[0]) != data:
                    raise IntegrityError(f"proposal {proposal_hash} exists with different bytes")
                return
            conn.execute("INSERT INTO proposals (proposal_hash, data) VALUES (?, ?)", (proposal_hash, data))

    def get_proposal(self, proposal_hash: str) -> bytes | None:
        """The stored proposal bytes."""
        row = self._conn.execute("SELECT data FROM proposals WHERE proposal_hash = ?", (proposal_hash,)).fetchone()
        if row is None:
            return None
        # A hand-edited row can come back as TEXT: hand it over as bytes so the re-hash refuses it.
        return row[0].encode() if isinstance(row[0], str) else bytes(row[0])

    def put_checkpoint(
        self,
        checkpoint_id: str,
        raw: str,
        event: AuditEvent,
        approval: ApprovalRecord | None = None,
        request_key: RunRequest | None = None,
    ) -> None:
        """Create the checkpoint (never overwrite) with its audit event, given, its approval (closing the
        approval it supersedes) and its request key, in one transaction: all of it, or nothing."""
        with self._write() as conn:
            try:
                conn.execute("INSERT INTO checkpoints (checkpoint_id, raw) VALUES (?, ?)", (checkpoint_id, raw))
            except sqlite3.IntegrityError:
                raise IntegrityError(f"checkpoint {checkpoint_id} already exists") from None
            if request_key is not None:
                insert_request_key(conn, request_key)
            if approval is not None:
                if approval.supersedes:
                    supersede_in(conn, approval)
                insert_approval(conn, approval)
            index_run(conn, checkpoint_id)
            self._insert_audit(event)

    def get_checkpoint(self, checkpoint_id: str) -> str | None:
        """The checkpoint's stored JSON text."""
        row = self._conn.execute("SELECT raw FROM checkpoints WHERE checkpoint_id = ?", (checkpoint_id,)).fetchone()
        return None if row is None else str(row[0])

    def list_checkpoints(self) -> list[str]:
        """Every checkpoint's JSON text, oldest first."""
        return [str(r[0]) for r in self._conn.execute("SELECT raw FROM checkpoints ORDER BY seq")]

    def get_decision(self, checkpoint_id: str) -> DecisionRecord | None:
        """The claimed decision for a checkpoint, if any."""
        row = self._conn.execute("SELECT raw FROM decisions WHERE checkpoint_id = ?", (checkpoint_id,)).fetchone()
        return None if row is None else DecisionRecord.model_validate_json(row[0])

    def claim_decision(self, record: DecisionRecord, event: AuditEvent) -> None:
        """Insert the decision unless one exists, with its audit event, in one transaction."""
        with self._write() as conn:
            try:
                conn.execute(
                    "INSERT INTO decisions (checkpoint_id, raw) VALUES (?, ?)",
                    (record.checkpoint_id, record.model_dump_json()),
                )
            except sqlite3.IntegrityError:
                raise DecisionAlreadyClaimedError(
                    f"a decision for checkpoint {record.checkpoint_id} was already recorded"
                ) from None
            index_run(conn, record.checkpoint_id)
            self._insert_audit(event)

    def _held_decision(self, checkpoint_id: str, claim_token: str) -> DecisionRecord | None:
        """The open record when ``claim_token`` still holds it (call inside a write transaction)."""
        row = self._conn.execute("SELECT raw FROM decisions WHERE checkpoint_id = ?", (checkpoint_id,)).fetchone()
        record = None if row is None else DecisionRecord.model_validate_json(row[0])
        if record is None or record.claim_token != claim_token or record.completion is not None:
            return None
        return record

    def _rewrite_decision(self, record: DecisionRecord) -> None:
        self._conn.execute(
            "UPDATE decisions SET raw = ? WHERE checkpoint_id = ?", (record.model_dump_json(), record.checkpoint_id)
        )
        index_run(self._conn, record.checkpoint_id)

    def take_over_decision(self, record: DecisionRecord, previous_token: str, event: AuditEvent) -> None:
        """Replace an open claim still held by ``previous_token``; else ``DecisionAlreadyClaimedError``."""
        with self._write():
            if self._held_decision(record.checkpoint_id, previous_token) is None:
                raise DecisionAlreadyClaimedError(
                    f"another resume took over or finished the decision of checkpoint {record.checkpoint_id}"
                )
            self._rewrite_decision(record)
            self._insert_audit(event)

    def complete_decision(
        self, checkpoint_id: str, claim_token: str, completion: Completion, event: AuditEvent | None
    ) -> bool:
        """Record the outcome if ``claim_token`` still holds the open claim; False when it does not."""
        with self._write():
            record = self._held_decision(checkpoint_id, claim_token)
            if record is None:
                return False
            self._rewrite_decision(record.model_copy(update={"completion": completion}))
            if event is not None:
                self._insert_audit(event)
            return True

    def apply_plan(
        self,
        *,
        proposal_hash: str,
        checkpoint_id: str,
        new_state: ShopState,
        expected: tuple[int, str],
        event: AuditEvent,
        messages: Sequence[OutboxMessage],
    ) -> bool:
        """State update + application record + ``plan_applied`` event + outbox rows, conditioned on revision
        and digest."""
        with self._write() as conn:
            applied = conn.execute("SELECT 1 FROM applications WHERE proposal_hash = ?", (proposal_hash,)).fetchone()
            if applied is not None:
                return False
            row = self._state_row()
            if row is None or (row[0], row[1]) != expected:
                found = None if row is None else {"revision": row[0], "digest": row[1]}
                raise StaleStateError(
                    "the shop changed since the plan was verified",
                    expected={"revision": expected[0], "digest": expected[1]},
                    found=found,
                )
            self._replace_state(new_state)
            conn.execute(
                "INSERT INTO applications (proposal_hash, checkpoint_id, revision) VALUES (?, ?, ?)",
                (proposal_hash, checkpoint_id, new_state.revision),
            )
            self._insert_audit(event)
            faults.point("inside_apply")  # written, not committed: a crash here must leave nothing behind
            queue_in(conn, messages, once=False)
            faults.point("inside_apply_outbox")  # messages written with the plan, nothing committed yet
            return True

    def application_count(self, proposal_hash: str | None = None) -> int:
        """How many plans applied (for one proposal, or in all)."""
        if proposal_hash is None:
            row = self._conn.execute("SELECT COUNT(*) FROM applications").fetchone()
        else:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM applications WHERE proposal_hash = ?", (proposal_hash,)
            ).fetchone()
        return int(row[0])

    def append_audit(self, event: AuditEvent) -> None:
        """Append one audit event."""
        with self._write():
            self._insert_audit(event)

    def audit_events(self) -> list[AuditEvent]:
        """The audit trail, oldest first."""
        return [AuditEvent.model_validate_json(r[0]) for r in self._conn.execute("SELECT raw FROM audit ORDER BY seq")]

    def audit_events_of(
        self,
        event_types: Collection[str],
        *,
        checkpoint_id: str | None = None,
        limit: int | None = None,
        since: str | None = None,
    ) -> tuple[list[AuditEvent], int]:
        """The latest ``limit`` events (None or 0: all) of ``event_types``, of one checkpoint if given, at or after
        ``since``, oldest first, and how many match in all (the audit index)."""
        if not self._indexed:
            return events_of(self.audit_events(), event_types, checkpoint_id, limit, since)
        types = sorted(event_types)
        where = f"i.event_type IN ({', '.join('?' * len(types))})"
        args: list[Any] = list(types)
        if checkpoint_id is not None:
            where, args = f"{where} AND i.checkpoint_id = ?", [*args, checkpoint_id]
        if since is not None:
            where, args = f"{where} AND i.at >= ?", [*args, since]
        total = int(self._conn.execute(f"SELECT COUNT(*) FROM audit_index i WHERE {where}", args).fetchone()[0])
        rows = self._conn.execute(
            f"SELECT a.raw FROM audit_index i JOIN audit a ON a.seq = i.seq WHERE {where} ORDER BY i.seq DESC LIMIT ?",
            [*args, limit or -1],
        ).fetchall()
        return [AuditEvent.model_validate_json(r[0]) for r in reversed(rows)], total

    def raw_audit_trail(self) -> tuple[list[AuditEvent | None], tuple[int, str, str] | None]:
        """Every stored event in stored order (None where unreadable) and the chain head, read together."""
        self._conn.execute("BEGIN")
        try:
            rows = [str(r[0]) for r in self._conn.execute("SELECT raw FROM audit ORDER BY seq")]
            head = self._conn.execute("SELECT seq, hash, mac FROM audit_head WHERE id = 1").fetchone()
        finally:
            self._conn.execute("COMMIT")
        return [_readable(raw) for raw in rows], None if head is None else (int(head[0]), str(head[1]), str(head[2]))

    def put_state_snapshot(self, digest: str, data: bytes) -> None:
        """Keep the canonical state whose hash is ``digest``; a second put is a no-op."""
        with self._write() as conn:
            conn.execute("INSERT OR IGNORE INTO snapshots (digest, data) VALUES (?, ?)", (digest, data))

    def get_state_snapshot(self, digest: str) -> bytes | None:
        """The snapshot stored under ``digest``."""
        row = self._conn.execute("SELECT data FROM snapshots WHERE digest = ?", (digest,)).fetchone()
        return None if row is None else bytes(row[0])


def _audit_keys(raw: str) -> tuple[str, str, str]:
    """(checkpoint id, event type, at) of a stored event, for the index ("" where it cannot be read)."""
    event = _readable(raw)
    return ("", "", "") if event is None else (event.checkpoint_id, event.event_type, event.at)


def _readable(raw: str) -> AuditEvent | None:
    try:
        return AuditEvent.model_validate_json(raw)
    except ValueError:
        return None
