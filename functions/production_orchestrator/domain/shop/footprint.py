"""A plan's footprint: the part of the shop it reads and writes, and the digest of that part.

    footprint = machine-days the plan books or frees + orders it moves or adds (with their products)
                + materials it reserves or procures
    footprint_digest(state, footprint) = sha256(canonical(that part of ``state``))

Two plans whose footprints do not overlap cannot make each other wrong, so applying one leaves the other's
footprint digest unchanged and the other may still apply. What the digest covers, per item:

- a machine-day: whether the machine exists and works that day, its capacity, and every order's minutes
  booked on it (whichever order books them, in or out of the footprint);
- an order: its whole record as the shop holds it (absent counts too: a plan adds its order);
- a product: its whole record (eligible machines, minutes and materials per unit);
- a material: its record (on hand, on order, supplier, lead time), the procurement tasks for it, and what
  every scheduled order uses of it and from which day (another order's reservation is a change).

Everything is canonical JSON of plain data in a fixed order, so the digest does not depend on the order of
the shop file's arrays. Used by the proposal (what it was made on, what it leaves), by the one staleness
rule at resume, and by shop commands that must say which pending plans a write touches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from ..canonical import content_hash
from .model import Allocation, Id, Order, ShopState

FOOTPRINT_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class MachineDay(_Frozen):
    """One machine on one day."""

    machine: Id
    day: str


class Footprint(_Frozen):
    """What a plan reads and writes; every list sorted and without duplicates."""

    machine_days: tuple[MachineDay, ...]
    orders: tuple[Id, ...]
    products: tuple[Id, ...]
    materials: tuple[Id, ...]

    @field_validator("machine_days")
    @classmethod
    def _slots(cls, value: tuple[MachineDay, ...]) -> tuple[MachineDay, ...]:
        return tuple(sorted(set(value), key=lambda s: (s.day, s.machine)))

    @field_validator("orders", "products", "materials")
    @classmethod
    def _ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(set(value)))

    def describe(self) -> str:
        """``3 machine-days, orders RUSH-200, STANDARD-100, materials THREAD-RED-40`` for people."""
        parts = [f"{len(self.machine_days)} machine-day(s)"]
        parts.append(f"orders {', '.join(self.orders)}" if self.orders else "no orders")
        parts.append(f"materials {', '.join(self.materials)}" if self.materials else "no materials")
        return ", ".join(parts)


def plan_footprint(
    state: ShopState,
    moves: Iterable[tuple[str, Sequence[Allocation], Sequence[Allocation]]],
    added: Iterable[Order] = (),
    procured: Iterable[str] = (),
) -> Footprint:
    """The footprint of a plan on ``state``: ``moves`` are (order id, schedule before, schedule after),
    ``added`` the orders it brings into the shop, ``procured`` the materials it buys."""
    slots: set[MachineDay] = set()
    order_ids: set[str] = set()
    product_codes: set[str] = set()
    known = {o.id: o for o in state.orders}
    known.update((o.id, o) for o in added)
    for order_id, before, after in moves:
        order_ids.add(order_id)
        slots.update(MachineDay(machine=a.machine, day=a.day) for a in (*before, *after))
    order_ids.update(o.id for o in added)
    materials = set(procured)
    for order_id in order_ids:
        order = known.get(order_id)
        if order is None:
            continue
        product_codes.add(order.product)
        product = state.product(order.product)
        if product is not None:
            materials.update(m.id for m in product.materials)
    return Footprint(
        machine_days=tuple(slots),
        orders=tuple(order_ids),
        products=tuple(product_codes),
        materials=tuple(materials),
    )


def _slot_part(state: ShopState, slot: MachineDay) -> dict[str, Any]:
    machine = state.machine(slot.machine)
    bookings = state.slot_bookings(slot.machine, slot.day)  # an index of the state, sorted by order id
    return {
        "machine": slot.machine,
        "day": slot.day,
        "capacity": None if machine is None else (machine.minutes_on(slot.day) if machine.works_on(slot.day) else 0),
        "bookings": [list(b) for b in bookings],
    }


def _material_part(state: ShopState, material_id: str) -> dict[str, Any]:
    material = state.material(material_id)
    uses = [[order_id, day, amount] for order_id, day, amount in state.material_uses(material_id)]
    return {
        "id": material_id,
        "record": None if material is None else material.model_dump(mode="json"),
        "procurement": [t.model_dump(mode="json") for t in state.procurement if t.material == material_id],
        "uses": sorted(uses),
    }


def footprint_parts(state: ShopState, footprint: Footprint) -> dict[str, Any]:
    """Each item of ``footprint`` as ``state`` holds it, keyed by a name a person can read."""
    parts: dict[str, Any] = {}
    for slot in footprint.machine_days:
        parts[f"{slot.machine} on {slot.day}"] = _slot_part(state, slot)
    for order_id in footprint.orders:
        order = state.order(order_id)
        parts[f"order {order_id}"] = None if order is None else order.model_dump(mode="json")
    for code in footprint.products:
        product = state.product(code)
        parts[f"product {code}"] = None if product is None else product.model_dump(mode="json")
    for material_id in footprint.materials:
        parts[f"material {material_id}"] = _material_part(state, material_id)
    return parts


def footprint_digest(state: ShopState, footprint: Footprint) -> str:
    """``sha256(canonical(the part of state inside footprint))``: equal exactly when that part is equal."""
    return content_hash({"version": FOOTPRINT_VERSION, "parts": footprint_parts(state, footprint)})


def changed_within(footprint: Footprint, before: ShopState, after: ShopState) -> list[str]:
    """The items of ``footprint`` that differ between ``before`` and ``after`` (``order X``,
    ``EMB-01 on 2026-08-12``, ``material THREAD-RED-40``, ``product CAP``), in the footprint's order."""
    old, new = footprint_parts(before, footprint), footprint_parts(after, footprint)
    return [name for name in old if old[name] != new[name]]


def touches(footprint: Footprint, before: ShopState, after: ShopState) -> bool:
    """True when the change from ``before`` to ``after`` touches anything inside ``footprint``."""
    return footprint_digest(before, footprint) != footprint_digest(after, footprint)
