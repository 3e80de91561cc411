"""DynamoDB :class:`ShopStore` on the one table (the layout and every conditional write: docs/dynamodb-design.md).

Each state change is a single conditional write or one ``TransactWriteItems``; the apply puts STATE if
revision and digest match, APPLICATION#<hash> if absent, the plan's outbox messages if absent and the
``plan_applied`` event together, so a replay, a double click or a Lambda retry can never apply a plan or
queue a message twice. STATE holds revision, digest and, while small, the state itself; a large state is
the content-addressed, chunked ``SNAPSHOT#<digest>`` written just before (shop_items.StateContent).
Every audit event is linked into the hash chain in the same transaction (chained_table.py); immutable items
(proposals, checkpoints, snapshots, an application once seen, the claimed decision) are read once per process.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any

from ... import faults
from ...domain.approval.approvals import ApprovalRecord
from ...domain.errors import (
    DecisionAlreadyClaimedError,
    IntegrityError,
    RequestClaimTakenError,
    ShopError,
    StaleStateError,
)
from ...domain.intake.request_key import RunRequest
from ...domain.messages.outbox import OutboxMessage
from ...domain.ports import MacKey
from ...domain.records import TOOL_CALLED_EVENT, AuditEvent, Completion, DecisionRecord
from ...domain.shop.model import ShopState
from .. import run_lists
from .chained_table import AUDIT_EVENT, ChainedTable, head_of
from .dynamo_table import ConditionFailed, Item, key, n, now_ns, s
from .dynamodb_approvals import ApprovalChanges, approval_writes, supersede_write
from .dynamodb_outbox import DynamoOutbox, outbox_item
from .dynamodb_runs import DynamoRunItems, request_key_puts
from .read_cache import Immutable, ReadAhead
from .shop_items import Row, StateContent, checkpoint_item, decision_item, open_checkpoint_raws
from .table_schema import (
    APPLICATION_PK,
    APPLICATION_SK_PREFIX,
    AUDIT_HEAD_SK,
    AUDIT_PK,
    AUDIT_SK_PREFIX,
    CHECKPOINT_PK,
    CHECKPOINT_SK_PREFIX,
    PARTITION_KEY,
    application_key,
    checkpoint_key,
    decision_key,
    state_key,
)

_ABSENT = f"attribute_not_exists({PARTITION_KEY})"
_UNCHANGED = f"attribute_exists({PARTITION_KEY}) AND revision = :revision AND digest = :digest"
_HELD = f"attribute_exists({PARTITION_KEY}) AND claim_token = :token AND attribute_not_exists(completed_at)"
_OPTIMISTIC_ATTEMPTS = 5


class DynamoShopStore(DynamoOutbox, DynamoRunItems, ApprovalChanges):
    """One shop in one DynamoDB table. With ``audit_key`` every audit link and the chain head are MACed."""

    _table: ChainedTable

    def __init__(self, client: Any, table_name: str, audit_key: MacKey | None = None) -> None:
        self._table = ChainedTable(client, table_name, audit_key)
        self._proposals, self._checkpoints = Immutable(), Immutable()
        self._content = StateContent(self._table)
        self._applied = Immutable()  # proposal hashes seen applied (an application record is never removed)
        self._claims = Immutable()  # checkpoint id -> the decision record this process claimed
        # The last state row read or written: the first attempt of a conditional update starts from it.
        self._last_row: Row | None = None
        self._ahead = ReadAhead()

    # -- items ---------------------------------------------------------------------------------------

    @staticmethod
    def _audit_put(event: AuditEvent) -> Item:
        # A placeholder: ChainedTable.transact links it to the chain head when the transaction is sent.
        return {AUDIT_EVENT: event}

    @staticmethod
    def _unchanged(revision: int, digest: str) -> Item:
        return {":revision": n(revision), ":digest": s(digest)}

    def _state_row(self) -> Row | None:
        ahead = self._ahead.take("state")
        row = ahead if ahead is not None else self._content.row(self._table.get(*state_key()))
        self._last_row = row
        return row

    def _keep(self, state: ShopState) -> ShopState:
        self._last_row = (state.revision, state.digest(), state)
        return state

    def _update_state(self, change: Callable[[ShopState], ShopState | None], event: AuditEvent) -> ShopState:
        """Read-modify-write conditioned on what was read; ``change`` returning None means nothing to write.

        The first attempt may start from the last row this process saw instead of reading: if that is stale
        the condition fails and the update is read and tried again. A verdict that needs no write (or refuses)
        is only ever given on a fresh read.
        """
        cached = self._last_row
        for attempt in range(_OPTIMISTIC_ATTEMPTS):
            row = cached if attempt == 0 and cached is not None else self._state_row()
            if row is None:
                raise ShopError("the shop has not been seeded")
            revision, digest, state = row
            try:
                updated = change(state)
            except ShopError:
                if row is cached:
                    continue  # judged on a copy: judge again on a fresh read
                raise
            if updated is None:
                if row is cached:
                    continue
                return state
            try:
                self._table.transact(
                    [
                        self._table.put_op(
                            self._content.item(updated), condition=_UNCHANGED, values=self._unchanged(revision, digest)
                        ),
                        self._audit_put(event),
                    ]
                )
            except ConditionFailed:
                continue  # another writer moved the state between our read and our write: read again
            return self._keep(updated)
        raise StaleStateError("the shop kept changing while this update was attempted")

    # -- ShopStore -----------------------------------------------------------------------------------

    def load_state(self) -> ShopState | None:
        """The current shop state, or None before it was seeded."""
        row = self._state_row()
        return None if row is None else row[2]

    def seed(self, state: ShopState, event: AuditEvent) -> ShopState:
        """Store ``state`` if the shop is empty; a shop seeded with another scenario is an error."""
        # Read first: every start seeds, and the shop exists for all but the first (one round trip, not three).
        existing = self.load_state()
        if existing is None:
            try:
                self._table.transact(
                    [self._table.put_op(self._content.item(state), condition=_ABSENT), self._audit_put(event)]
                )
                return self._keep(state)
            except ConditionFailed:
                existing = self.load_state()  # seeded by another start meanwhile
        if existing is None:  # pragma: no cover - the condition failed because the state exists
            raise ShopError("the shop state vanished while seeding")
        if existing.name != state.name:
            raise ShopError(f"this table holds the {existing.name!r} shop, not {state.name!r}")
        return existing

    def replace_shop(self, state: ShopState, expected: tuple[int, str] | None, event: AuditEvent) -> None:
        """Put ``state`` in place of the shop whose revision and digest are ``expected`` (None: no shop yet)."""
        if expected is None:
            condition, values = _ABSENT, None
        else:
            condition, values = _UNCHANGED, self._unchanged(*expected)
        try:
            self._table.transact(
                [
                    self._table.put_op(self._content.item(state), condition=condition, values=values),
                    self._audit_put(event),
                ]
            )
        except ConditionFailed as failed:
            found = failed.found(0)
            raise StaleStateError(
                "the shop changed while it was being replaced",
                expected=None if expected is None else {"revision": expected[0], "digest": expected[1]},
                found=None if not found else {"revision": int(found["revision"]["N"]), "digest": found["digest"]["S"]},
            ) from None

    def set_inventory(self, material_id: str, quantity: int, event: AuditEvent) -> ShopState:
        """The operator's out-of-band count of ``material_id``; changes the digest, not the revision."""
        return self._update_state(lambda state: state.with_inventory(material_id, quantity), event)

    def put_checkpoint(
        self,
        checkpoint_id: str,
        raw: str,
        event: AuditEvent,
        approval: ApprovalRecord | None = None,
        request_key: RunRequest | None = None,
    ) -> None:
        """Create the checkpoint (never overwrite) with its audit event, given, its approval (closing the
        approval it supersedes, conditioned on the record read) and its request key, in one transaction."""
        item = checkpoint_item(checkpoint_id, raw, now_ns())
        for _ in range(_OPTIMISTIC_ATTEMPTS):
            writes = [self._table.put_op(item, condition=_ABSENT)]
            if approval is not None:
                writes += approval_writes(self._table, approval)
                if approval.supersedes:
                    writes.append(supersede_write(self._table, approval))
            superseding, claim = len(writes) - 1, len(writes)
            if request_key is not None:
                writes += request_key_puts(self._table, request_key)
            try:
                self._table.transact([*writes, self._audit_put(event)])
            except ConditionFailed as failed:
                if approval is not None and approval.supersedes and failed.failed(superseding):
                    continue  # the old approval changed since it was read (a vote): judge it again
                if request_key is not None and failed.failed(claim):
                    raise RequestClaimTakenError(
                        "another start of this request wrote its run first; this one wrote nothing"
                    ) from None
                raise IntegrityError(f"checkpoint {checkpoint_id} or its approval already exists") from None
            self._checkpoints.keep(checkpoint_id, raw)
            return
        raise StaleStateError(f"approval {approval.supersedes if approval else ''} kept changing; nothing was written")

    def get_checkpoint(self, checkpoint_id: str) -> str | None:
        """The checkpoint's stored JSON text (never overwritten, so read once per process)."""
        cached = self._checkpoints.get(checkpoint_id)
        if cached is not None:
            return str(cached)
        # Whoever reads a checkpoint next reads its decision and the shop (the resume gate, the approval
        # page): one round trip for all of them, and the audit chain head for the next append.
        decision, checkpoint, state = decision_key(checkpoint_id), checkpoint_key(checkpoint_id), state_key()
        found = self._table.batch_get([checkpoint, decision, state, (AUDIT_PK, AUDIT_HEAD_SK)])
        self._ahead.hold(
            {
                f"decision:{checkpoint_id}": ("found", found.get(decision)),
                "state": self._content.row(found.get(state)),
            }
        )
        self._table.know_head(head_of(found.get((AUDIT_PK, AUDIT_HEAD_SK))))
        item = found.get(checkpoint)
        return None if item is None else str(self._checkpoints.keep(checkpoint_id, str(item["raw"]["S"])))

    def list_checkpoints(self) -> list[str]:
        """Every checkpoint's JSON text, oldest first."""
        items, _ = self._table.query(CHECKPOINT_PK, CHECKPOINT_SK_PREFIX)
        items.sort(key=lambda i: int(i["recorded_ns"]["N"]))
        return [str(i["raw"]["S"]) for i in items]

    def get_decision(self, checkpoint_id: str) -> DecisionRecord | None:
        """The claimed decision for a checkpoint, if any."""
        ahead = self._ahead.take(f"decision:{checkpoint_id}")
        item = ahead[1] if ahead is not None else self._table.get(*decision_key(checkpoint_id))
        return None if item is None else DecisionRecord.model_validate_json(item["raw"]["S"])

    def claim_decision(self, record: DecisionRecord, event: AuditEvent) -> None:
        """Put the decision if none exists, with its audit event, in one transaction."""
        item = decision_item(record)
        try:
            self._table.transact([self._table.put_op(item, condition=_ABSENT), self._audit_put(event)])
        except ConditionFailed:
            raise DecisionAlreadyClaimedError(
                f"a decision for checkpoint {record.checkpoint_id} was already recorded"
            ) from None
        self._claims.keep(record.checkpoint_id, record)

    def take_over_decision(self, record: DecisionRecord, previous_token: str, event: AuditEvent) -> None:
        """Replace an open claim still held by ``previous_token``; else ``DecisionAlreadyClaimedError``."""
        put = self._table.put_op(decision_item(record), condition=_HELD, values={":token": s(previous_token)})
        try:
            self._table.transact([put, self._audit_put(event)])
        except ConditionFailed:
            raise DecisionAlreadyClaimedError(
                f"another resume took over or finished the decision of checkpoint {record.checkpoint_id}"
            ) from None
        self._claims.keep(record.checkpoint_id, record)

    def complete_decision(
        self, checkpoint_id: str, claim_token: str, completion: Completion, event: AuditEvent | None
    ) -> bool:
        """Record the outcome if ``claim_token`` still holds the open claim; False when it does not."""
        # The record this process claimed under ``claim_token`` is what is stored unless another resume took
        # it over, and then the put's condition (same token, no outcome) refuses: no read needed first.
        mine = self._claims.get(checkpoint_id)
        current = mine if mine is not None and mine.claim_token == claim_token else self.get_decision(checkpoint_id)
        if current is None or current.claim_token != claim_token or current.completion is not None:
            self._table.flush()
            return False
        put = self._table.put_op(
            decision_item(current.model_copy(update={"completion": completion})),
            condition=_HELD,
            values={":token": s(claim_token)},
        )
        try:
            self._table.transact([put] if event is None else [put, self._audit_put(event)])
        except ConditionFailed:
            self._table.flush()  # this run's tool-call records still belong in the trail
            return False  # taken over meanwhile: the new holder finishes and records the outcome
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
        """State update + application record + ``plan_applied`` event + outbox items, in one transaction
        conditioned on revision and digest."""
        application = {
            **key(*application_key(proposal_hash)),
            "checkpoint_id": s(checkpoint_id),
            "revision": n(new_state.revision),
        }
        # Plain writes first (their positions are what a cancellation reports), the chained event last.
        writes = [
            self._table.put_op(
                self._content.item(new_state),
                condition=_UNCHANGED,
                values=self._unchanged(*expected),
            ),
            self._table.put_op(application, condition=_ABSENT),
            *(self._table.put_op(outbox_item(m), condition=_ABSENT) for m in messages),
            self._audit_put(event),
        ]
        faults.point("inside_apply")  # the transaction is built and not sent: a crash here writes nothing
        faults.point("inside_apply_outbox")
        try:
            self._table.transact(writes)
        except ConditionFailed as failed:
            if failed.failed(1):
                self._applied.keep(proposal_hash, True)
                return False  # this proposal already applied: the replay converges without a second write
            if any(failed.failed(2 + i) for i in range(len(messages))):
                # No application item, yet a message exists: only a hand-edited table gets here.
                raise IntegrityError(
                    f"outbox messages of {proposal_hash} exist for a plan that never applied"
                ) from None
            found = failed.found(0)
            raise StaleStateError(
                "the shop changed since the plan was verified",
                expected={"revision": expected[0], "digest": expected[1]},
                found=None if not found else {"revision": int(found["revision"]["N"]), "digest": found["digest"]["S"]},
            ) from None
        self._applied.keep(proposal_hash, True)
        self._keep(new_state)
        return True

    def application_count(self, proposal_hash: str | None = None) -> int:
        """How many plans applied (for one proposal, or in all)."""
        if proposal_hash is not None:
            if self._applied.get(proposal_hash):
                return 1
            if self._table.get(*application_key(proposal_hash)) is None:
                return 0
            self._applied.keep(proposal_hash, True)
            return 1
        _, count = self._table.query(APPLICATION_PK, APPLICATION_SK_PREFIX, count_only=True)
        return count

    def append_audit(self, event: AuditEvent) -> None:
        """Append one audit event; a tool-call record goes with the next audited write (chained_table.py)."""
        if event.event_type == TOOL_CALLED_EVENT:
            self._table.defer(event)
            return
        self._table.transact([self._audit_put(event)])

    def audit_events(self) -> list[AuditEvent]:
        """The audit trail, oldest first."""
        items, _ = self._table.query(AUDIT_PK, AUDIT_SK_PREFIX)
        return [AuditEvent.model_validate_json(i["raw"]["S"]) for i in items]

    def raw_audit_trail(self) -> tuple[list[AuditEvent | None], tuple[int, str, str] | None]:
        """Every stored event in sort-key order (None where unreadable) and the chain head."""
        return self._table.audit_trail()

    def put_state_snapshot(self, digest: str, data: bytes) -> None:
        """Keep the canonical state ``data`` under ``digest`` (content-addressed: a second put is a no-op)."""
        self._content.put_snapshot(digest, data)

    def get_state_snapshot(self, digest: str) -> bytes | None:
        """The snapshot stored under ``digest`` (callers re-hash it)."""
        return self._content.get_snapshot(digest)

    # The runs' list reads: the open ones from the open-runs index (the runs whose window has not passed, a
    # superset the services judge run by run), the others one Query of the checkpoints (or the audit trail).
    def open_checkpoints(self, now: datetime) -> list[str]:
        """The checkpoints whose window has not passed at ``now``, oldest first (a superset of the open runs')."""
        return open_checkpoint_raws(self._table, now)

    def recent_checkpoints(self, limit: int | None, since: str | None) -> tuple[list[str], int]:
        """The latest ``limit`` checkpoints created on or after ``since``, oldest first, and how many are stored."""
        return run_lists.recent(self.list_checkpoints(), limit, since)

    def audit_events_of(
        self,
        event_types: Collection[str],
        *,
        checkpoint_id: str | None = None,
        limit: int | None = None,
        since: str | None = None,
    ) -> tuple[list[AuditEvent], int]:
        """The latest ``limit`` events of ``event_types`` (of one checkpoint, at or after ``since``), and how many."""
        return run_lists.events_of(self.audit_events(), event_types, checkpoint_id, limit, since)
