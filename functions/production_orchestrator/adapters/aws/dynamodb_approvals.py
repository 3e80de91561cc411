"""DynamoDB implementation of :class:`ApprovalStore` on the one table.

An approval lives at ``APPROVAL#<id>`` with its record as JSON plus ``status``, ``checkpoint_id`` and
``expires_epoch`` and a TTL; a pointer ``APPROVAL_OF / APPROVAL_OF#<checkpoint>#<id>`` (no secrets) lets the
expiry step find every approval of a checkpoint, and the reconciler every approval, without an index.

Every change is the domain's transition applied to the record read, written with the condition that the
stored record is still exactly that one (``#record = :before``):

    read -> change (domain; may refuse) -> UpdateItem if record = <read> --lost the race--> read again

so two approvers voting at once both count (the loser adds its vote to the winner's record), and a vote
racing an expiry or a "propose again" gets the domain's refusal for what it finds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...domain.approval.approvals import APPROVAL_ID_PATTERN, ApprovalRecord, ApprovalTransitions
from ...domain.errors import BackendError, IntegrityError, NotFoundError
from ...domain.messages.outbox import OutboxMessage
from ...domain.records import CHECKPOINT_ID_PATTERN, AuditEvent, parse_utc, require_id
from .chained_table import AUDIT_EVENT, ChainedTable
from .dynamo_table import ConditionFailed, DynamoTable, Item, key, n, s
from .table_schema import (
    APPROVAL_OF_PK,
    APPROVAL_OF_SK_PREFIX,
    APPROVAL_PK_PREFIX,
    APPROVAL_RETENTION_SECONDS,
    APPROVAL_SK,
    PARTITION_KEY,
    TTL_ATTRIBUTE,
    approval_of_key,
)

_ABSENT = f"attribute_not_exists({PARTITION_KEY})"
_UNCHANGED = "#record = :before"
_RACE_ATTEMPTS = 8


def _epoch(moment: str) -> int:
    return int(parse_utc(moment).timestamp())


def approval_item(record: ApprovalRecord) -> Item:
    """The approval's item: the record and the attributes operators and TTL read."""
    expires = _epoch(record.expires_at)
    return {
        **key(APPROVAL_PK_PREFIX + record.approval_id, APPROVAL_SK),
        "record": s(record.model_dump_json()),
        "status": s(record.status),
        "votes": n(len(record.votes)),
        "checkpoint_id": s(record.checkpoint_id),
        "expires_epoch": n(expires),
        TTL_ATTRIBUTE: n(expires + APPROVAL_RETENTION_SECONDS),
    }


def approval_writes(table: DynamoTable, record: ApprovalRecord) -> list[Item]:
    """The transaction items that create ``record`` and its checkpoint pointer (both only if absent)."""
    pointer = {
        **key(*approval_of_key(record.checkpoint_id, record.approval_id)),
        "approval_id": s(record.approval_id),
        TTL_ATTRIBUTE: n(_epoch(record.expires_at) + APPROVAL_RETENTION_SECONDS),
    }
    return [table.put_op(approval_item(record), condition=_ABSENT), table.put_op(pointer, condition=_ABSENT)]


def replace_write(table: DynamoTable, stored: str, after: ApprovalRecord) -> Item:
    """A transaction item that writes ``after`` only if the stored record text is still ``stored``.

    An update of the existing item, never a put: a role that moves approvals (the public decision function)
    needs no right to create one.
    """
    item = approval_item(after)
    changed = ("record", "status", "votes", "expires_epoch", TTL_ATTRIBUTE)
    return table.update_op(
        APPROVAL_PK_PREFIX + after.approval_id,
        APPROVAL_SK,
        update="SET " + ", ".join(f"#a{i} = :a{i}" for i in range(len(changed))),
        condition=f"attribute_exists({PARTITION_KEY}) AND {_UNCHANGED}",
        names={"#record": "record", **{f"#a{i}": name for i, name in enumerate(changed)}},
        values={":before": s(stored), **{f":a{i}": item[name] for i, name in enumerate(changed)}},
    )


def read_stored(table: DynamoTable, approval_id: str) -> tuple[str, ApprovalRecord] | None:
    """The stored record text (what a replacement is conditioned on) and the record it holds."""
    if not isinstance(approval_id, str) or not APPROVAL_ID_PATTERN.fullmatch(approval_id):
        return None
    item = table.get(APPROVAL_PK_PREFIX + approval_id, APPROVAL_SK)
    if item is None:
        return None
    raw = str(item["record"]["S"])
    return raw, ApprovalRecord.model_validate_json(raw)


