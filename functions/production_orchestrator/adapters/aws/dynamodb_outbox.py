"""The outbox items of the one table: ``OUTBOX / OUTBOX#<proposal hash>#<index>``, one per drafted message.

The apply creates them (``attribute_not_exists``) in its transaction; every delivery step afterwards is a
compare-and-set on the raw record it read, so of racing senders exactly one moves a message on.
"""

from __future__ import annotations

from ...domain.errors import IntegrityError
from ...domain.messages.outbox import OutboxMessage, outbox_order
from ...domain.records import AuditEvent
from .dynamo_table import ConditionFailed, DynamoTable, Item, key, s
from .table_schema import OUTBOX_PK, OUTBOX_SK_PREFIX, PARTITION_KEY, outbox_key

_SAME_RAW = f"attribute_exists({PARTITION_KEY}) AND #raw = :raw"


def outbox_item(message: OutboxMessage) -> Item:
    """The table item of ``message``."""
    return {
        **key(*outbox_key(message.key)),
        "raw": s(message.model_dump_json()),
        "status": s(message.status),
    }


class DynamoOutbox:
    """The outbox half of :class:`DynamoShopStore` (which provides ``_table``, linking audit events)."""

    _table: DynamoTable

    @staticmethod
    def _audit_put(event: AuditEvent) -> Item:
        """The transaction item of an audit event (linked into the chain by the store's table)."""
        raise NotImplementedError

    def outbox_messages(self, proposal_hash: str | None = None) -> list[OutboxMessage]:
        """Every message (of one plan, or all), in ``outbox_order``: in AWS only plans' messages (approval links
        go by SNS), rows of version 1 read as they are stored."""
        prefix = OUTBOX_SK_PREFIX + (f"{proposal_hash}#" if proposal_hash else "")
        items, _ = self._table.query(OUTBOX_PK, prefix)
        return outbox_order((n, OutboxMessage.model_validate_json(i["raw"]["S"])) for n, i in enumerate(items))

    def replace_outbox_message(
        self, previous: OutboxMessage, updated: OutboxMessage, event: AuditEvent | None = None
    ) -> bool:
        """Compare-and-set: put ``updated`` only while the stored raw record is still ``previous``'s."""
        if updated.key != previous.key:
            raise IntegrityError(f"outbox message {previous.key} cannot become {updated.key}")
        put = self._table.put_op(
            outbox_item(updated), condition=_SAME_RAW, values={":raw": s(previous.model_dump_json())}
        )
        put["Put"]["ExpressionAttributeNames"] = {"#raw": "raw"}
        try:
            self._table.transact([put] if event is None else [put, self._audit_put(event)])
        except ConditionFailed:
            return False
        return True
