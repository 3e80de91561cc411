"""DynamoDB implementation of :class:`ApprovalStore` on the one table.

An approval lives at ``APPROVAL#<id>`` with its record as JSON plus the attributes its conditions
read (``status``, ``expires_epoch``) and a TTL; a pointer ``SHOP / APPROVAL_OF#<checkpoint>#<id>`` (no
secrets) lets the expiry step find every approval of a checkpoint without a secondary index.

    pending --UpdateItem if status = pending, votes = <read> and expires_epoch > now--> pending | decided
    pending|decided --UpdateItem if status = <from>-------------------> expired
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...domain.approvals import APPROVAL_ID_PATTERN, ApprovalRecord, ApprovalStatus, Vote
from ...domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, IntegrityError, NotFoundError
from ...domain.records import CHECKPOINT_ID_PATTERN, parse_utc, require_id, utc_iso
from .dynamo_table import ConditionFailed, DynamoTable, Item, key, n, s
from .table_schema import (
    APPROVAL_OF_SK_PREFIX,
    APPROVAL_PK_PREFIX,
    APPROVAL_RETENTION_SECONDS,
    APPROVAL_SK,
    PARTITION_KEY,
    SHOP_PK,
    TTL_ATTRIBUTE,
)

_NAMES = {"#status": "status"}


def _epoch(moment: str) -> int:
    return int(parse_utc(moment).timestamp())


class DynamoApprovalStore:
    """Approval records in the shop's table."""

    def __init__(self, client: Any, table_name: str) -> None:
        self._table = DynamoTable(client, table_name)

    @staticmethod
    def _item(record: ApprovalRecord) -> Item:
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

    @staticmethod
    def _record(item: Item | None) -> ApprovalRecord | None:
        return None if item is None else ApprovalRecord.model_validate_json(item["record"]["S"])

    def create_approval(self, record: ApprovalRecord) -> None:
        """Create the approval and its checkpoint pointer together; an existing id is ``IntegrityError``."""
        pointer = {
            **key(SHOP_PK, f"{APPROVAL_OF_SK_PREFIX}{record.checkpoint_id}#{record.approval_id}"),
            "approval_id": s(record.approval_id),
            TTL_ATTRIBUTE: n(_epoch(record.expires_at) + APPROVAL_RETENTION_SECONDS),
        }
        absent = f"attribute_not_exists({PARTITION_KEY})"
        try:
            self._table.transact(
                [
                    self._table.put_op(self._item(record), condition=absent),
                    self._table.put_op(pointer, condition=absent),
                ]
            )
        except ConditionFailed:
            raise IntegrityError(f"approval {record.approval_id} already exists") from None

    def get_approval(self, approval_id: str) -> ApprovalRecord | None:
        """The approval, read consistently, or None (also for an id that could never exist)."""
        if not isinstance(approval_id, str) or not APPROVAL_ID_PATTERN.match(approval_id):
            return None
        return self._record(self._table.get(APPROVAL_PK_PREFIX + approval_id, APPROVAL_SK))

    def approvals_for(self, checkpoint_id: str) -> list[ApprovalRecord]:
        """Every approval requested for ``checkpoint_id`` (in approval-id order)."""
        require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
        pointers, _ = self._table.query(SHOP_PK, f"{APPROVAL_OF_SK_PREFIX}{checkpoint_id}#")
        found = (self.get_approval(str(p["approval_id"]["S"])) for p in pointers)
        return [record for record in found if record is not None]

    def _existing(self, approval_id: str) -> ApprovalRecord:
        record = self.get_approval(approval_id)
        if record is None:
            raise NotFoundError(f"approval {approval_id} does not exist")
        return record

    def _transition(self, before: ApprovalRecord, after: ApprovalRecord, *, condition: str, values: Item) -> None:
        self._table.update(
            APPROVAL_PK_PREFIX + before.approval_id,
            APPROVAL_SK,
            update="SET #status = :to, #record = :record, #votes = :votes",
            condition=condition,
            names={**_NAMES, "#record": "record", "#votes": "votes"},
            values={
                ":to": s(after.status),
                ":record": s(after.model_dump_json()),
                ":votes": n(len(after.votes)),
                **values,
            },
        )

    @staticmethod
    def _refuse(record: ApprovalRecord, now: datetime) -> None:
        if record.status == "decided":
            raise DecisionAlreadyClaimedError(f"approval {record.approval_id} was already decided")
        if record.status == "expired" or now >= parse_utc(record.expires_at):
            raise ApprovalExpiredError(f"approval {record.approval_id} expired at {record.expires_at}")

    def record_approval_vote(self, approval_id: str, vote: Vote, *, now: datetime) -> ApprovalRecord:
        """Add ``vote`` if the approval is still pending with the votes read; a reject or the quorum decides."""
        before = self._existing(approval_id)
        self._refuse(before, now)
        if before.has_voted(vote.decision.approver):
            raise DecisionAlreadyClaimedError(f"{vote.decision.approver} already decided on approval {approval_id}")
        after = before.with_vote(vote, utc_iso(now))
        try:
            self._transition(
                before,
                after,
                condition="#status = :pending AND #votes = :seen AND expires_epoch > :now",
                values={":pending": s("pending"), ":seen": n(len(before.votes)), ":now": n(int(now.timestamp()))},
            )
        except ConditionFailed:
            # Lost a race (double click, two approvers): report what the winner left behind.
            self._refuse(self._existing(approval_id), now)
            raise DecisionAlreadyClaimedError(f"approval {approval_id} changed while this vote was recorded") from None
        return after

    def expire_approval(
        self, approval_id: str, *, now: datetime, from_status: ApprovalStatus = "pending", superseded_by: str = ""
    ) -> ApprovalRecord:
        """``from_status`` -> expired; an already expired approval is returned unchanged."""
        before = self._existing(approval_id)
        if before.status == "expired":
            return before
        if before.status != from_status:
            raise DecisionAlreadyClaimedError(f"approval {approval_id} is {before.status}, not {from_status}")
        after = before.model_copy(
            update={"status": "expired", "closed_at": utc_iso(now), "superseded_by": superseded_by}
        )
        try:
            self._transition(before, after, condition="#status = :from", values={":from": s(from_status)})
        except ConditionFailed:
            current = self._existing(approval_id)
            if current.status == "expired":
                return current
            raise DecisionAlreadyClaimedError(
                f"approval {approval_id} is {current.status}, not {from_status}"
            ) from None
        return after