class DynamoApprovalStore(ApprovalTransitions):
    """Approval records in the shop's table."""

    def __init__(self, client: Any, table_name: str) -> None:
        self._table = DynamoTable(client, table_name)

    def create_approval(self, record: ApprovalRecord) -> None:
        """Create the approval and its checkpoint pointer together; an existing id is ``IntegrityError``."""
        try:
            self._table.transact(approval_writes(self._table, record))
        except ConditionFailed:
            raise IntegrityError(f"approval {record.approval_id} already exists") from None

    def get_approval(self, approval_id: str) -> ApprovalRecord | None:
        """The approval, read consistently, or None (also for an id that could never exist)."""
        stored = read_stored(self._table, approval_id)
        return None if stored is None else stored[1]

    def _pointed(self, prefix: str) -> list[ApprovalRecord]:
        pointers, _ = self._table.query(APPROVAL_OF_PK, prefix)
        found = (self.get_approval(str(p["approval_id"]["S"])) for p in pointers)
        return [record for record in found if record is not None]

    def approvals_for(self, checkpoint_id: str) -> list[ApprovalRecord]:
        """Every approval requested for ``checkpoint_id``, oldest first."""
        require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
        return sorted(self._pointed(f"{APPROVAL_OF_SK_PREFIX}{checkpoint_id}#"), key=lambda a: a.created_at)

    def list_approvals(self) -> list[ApprovalRecord]:
        """Every approval of the shop, oldest first."""
        return sorted(self._pointed(APPROVAL_OF_SK_PREFIX), key=lambda a: a.created_at)

    def _change(self, approval_id: str, change: Callable[[ApprovalRecord], ApprovalRecord]) -> ApprovalRecord:
        """Read, transform (the domain refuses what is not allowed), write if unchanged since the read."""
        for _ in range(_RACE_ATTEMPTS):
            stored = read_stored(self._table, approval_id)
            if stored is None:
                raise NotFoundError(f"approval {approval_id} does not exist")
            raw, before = stored
            after = change(before)
            if after == before:
                return after
            try:
                self._table.transact([replace_write(self._table, raw, after)])
            except ConditionFailed:
                continue  # another writer changed it between our read and our write: apply ours to theirs
            return after
        raise BackendError(f"approval {approval_id} kept changing under concurrent writers; nothing was written")


def supersede_write(table: DynamoTable, successor: ApprovalRecord) -> Item:
    """The conditional write that closes the approval ``successor`` replaces ("propose again"), conditioned on
    the record as read; the domain refuses when it is no longer open (decided, expired, superseded already)."""
    stored = read_stored(table, successor.supersedes)
    if stored is None:
        raise NotFoundError(f"approval {successor.supersedes} does not exist")
    raw, old = stored
    closed = old.superseded(
        successor.approval_id,
        parse_utc(successor.created_at),
        version=successor.version,
        proposal_hash=successor.proposal_hash,
    )
    return replace_write(table, raw, closed)


class ApprovalChanges:
    """``change_approval`` of the DynamoDB shop store: the approval's transition and its audit event in one
    ``TransactWriteItems`` (the approval conditioned on the record text read, the event linked into the chain by
    the chained table); a lost race reads again and re-judges. Nothing is written when nothing changes."""

    _table: ChainedTable

    def change_approval(
        self,
        approval_id: str,
        change: Callable[[ApprovalRecord], ApprovalRecord],
        event: Callable[[ApprovalRecord], AuditEvent | None],
        mail: Sequence[OutboxMessage] = (),
    ) -> tuple[ApprovalRecord, bool]:
        """See :meth:`ShopStore.change_approval`; ``mail`` is refused (in AWS links go by SNS)."""
        if mail:
            raise IntegrityError("approval e-mail goes by SNS in AWS: there is no approval outbox on the table")
        for _ in range(_RACE_ATTEMPTS):
            stored = read_stored(self._table, approval_id)
            if stored is None:
                raise NotFoundError(f"approval {approval_id} does not exist")
            raw, before = stored
            after = change(before)
            if after == before:
                return after, False
            found = event(after)
            writes = [replace_write(self._table, raw, after), *([{AUDIT_EVENT: found}] if found else [])]
            try:
                self._table.transact(writes)
            except ConditionFailed:
                continue  # another writer changed the approval between our read and our write: judge it again
            return after, True
        raise BackendError(f"approval {approval_id} kept changing under concurrent writers; nothing was written")
