"""DynamoDB implementation of :class:`ShopStore` on the one table (layout: docs/dynamodb-design.md).

Each state change is a single conditional write or one ``TransactWriteItems``:

    seed         Put STATE if absent                                   + Put AUDIT
    intake/count Put STATE if revision and digest are what was read    + Put AUDIT   (optimistic, retried)
    proposal     Put PROPOSAL#<hash> if absent (same bytes again: no-op, other bytes: IntegrityError)
    checkpoint   Put CHECKPOINT#<id> if absent                         + Put AUDIT
    decision     Put DECISION#<checkpoint> if absent                   + Put AUDIT
    takeover     Put DECISION#<checkpoint> if claim_token = old, no outcome + Put AUDIT
    completion   Put DECISION#<checkpoint> if claim_token = ours, no outcome (+ Put AUDIT)
    apply        Put STATE if revision and digest match + Put APPLICATION#<hash> if absent + Put AUDIT

so a replay, a double click or a Lambda retry can never apply a plan twice.

Every ``Put AUDIT`` above is linked into the audit hash chain inside the same transaction: the chain head
(``SHOP / AUDIT_HEAD``: seq and hash of the last event) is read, the event is stamped with seq + 1 and the
head's hash, and the transaction also puts the new head conditioned on the seq it read. Two concurrent
appenders cannot both win; the loser's whole transaction is cancelled and re-linked on the new head.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from typing import Any

from ... import faults
from ...domain.approvals import ApprovalRecord
from ...domain.audit_chain import chained, head_of
from ...domain.errors import (
    BackendError,
    DecisionAlreadyClaimedError,
    IntakeError,
    IntegrityError,
    NotFoundError,
    ShopError,
    StaleStateError,
)
from ...domain.ports import MacKey
from ...domain.records import AuditEvent, Completion, DecisionRecord, parse_utc
from ...domain.shop import Order, ShopState
from .dynamo_table import ConditionFailed, DynamoTable, Item, b, key, n, now_ns, s
from .dynamodb_approvals import approval_writes, read_stored, replace_write
from .table_schema import (
    APPLICATION_SK_PREFIX,
    AUDIT_HEAD_SK,
    AUDIT_SK_PREFIX,
    CHECKPOINT_SK_PREFIX,
    DECISION_SK_PREFIX,
    PARTITION_KEY,
    PROPOSAL_PK_PREFIX,
    PROPOSAL_SK,
    SHOP_PK,
    SNAPSHOT_PK_PREFIX,
    SNAPSHOT_SK,
    STATE_SK,
)

_ABSENT = f"attribute_not_exists({PARTITION_KEY})"
_UNCHANGED = f"attribute_exists({PARTITION_KEY}) AND revision = :revision AND digest = :digest"
_HELD = f"attribute_exists({PARTITION_KEY}) AND claim_token = :token AND attribute_not_exists(completed_at)"
_OPTIMISTIC_ATTEMPTS = 5
_CHAIN_ATTEMPTS = 12
_AUDIT_EVENT = "_audit_event"  # marks the transaction item an audit event goes into (never sent)


def _head(item: Item | None) -> tuple[int, str, str] | None:
    if item is None:
        return None
    return int(item["seq"]["N"]), str(item["hash"]["S"]), str(item.get("mac", {}).get("S", ""))


class _ChainedTable(DynamoTable):
    """The table, with every transaction that carries an audit event linked (and MACed) to the chain head."""

    def __init__(self, client: Any, table_name: str, audit_key: MacKey | None) -> None:
        super().__init__(client, table_name)
        self.audit_key = audit_key

    def transact(self, writes: Any) -> None:
        """Link the marked audit put (if any) to the head and condition the new head on the one read."""
        marked = [i for i, write in enumerate(writes) if _AUDIT_EVENT in write]
        if not marked:
            super().transact(writes)
            return
        index = marked[0]
        for attempt in range(_CHAIN_ATTEMPTS):
            head = _head(self.get(SHOP_PK, AUDIT_HEAD_SK))
            event = chained(writes[index][_AUDIT_EVENT], head, self.audit_key)
            audit = {**key(SHOP_PK, f"{AUDIT_SK_PREFIX}{event.seq:012d}"), "raw": s(event.model_dump_json())}
            seq, digest, mac = head_of(event, self.audit_key)
            new_head = {**key(SHOP_PK, AUDIT_HEAD_SK), "seq": n(seq), "hash": s(digest), "mac": s(mac)}
            ops = [self.put_op(audit, condition=_ABSENT) if i == index else w for i, w in enumerate(writes)]
            if head is None:
                ops.append(self.put_op(new_head, condition=_ABSENT))
            else:
                ops.append(self.put_op(new_head, condition="seq = :seq", values={":seq": n(head[0])}))
            try:
                super().transact(ops)
                return
            except ConditionFailed as failed:
                theirs = any(failed.failed(i) for i in range(len(writes)) if i != index)
                if theirs or not (failed.failed(len(writes)) or failed.failed(index)):
                    raise
                # Another writer appended between our read of the head and our write: link again.
                time.sleep(random.uniform(0, 0.02 * (attempt + 1)))
        raise BackendError(f"the audit chain head of table {self.name} kept moving; nothing was written")


class DynamoShopStore:
    """One shop in one DynamoDB table. With ``audit_key`` every audit link and the chain head are MACed."""

    def __init__(self, client: Any, table_name: str, audit_key: MacKey | None = None) -> None:
        self._table: DynamoTable = _ChainedTable(client, table_name, audit_key)

    # -- items ---------------------------------------------------------------------------------------

    @staticmethod
    def _state_item(state: ShopState) -> Item:
        return {
            **key(SHOP_PK, STATE_SK),
            "revision": n(state.revision),
            "digest": s(state.digest()),
            "state": s(state.model_dump_json()),
        }

    @staticmethod
    def _audit_put(event: AuditEvent) -> Item:
        # A placeholder: _ChainedTable.transact links it to the chain head when the transaction is sent.
        return {_AUDIT_EVENT: event}

    @staticmethod
    def _unchanged(revision: int, digest: str) -> Item:
        return {":revision": n(revision), ":digest": s(digest)}

    def _state_row(self) -> tuple[int, str, ShopState] | None:
        item = self._table.get(SHOP_PK, STATE_SK)
        if item is None:
            return None
        return int(item["revision"]["N"]), item["digest"]["S"], ShopState.model_validate_json(item["state"]["S"])

    def _update_state(self, change: Callable[[ShopState], ShopState | None], event: AuditEvent) -> ShopState:
        """Read-modify-write conditioned on what was read; ``change`` returning None means nothing to write."""
        for _ in range(_OPTIMISTIC_ATTEMPTS):
            row = self._state_row()
            if row is None:
                raise ShopError("the shop has not been seeded")
            revision, digest, state = row
            updated = change(state)
            if updated is None:
                return state
            try:
                self._table.transact(
                    [
                        self._table.put_op(
                            self._state_item(updated), condition=_UNCHANGED, values=self._unchanged(revision, digest)
                        ),
                        self._audit_put(event),
                    ]
                )
            except ConditionFailed:
                continue  # another writer moved the state between our read and our write: read again
            return updated
        raise StaleStateError("the shop kept changing while this update was attempted")

    # -- ShopStore -----------------------------------------------------------------------------------

    def load_state(self) -> ShopState | None:
        """The current shop state, or None before it was seeded."""
        row = self._state_row()
        return None if row is None else row[2]

    def seed(self, state: ShopState, event: AuditEvent) -> ShopState:
        """Store ``state`` if the shop is empty; a shop seeded with another scenario is an error."""
        try:
            self._table.transact(
                [self._table.put_op(self._state_item(state), condition=_ABSENT), self._audit_put(event)]
            )
            return state
        except ConditionFailed:
            pass
        existing = self.load_state()
        if existing is None:  # pragma: no cover - the condition failed because the state exists
            raise ShopError("the shop state vanished while seeding")
        if existing.scenario != state.scenario:
            raise ShopError(f"this table holds the {existing.scenario!r} shop, not {state.scenario!r}")
        return existing

    def take_in_order(self, order: Order, event: AuditEvent) -> Order:
        """Add ``order`` unless present; return the stored one. Raises ``IntakeError`` when it differs."""

        def change(state: ShopState) -> ShopState | None:
            existing = state.order(order.order_id)
            if existing is None:
                return state.with_order(order)
            if existing.model_copy(update={"scheduled_day": None}) != order:
                raise IntakeError(f"order {order.order_id} was already taken in with different details")
            return None

        stored = self._update_state(change, event).order(order.order_id)
        assert stored is not None
        return stored

    def set_inventory(self, material_id: str, quantity: int, event: AuditEvent) -> ShopState:
        """The operator's out-of-band count of ``material_id``; changes the digest, not the revision."""
        return self._update_state(lambda state: state.with_inventory(material_id, quantity), event)

    def put_proposal(self, proposal_hash: str, data: bytes) -> None:
        """Create the immutable proposal; identical bytes are a no-op, different bytes ``IntegrityError``."""
        item = {**key(PROPOSAL_PK_PREFIX + proposal_hash, PROPOSAL_SK), "data": b(data)}
        try:
            self._table.put(item, condition=_ABSENT)
        except ConditionFailed as failed:
            found = failed.found(0) or self._table.get(PROPOSAL_PK_PREFIX + proposal_hash, PROPOSAL_SK) or {}
            if bytes(found.get("data", {}).get("B", b"")) != data:
                raise IntegrityError(f"proposal {proposal_hash} exists with different bytes") from None

    def get_proposal(self, proposal_hash: str) -> bytes | None:
        """The stored proposal bytes (callers re-hash them)."""
        item = self._table.get(PROPOSAL_PK_PREFIX + proposal_hash, PROPOSAL_SK)
        return None if item is None else bytes(item["data"]["B"])

    def put_checkpoint(
        self, checkpoint_id: str, raw: str, event: AuditEvent, approval: ApprovalRecord | None = None
    ) -> None:
        """Create the checkpoint (never overwrite) with its audit event and, given, its approval (closing the
        approval it supersedes, conditioned on the record read) in one transaction."""
        item = {**key(SHOP_PK, CHECKPOINT_SK_PREFIX + checkpoint_id), "raw": s(raw), "recorded_ns": n(now_ns())}
        for _ in range(_OPTIMISTIC_ATTEMPTS):
            writes = [self._table.put_op(item, condition=_ABSENT)]
            if approval is not None:
                writes += approval_writes(self._table, approval)
                if approval.supersedes:
                    writes.append(self._supersede_write(approval))
            try:
                self._table.transact([*writes, self._audit_put(event)])
            except ConditionFailed as failed:
                if approval is not None and approval.supersedes and failed.failed(3):
                    continue  # the old approval changed since it was read (a vote): judge it again
                raise IntegrityError(f"checkpoint {checkpoint_id} or its approval already exists") from None
            return
        raise StaleStateError(f"approval {approval.supersedes if approval else ''} kept changing; nothing was written")

    def _supersede_write(self, approval: ApprovalRecord) -> Item:
        stored = read_stored(self._table, approval.supersedes)
        if stored is None:
            raise NotFoundError(f"approval {approval.supersedes} does not exist")
        raw, old = stored
        # The domain refuses when the old approval is no longer open (decided, expired, superseded already).
        return replace_write(self._table, raw, old.superseded(approval.approval_id, parse_utc(approval.created_at)))

    def get_checkpoint(self, checkpoint_id: str) -> str | None:
        """The checkpoint's stored JSON text."""
        item = self._table.get(SHOP_PK, CHECKPOINT_SK_PREFIX + checkpoint_id)
        return None if item is None else str(item["raw"]["S"])

    def list_checkpoints(self) -> list[str]:
        """Every checkpoint's JSON text, oldest first."""
        items, _ = self._table.query(SHOP_PK, CHECKPOINT_SK_PREFIX)
        items.sort(key=lambda i: int(i["recorded_ns"]["N"]))
        return [str(i["raw"]["S"]) for i in items]

    def get_decision(self, checkpoint_id: str) -> DecisionRecord | None:
        """The claimed decision for a checkpoint, if any."""
        item = self._table.get(SHOP_PK, DECISION_SK_PREFIX + checkpoint_id)
        return None if item is None else DecisionRecord.model_validate_json(item["raw"]["S"])

    @staticmethod
    def _decision_item(record: DecisionRecord) -> Item:
        item = {
            **key(SHOP_PK, DECISION_SK_PREFIX + record.checkpoint_id),
            "raw": s(record.model_dump_json()),
            "claim_token": s(record.claim_token or "-"),
        }
        if record.completion is not None:
            item["completed_at"] = s(record.completion.completed_at)
        return item

    def claim_decision(self, record: DecisionRecord, event: AuditEvent) -> None:
        """Put the decision if none exists, with its audit event, in one transaction."""
        item = self._decision_item(record)
        try:
            self._table.transact([self._table.put_op(item, condition=_ABSENT), self._audit_put(event)])
        except ConditionFailed:
            raise DecisionAlreadyClaimedError(
                f"a decision for checkpoint {record.checkpoint_id} was already recorded"
            ) from None

    def take_over_decision(self, record: DecisionRecord, previous_token: str, event: AuditEvent) -> None:
        """Replace an open claim still held by ``previous_token``; else ``DecisionAlreadyClaimedError``."""
        put = self._table.put_op(self._decision_item(record), condition=_HELD, values={":token": s(previous_token)})
        try:
            self._table.transact([put, self._audit_put(event)])
        except ConditionFailed:
            raise DecisionAlreadyClaimedError(
                f"another resume took over or finished the decision of checkpoint {record.checkpoint_id}"
            ) from None

    def complete_decision(
        self, checkpoint_id: str, claim_token: str, completion: Completion, event: AuditEvent | None
    ) -> bool:
        """Record the outcome if ``claim_token`` still holds the open claim; False when it does not."""
        current = self.get_decision(checkpoint_id)
        if current is None or current.claim_token != claim_token or current.completion is not None:
            return False
        put = self._table.put_op(
            self._decision_item(current.model_copy(update={"completion": completion})),
            condition=_HELD,
            values={":token": s(claim_token)},
        )
        try:
            self._table.transact([put] if event is None else [put, self._audit_put(event)])
        except ConditionFailed:
            return False  # taken over meanwhile: the new holder finishes and records the outcome
        return True

    def apply_plan(
        self,
        *,
        proposal_hash: str,
        checkpoint_id: str,
        new_state: ShopState,
        expected_revision: int,
        expected_digest: str,
        event: AuditEvent,
    ) -> bool:
        """State update + application record + ``plan_applied`` event, conditioned on revision and digest."""
        application = {
            **key(SHOP_PK, APPLICATION_SK_PREFIX + proposal_hash),
            "checkpoint_id": s(checkpoint_id),
            "revision": n(new_state.revision),
        }
        faults.point("inside_apply")  # the transaction is built and not sent: a crash here writes nothing
        try:
            self._table.transact(
                [
                    self._table.put_op(
                        self._state_item(new_state),
                        condition=_UNCHANGED,
                        values=self._unchanged(expected_revision, expected_digest),
                    ),
                    self._table.put_op(application, condition=_ABSENT),
                    self._audit_put(event),
                ]
            )
        except ConditionFailed as failed:
            if failed.failed(1):
                return False  # this proposal already applied: the replay converges without a second write
            found = failed.found(0)
            raise StaleStateError(
                "the shop changed since the plan was verified",
                expected={"revision": expected_revision, "digest": expected_digest},
                found=None if not found else {"revision": int(found["revision"]["N"]), "digest": found["digest"]["S"]},
            ) from None
        return True

    def application_count(self, proposal_hash: str | None = None) -> int:
        """How many plans applied (for one proposal, or in all)."""
        if proposal_hash is not None:
            return 0 if self._table.get(SHOP_PK, APPLICATION_SK_PREFIX + proposal_hash) is None else 1
        _, count = self._table.query(SHOP_PK, APPLICATION_SK_PREFIX, count_only=True)
        return count

    def append_audit(self, event: AuditEvent) -> None:
        """Append one audit event."""
        self._table.transact([self._audit_put(event)])

    def audit_events(self) -> list[AuditEvent]:
        """The audit trail, oldest first."""
        items, _ = self._table.query(SHOP_PK, AUDIT_SK_PREFIX)
        return [AuditEvent.model_validate_json(i["raw"]["S"]) for i in items]

    def raw_audit_trail(self) -> tuple[list[AuditEvent | None], tuple[int, str, str] | None]:
        """Every stored event in sort-key order (None where unreadable) and the chain head.

        The head is read first: events appended after it only extend the trail past the head.
        """
        head = _head(self._table.get(SHOP_PK, AUDIT_HEAD_SK))
        items, _ = self._table.query(SHOP_PK, AUDIT_SK_PREFIX)
        events: list[AuditEvent | None] = []
        for item in items:
            try:
                events.append(AuditEvent.model_validate_json(item["raw"]["S"]))
            except (KeyError, ValueError):
                events.append(None)
        return events, head

    def put_state_snapshot(self, digest: str, data: bytes) -> None:
        """Keep the canonical state whose hash is ``digest``; content-addressed, so a second put is a no-op."""
        with contextlib.suppress(ConditionFailed):
            self._table.put({**key(SNAPSHOT_PK_PREFIX + digest, SNAPSHOT_SK), "data": b(data)}, condition=_ABSENT)

    def get_state_snapshot(self, digest: str) -> bytes | None:
        """The snapshot stored under ``digest`` (callers re-hash it)."""
        item = self._table.get(SNAPSHOT_PK_PREFIX + digest, SNAPSHOT_SK)
        return None if item is None else bytes(item["data"]["B"])
