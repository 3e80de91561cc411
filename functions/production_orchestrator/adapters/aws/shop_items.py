"""How the shop's state and decision records are laid out as items (docs/dynamodb-design.md)."""

from __future__ import annotations

import json
from datetime import datetime

from ...domain.canonical import canonical_bytes
from ...domain.errors import IntegrityError
from ...domain.records import DecisionRecord, parse_utc
from ...domain.shop.model import ShopState
from .dynamo_blobs import get_blob, put_blob
from .dynamo_table import DynamoTable, Item, key, n, s
from .read_cache import Immutable
from .table_schema import (
    CHECKPOINT_PK,
    OPEN_RUNS_INDEX,
    OPEN_UNTIL_ATTRIBUTE,
    checkpoint_key,
    decision_key,
    state_key,
)

# A state whose JSON is larger than this is stored in chunks (dynamo_blobs.py), far below 400 KB an item.
INLINE_STATE_CHARS = 300_000

Row = tuple[int, str, ShopState]  # revision, digest, state


def state_item(state: ShopState) -> Item:
    """The ``STATE / STATE`` item: the state and the revision and digest its conditions compare."""
    return {
        **key(*state_key()),
        "revision": n(state.revision),
        "digest": s(state.digest()),
        "state": s(state.model_dump_json()),
    }


def state_row(item: Item | None) -> Row | None:
    """(revision, digest, state) of a stored state item, or None."""
    if item is None:
        return None
    return int(item["revision"]["N"]), item["digest"]["S"], ShopState.model_validate_json(item["state"]["S"])


# The open-runs index value of a checkpoint whose window cannot be read: it stays listed (its readers refuse it).
_NEVER_CLOSES = 2**62


def checkpoint_item(checkpoint_id: str, raw: str, recorded_ns: int) -> Item:
    """The ``CHECKPOINT / CHECKPOINT#<id>`` item: its JSON, when it was written (the lists' order) and the epoch
    second its window closes (``open_until``, the open-runs index's sort key)."""
    try:
        until = int(parse_utc(str(json.loads(raw)["expires_at"])).timestamp())
    except (ValueError, KeyError, TypeError, AttributeError):
        until = _NEVER_CLOSES
    return {
        **key(*checkpoint_key(checkpoint_id)),
        "raw": s(raw),
        "recorded_ns": n(recorded_ns),
        OPEN_UNTIL_ATTRIBUTE: n(until),
    }


def open_checkpoint_raws(table: DynamoTable, now: datetime) -> list[str]:
    """The JSON of the checkpoints whose window has not passed at ``now`` (the open-runs index), oldest first."""
    items = table.query_from(OPEN_RUNS_INDEX, CHECKPOINT_PK, OPEN_UNTIL_ATTRIBUTE, int(now.timestamp()))
    return [str(i["raw"]["S"]) for i in sorted(items, key=lambda i: int(i["recorded_ns"]["N"]))]


def decision_item(record: DecisionRecord) -> Item:
    """The ``DECISION / DECISION#<checkpoint>`` item, with the attributes its conditions read."""
    item = {
        **key(*decision_key(record.checkpoint_id)),
        "raw": s(record.model_dump_json()),
        "claim_token": s(record.claim_token or "-"),
    }
    if record.completion is not None:
        item["completed_at"] = s(record.completion.completed_at)
    return item


class StateContent:
    """The shop state's content: inline in the ``STATE`` item while it is small (every read and the
    conditional apply stay one item), else its canonical bytes in chunks under its digest, written before
    the STATE item that names them. Content-addressed, so what was read or written is kept per process."""

    def __init__(self, table: DynamoTable) -> None:
        self._table = table
        self._snapshots = Immutable()

    def item(self, state: ShopState) -> Item:
        """The STATE item of ``state`` (its chunks stored first when it is too large to be inline)."""
        item = state_item(state)
        if len(item["state"]["S"]) <= INLINE_STATE_CHARS:
            return item
        self.put_snapshot(state.digest(), canonical_bytes(state.to_canonical()))
        del item["state"]
        return item

    def row(self, item: Item | None) -> Row | None:
        """(revision, digest, state) of a STATE item, its content read from the chunks when not inline."""
        if item is None or "state" in item:
            return state_row(item)
        digest = item["digest"]["S"]
        data = self.get_snapshot(digest)
        if data is None:
            raise IntegrityError(f"the shop state {digest[:12]} is missing from table {self._table.name}")
        # Parsed, not trusted: every reader recomputes the digest from the content, so altered content
        # reads as a changed shop (STALE_DOMAIN_STATE), exactly as an altered SQLite row does.
        return int(item["revision"]["N"]), digest, ShopState.model_validate_json(data)

    def put_snapshot(self, digest: str, data: bytes) -> None:
        """Store ``data`` under ``digest`` unless this process already did or read it."""
        if self._snapshots.get(digest) is not None:
            return
        put_blob(self._table, digest, data)
        self._snapshots.keep(digest, data)

    def get_snapshot(self, digest: str) -> bytes | None:
        """The bytes stored under ``digest`` (callers re-hash them)."""
        cached = self._snapshots.get(digest)
        if cached is not None:
            return bytes(cached)
        data = get_blob(self._table, digest)
        return None if data is None else bytes(self._snapshots.keep(digest, data))
