"""How the shop's state and decision records are laid out as items (docs/dynamodb-design.md)."""

from __future__ import annotations

from ...domain.records import DecisionRecord
from ...domain.shop import ShopState
from .dynamo_table import Item, key, n, s
from .table_schema import DECISION_SK_PREFIX, SHOP_PK, STATE_SK

Row = tuple[int, str, ShopState]  # revision, digest, state


def state_item(state: ShopState) -> Item:
    """The ``SHOP / STATE`` item: the state and the revision and digest its conditions compare."""
    return {
        **key(SHOP_PK, STATE_SK),
        "revision": n(state.revision),
        "digest": s(state.digest()),
        "state": s(state.model_dump_json()),
    }


def state_row(item: Item | None) -> Row | None:
    """(revision, digest, state) of a stored state item, or None."""
    if item is None:
        return None
    return int(item["revision"]["N"]), item["digest"]["S"], ShopState.model_validate_json(item["state"]["S"])


def decision_item(record: DecisionRecord) -> Item:
    """The ``SHOP / DECISION#<checkpoint>`` item, with the attributes its conditions read."""
    item = {
        **key(SHOP_PK, DECISION_SK_PREFIX + record.checkpoint_id),
        "raw": s(record.model_dump_json()),
        "claim_token": s(record.claim_token or "-"),
    }
    if record.completion is not None:
        item["completed_at"] = s(record.completion.completed_at)
    return item
