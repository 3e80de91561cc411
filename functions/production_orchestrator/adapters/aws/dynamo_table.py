"""Low-level access to the one table: consistent reads, paginated queries, and writes whose failed
conditions come back as data (the stores turn them into typed domain errors).

Every call goes through :meth:`DynamoTable._call`, so a raw ``ClientError`` never leaves this package:
a failed condition becomes :class:`ConditionFailed`, anything else :class:`BackendError`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.errors import BackendError
from .table_schema import MAX_ITEM_BYTES, PARTITION_KEY, SORT_KEY

Item = dict[str, Any]
_CONFLICT_RETRIES = 4


@dataclass
class ConditionFailed(Exception):
    """A conditional write was refused. ``reasons`` holds one code per transaction item ("None" when fine)."""

    reasons: list[str]
    items: list[Item | None]

    def failed(self, index: int) -> bool:
        """True when item ``index`` of the transaction failed its condition."""
        return index < len(self.reasons) and self.reasons[index] == "ConditionalCheckFailed"

    def found(self, index: int) -> Item | None:
        """The item as DynamoDB found it when item ``index``'s condition failed (if returned)."""
        return self.items[index] if index < len(self.items) else None


def s(value: str) -> dict[str, str]:
    """A string attribute."""
    return {"S": value}


def n(value: int) -> dict[str, str]:
    """A number attribute."""
    return {"N": str(value)}


def b(value: bytes) -> dict[str, bytes]:
    """A binary attribute."""
    return {"B": value}


def key(pk: str, sk: str) -> Item:
    """The primary key of one item."""
    return {PARTITION_KEY: s(pk), SORT_KEY: s(sk)}


def item_size(item: Mapping[str, Any]) -> int:
    """An upper bound close enough to DynamoDB's item size (names plus values)."""
    total = 0
    for name, value in item.items():
        total += len(name.encode())
        for payload in value.values():
            total += len(payload) if isinstance(payload, bytes) else len(str(payload).encode())
    return total


def now_ns() -> int:
    """Wall-clock nanoseconds; orders audit events and checkpoints written by many processes."""
    return time.time_ns()


