"""Indexes of a shop state's sorted tuples: lookups by id, bookings by machine-day, material uses by code.

Built once per tuple and kept for a few recent tuples, keyed by the tuples themselves (their identity, kept
alive by the entry), never stored on the model: ``model_copy`` would carry a stale index into a copy, and
pydantic's equality would compare it. A copy that replaces a tuple gets a new index on its first lookup.
Typed loosely (orders and products as ``Any``) so the model imports this module and not the other way round.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_INDEX_SLOTS = 32
_indexes: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = OrderedDict()
_index_lock = threading.Lock()


def indexed(kind: str, sources: tuple[Any, ...], build: Callable[..., Any]) -> Any:
    """``build(*sources)``, computed once per ``kind`` and identity of each of ``sources`` (recent ones kept)."""
    key = (kind, *map(id, sources))
    with _index_lock:
        found = _indexes.get(key)
        if found is not None and all(a is b for a, b in zip(found[0], sources, strict=True)):
            _indexes.move_to_end(key)
            return found[1]
    index = build(*sources)
    with _index_lock:
        _indexes[key] = (sources, index)
        while len(_indexes) > _INDEX_SLOTS:
            _indexes.popitem(last=False)
    return index


def lookup(items: tuple[T, ...], kind: str, key: Callable[[T], str]) -> dict[str, T]:
    """``items`` by ``key``, indexed once per tuple."""
    found: dict[str, T] = indexed(kind, (items,), lambda values: {key(v): v for v in values})
    return found


def slot_index(orders: tuple[Any, ...]) -> dict[tuple[str, str], tuple[tuple[str, int], ...]]:
    """(machine, day) -> (order id, minutes) of every booking on it, by order id."""
    slots: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for order in orders:  # orders come sorted by id, so each slot's list is too
        for a in order.schedule:
            slots.setdefault((a.machine, a.day), []).append((order.id, a.minutes))
    return {slot: tuple(found) for slot, found in slots.items()}


def material_index(orders: tuple[Any, ...], products: tuple[Any, ...]) -> dict[str, tuple[tuple[str, str, int], ...]]:
    """Material id -> (order id, first day, amount) of every scheduled order whose product uses it."""
    per_unit = {p.code: [(m.id, m.per_unit) for m in p.materials] for p in products}
    uses: dict[str, list[tuple[str, str, int]]] = {}
    for order in orders:
        if order.schedule:
            for material_id, amount in per_unit.get(order.product, ()):
                uses.setdefault(material_id, []).append((order.id, order.schedule[0].day, order.quantity * amount))
    return {material_id: tuple(found) for material_id, found in uses.items()}
