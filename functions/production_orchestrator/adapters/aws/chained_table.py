"""The table with every transaction that carries audit events linked into the audit hash chain.

The chain head (``AUDIT / AUDIT_HEAD``: seq and hash of the last event, and its MAC with an audit key) kept
in memory after each write this process makes, so appending does not read it first (a new process guesses
"no head yet"). A head that moved meanwhile fails the head's condition; the failure returns the stored head
(``ALL_OLD``), and the events are linked again on it:

    transact(writes + events) -> [writes..., put HEAD if seq = cached, put AUDIT#seq+1.., ...]
        ok            -> cached head = the new one
        head moved    -> cached head = the returned one; link again (bounded, with jitter)
        a write fails -> ConditionFailed to the caller (indices of ``writes`` unchanged)

Tool-call records (``TOOL_CALLED_EVENT``) wait in memory and go with the next transaction, before its own
events, so a run's audit trail keeps its order and a start writes its tool calls with its checkpoint. A
process that dies before that write loses those records (the agent session still lists the calls).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from ...domain.approval.audit_chain import chained, event_hash
from ...domain.approval.audit_chain import head_of as chain_head
from ...domain.errors import BackendError
from ...domain.ports import MacKey
from ...domain.records import AuditEvent
from .dynamo_table import ConditionFailed, DynamoTable, Item, key, n, s
from .table_schema import AUDIT_HEAD_SK, AUDIT_PK, AUDIT_SK_PREFIX, PARTITION_KEY

AUDIT_EVENT = "_audit_event"  # marks the transaction item an audit event goes into (never sent)
_ABSENT = f"attribute_not_exists({PARTITION_KEY})"
_CHAIN_ATTEMPTS = 12
# Deferred records are flushed on their own before a transaction would grow past DynamoDB's 100 items.
MAX_DEFERRED = 40
_UNKNOWN: Any = object()

Head = tuple[int, str] | None


def head_of(item: Item | None) -> Head:
    """(seq, hash) of a stored head item, or None when there is none."""
    return None if item is None else (int(item["seq"]["N"]), str(item["hash"]["S"]))


def stored_head(item: Item | None) -> tuple[int, str, str] | None:
    """(seq, hash, MAC) of a stored head item (MAC "" when written without a key), or None."""
    found = head_of(item)
    return None if found is None or item is None else (*found, str(item.get("mac", {}).get("S", "")))


class ChainedTable(DynamoTable):
    """The table, with every transaction that carries audit events linked to the chain head (each link and
    the head MACed with ``audit_key`` when one is given)."""

    def __init__(self, client: Any, table_name: str, audit_key: MacKey | None = None) -> None:
        super().__init__(client, table_name)
        self.audit_key = audit_key
        # A first guess that costs nothing: right on a new table; on another the head's condition fails and
        # returns the stored head, which is what reading it first would have cost.
        self._head: Head = None
        self._deferred: list[AuditEvent] = []

    def audit_trail(self) -> tuple[list[AuditEvent | None], tuple[int, str, str] | None]:
        """Every stored event in sort-key order (None where unreadable) and the stored head, read first:
        events appended after it only extend the trail past the head."""
        head = stored_head(self.get(AUDIT_PK, AUDIT_HEAD_SK))
        items, _ = self.query(AUDIT_PK, AUDIT_SK_PREFIX)
        events: list[AuditEvent | None] = []
        for item in items:
            try:
                events.append(AuditEvent.model_validate_json(item["raw"]["S"]))
            except (KeyError, ValueError):
                events.append(None)
        return events, head

    def know_head(self, head: Head) -> None:
        """The head as just read along with other items (a guess the next append starts from)."""
        self._head = head

    def defer(self, event: AuditEvent) -> None:
        """Keep ``event`` for the next transaction (flushed alone when too many wait)."""
        self._deferred.append(event)
        if len(self._deferred) >= MAX_DEFERRED:
            self.flush()

    def flush(self) -> None:
        """Write the deferred events now (nothing when none wait)."""
        if self._deferred:
            self.transact([])

    def transact(self, writes: Sequence[Item]) -> None:
        """``writes`` and the audit events they carry (marked with ``AUDIT_EVENT``) plus the deferred ones,
        linked to the head, in one transaction."""
        plain = [w for w in writes if AUDIT_EVENT not in w]
        events = [*self._deferred, *(w[AUDIT_EVENT] for w in writes if AUDIT_EVENT in w)]
        if not events:
            super().transact(plain)
            return
        for attempt in range(_CHAIN_ATTEMPTS):
            if self._head is _UNKNOWN:
                self._head = head_of(self.get(AUDIT_PK, AUDIT_HEAD_SK))
            ops, new_head = self._linked(plain, events, self._head)
            try:
                super().transact(ops)
            except ConditionFailed as failed:
                if any(failed.failed(i) for i in range(len(plain))):
                    raise  # the caller's own condition: its error to report
                # Another writer appended: take the head the failure returned, or read it.
                found = failed.found(len(plain)) if failed.failed(len(plain)) else None
                self._head = head_of(found) if found else _UNKNOWN
                if attempt:
                    time.sleep(random.uniform(0, 0.02 * attempt))
                continue
            self._head = new_head
            self._deferred.clear()
            return
        raise BackendError(f"the audit chain head of table {self.name} kept moving; nothing was written")

    def _linked(self, plain: list[Item], events: list[AuditEvent], head: Head) -> tuple[list[Item], Head]:
        """The operations: the writes, the head conditioned on the one linked to, then the stamped events.

        The head comes before the events so that its failure is the one reported first.
        """
        audits = []
        link = head
        stamped = None
        for event in events:
            stamped = chained(event, link, self.audit_key)
            audits.append(
                self.put_op(
                    {**key(AUDIT_PK, f"{AUDIT_SK_PREFIX}{stamped.seq:012d}"), "raw": s(stamped.model_dump_json())},
                    condition=_ABSENT,
                )
            )
            link = (stamped.seq, event_hash(stamped))
        assert link is not None and stamped is not None
        seq, digest, mac = chain_head(stamped, self.audit_key)
        head_item = {**key(AUDIT_PK, AUDIT_HEAD_SK), "seq": n(seq), "hash": s(digest), "mac": s(mac)}
        if head is None:
            head_op = self.put_op(head_item, condition=_ABSENT)
        else:
            head_op = self.put_op(head_item, condition="seq = :seq", values={":seq": n(head[0])})
        return [*plain, head_op, *audits], link