class DynamoTable:
    """One table, one low-level client."""

    def __init__(self, client: Any, table_name: str) -> None:
        self.client = client
        self.name = table_name

    def _call(self, operation: str, call: Callable[[], Any]) -> Any:
        for attempt in range(_CONFLICT_RETRIES):
            try:
                return call()
            except ClientError as exc:
                error = exc.response.get("Error", {})
                code = str(error.get("Code", ""))
                if code == "ConditionalCheckFailedException":
                    raise ConditionFailed(["ConditionalCheckFailed"], [exc.response.get("Item")]) from None
                if code == "TransactionCanceledException":
                    reasons = list(exc.response.get("CancellationReasons") or [])
                    codes = [str(r.get("Code", "None")) for r in reasons]
                    if "ConditionalCheckFailed" in codes:
                        raise ConditionFailed(codes, [r.get("Item") for r in reasons]) from None
                    if "TransactionConflict" in codes and attempt + 1 < _CONFLICT_RETRIES:
                        # Another transaction held one of our items; ours changed nothing, so retrying is safe.
                        time.sleep(0.05 * (attempt + 1))
                        continue
                # Only the code: messages can quote key values, and keys carry ids we would rather not echo.
                raise BackendError(
                    f"dynamodb {operation} on table {self.name} failed: {code or 'unknown error'}"
                ) from None
            except BotoCoreError as exc:
                raise BackendError(f"dynamodb {operation} on table {self.name} failed: {type(exc).__name__}") from None
        raise BackendError(f"dynamodb {operation} on table {self.name} kept conflicting with other writers")

    def get(self, pk: str, sk: str) -> Item | None:
        """One item, read consistently."""
        response = self._call(
            "GetItem", lambda: self.client.get_item(TableName=self.name, Key=key(pk, sk), ConsistentRead=True)
        )
        item = response.get("Item")
        return dict(item) if item else None

    def batch_get(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Item]:
        """Several items in one round trip (more while DynamoDB returns unprocessed keys), read consistently.

        Returns the items found, by (pk, sk); an absent item is simply missing.
        """
        found: dict[tuple[str, str], Item] = {}
        request: dict[str, Any] = {self.name: {"Keys": [key(pk, sk) for pk, sk in keys], "ConsistentRead": True}}
        for _ in range(_CONFLICT_RETRIES * 2):
            page = self._call("BatchGetItem", functools.partial(self.client.batch_get_item, RequestItems=request))
            for item in page.get("Responses", {}).get(self.name, []):
                found[(str(item[PARTITION_KEY]["S"]), str(item[SORT_KEY]["S"]))] = dict(item)
            request = page.get("UnprocessedKeys") or {}
            if not request:
                return found
            time.sleep(0.05)
        raise BackendError(f"dynamodb BatchGetItem on table {self.name} kept leaving keys unprocessed")

    def query(self, pk: str, prefix: str, *, count_only: bool = False) -> tuple[list[Item], int]:
        """Items of partition ``pk`` whose sort key starts with ``prefix``, in sort-key order, and their count."""
        items: list[Item] = []
        count = 0
        params: dict[str, Any] = {
            "TableName": self.name,
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeNames": {"#pk": PARTITION_KEY, "#sk": SORT_KEY},
            "ExpressionAttributeValues": {":pk": s(pk), ":prefix": s(prefix)},
            "ConsistentRead": True,
        }
        if count_only:
            params["Select"] = "COUNT"
        while True:
            page = self._call("Query", lambda: self.client.query(**params))
            count += int(page.get("Count", 0))
            items.extend(dict(i) for i in page.get("Items", []))
            last = page.get("LastEvaluatedKey")
            if not last:
                return items, count
            params["ExclusiveStartKey"] = last

    def query_from(self, index: str, pk: str, attribute: str, lowest: int) -> list[Item]:
        """Items of partition ``pk`` in local secondary index ``index`` whose number ``attribute`` is at least
        ``lowest`` (every page), read consistently."""
        params: dict[str, Any] = {
            "TableName": self.name,
            "IndexName": index,
            "KeyConditionExpression": "#pk = :pk AND #at >= :lowest",
            "ExpressionAttributeNames": {"#pk": PARTITION_KEY, "#at": attribute},
            "ExpressionAttributeValues": {":pk": s(pk), ":lowest": n(lowest)},
            "ConsistentRead": True,
        }
        items: list[Item] = []
        while True:
            page = self._call("Query", lambda: self.client.query(**params))
            items.extend(dict(i) for i in page.get("Items", []))
            last = page.get("LastEvaluatedKey")
            if not last:
                return items
            params["ExclusiveStartKey"] = last

    def put(self, item: Item, *, condition: str | None = None, values: Item | None = None) -> None:
        """Write ``item``; with ``condition``, a failed condition raises :class:`ConditionFailed`."""
        self._check_size(item)
        params: dict[str, Any] = {"TableName": self.name, "Item": item}
        if condition:
            params["ConditionExpression"] = condition
            params["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
            if values:
                params["ExpressionAttributeValues"] = values
        self._call("PutItem", lambda: self.client.put_item(**params))

    def update(self, pk: str, sk: str, *, update: str, condition: str, names: Item, values: Item) -> None:
        """A conditional ``UpdateItem``."""
        self._call(
            "UpdateItem",
            lambda: self.client.update_item(
                TableName=self.name,
                Key=key(pk, sk),
                UpdateExpression=update,
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            ),
        )

    def transact(self, writes: Sequence[Item]) -> None:
        """All of ``writes`` or none of them (``TransactWriteItems``)."""
        for write in writes:
            self._check_size(write.get("Put", {}).get("Item", {}))
        self._call("TransactWriteItems", lambda: self.client.transact_write_items(TransactItems=list(writes)))

    def put_op(
        self, item: Item, *, condition: str | None = None, values: Item | None = None, names: Item | None = None
    ) -> Item:
        """One ``Put`` of a transaction."""
        put: Item = {"TableName": self.name, "Item": item}
        if condition:
            put["ConditionExpression"] = condition
            put["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
            if values:
                put["ExpressionAttributeValues"] = values
            if names:
                put["ExpressionAttributeNames"] = names
        return {"Put": put}

    def update_op(self, pk: str, sk: str, *, update: str, condition: str, names: Item, values: Item) -> Item:
        """One conditional ``Update`` of a transaction (authorized as ``UpdateItem``)."""
        return {
            "Update": {
                "TableName": self.name,
                "Key": key(pk, sk),
                "UpdateExpression": update,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": values,
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        }

    def _check_size(self, item: Mapping[str, Any]) -> None:
        size = item_size(item)
        if size > MAX_ITEM_BYTES:
            raise BackendError(
                f"refusing to write a {size}-byte item to {self.name}: the limit here is {MAX_ITEM_BYTES} bytes"
            )
