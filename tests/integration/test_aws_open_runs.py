"""The open-runs index on moto: ``open_checkpoints(now)`` reads the runs whose window has not passed, and what it
reads does not grow with the expired history (issue 30: a start reads the open runs, not every run stored)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.aws.shop_items import checkpoint_item
from production_orchestrator.domain.records import audit_event, utc_iso
from tests.support.moto_aws import AwsWorld

NOW = datetime(2026, 8, 12, 9, 0, tzinfo=UTC)


def _raw(checkpoint_id: str, expires: datetime) -> str:
    return json.dumps({"checkpoint_id": checkpoint_id, "expires_at": utc_iso(expires)})


def _store_history(aws: AwsWorld, expired: int) -> None:
    """``expired`` checkpoints whose window closed before NOW, written with the store's item builder."""
    items = [
        checkpoint_item(f"ckpt-old{i:04d}", _raw(f"ckpt-old{i:04d}", NOW - timedelta(days=1 + i)), 1_000 + i)
        for i in range(expired)
    ]
    for start in range(0, len(items), 25):
        aws.dynamodb.batch_write_item(
            RequestItems={aws.table: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]}
        )


def _put(store: DynamoShopStore, checkpoint_id: str, expires: datetime) -> None:
    store.put_checkpoint(checkpoint_id, _raw(checkpoint_id, expires), audit_event("checkpoint_created", NOW))


@contextmanager
def _items_read(store: DynamoShopStore) -> Iterator[dict[str, int]]:
    """Items each Query evaluated (ScannedCount, before any filter) while the block runs."""
    seen = {"queries": 0, "scanned": 0}

    def after(parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "Query":
            seen["queries"] += 1
            seen["scanned"] += int(parsed.get("ScannedCount", 0))

    events = store._table.client.meta.events
    events.register("after-call.dynamodb.Query", after)
    try:
        yield seen
    finally:
        events.unregister("after-call.dynamodb.Query", after)


def test_open_checkpoints_reads_only_the_runs_whose_window_has_not_passed(aws: AwsWorld) -> None:
    store = DynamoShopStore(aws.dynamodb, aws.table)
    _put(store, "ckpt-first", NOW + timedelta(hours=1))
    _put(store, "ckpt-closed", NOW - timedelta(seconds=1))
    _put(store, "ckpt-second", NOW + timedelta(days=7))
    with _items_read(store) as seen:
        found = [json.loads(raw)["checkpoint_id"] for raw in store.open_checkpoints(NOW)]
    assert found == ["ckpt-first", "ckpt-second"]  # oldest first, the closed one left out
    assert seen == {"queries": 1, "scanned": 2}
    # Every run is still listed where every run is asked for.
    assert len(store.list_checkpoints()) == 3
    # A window closing at this very second is still open (as SQLite's open_until >= now).
    assert len(store.open_checkpoints(NOW - timedelta(seconds=1))) == 3


def test_what_open_checkpoints_reads_does_not_grow_with_expired_history(aws: AwsWorld) -> None:
    store = DynamoShopStore(aws.dynamodb, aws.table)
    _put(store, "ckpt-a", NOW + timedelta(days=1))
    _put(store, "ckpt-b", NOW + timedelta(days=2))
    with _items_read(store) as without:
        assert len(store.open_checkpoints(NOW)) == 2
    _store_history(aws, 200)
    with _items_read(store) as with_history:
        found = [json.loads(raw)["checkpoint_id"] for raw in store.open_checkpoints(NOW)]
    assert found == ["ckpt-a", "ckpt-b"]
    assert with_history == without == {"queries": 1, "scanned": 2}
    assert len(store.list_checkpoints()) == 202  # the history is there; the open-runs read passed it by


def test_a_checkpoint_whose_window_cannot_be_read_stays_listed(aws: AwsWorld) -> None:
    """Its readers refuse it (CHECKPOINT_INVALID); the index must not hide it from them."""
    store = DynamoShopStore(aws.dynamodb, aws.table)
    store.put_checkpoint("ckpt-broken", '{"checkpoint_id": "ckpt-broken"}', audit_event("checkpoint_created", NOW))
    assert store.open_checkpoints(NOW) == ['{"checkpoint_id": "ckpt-broken"}']
