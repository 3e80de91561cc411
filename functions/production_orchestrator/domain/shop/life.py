"""The shop's own life between plans: a delivery arrives, an order completes, is cancelled or makes progress.

Each is a pure step ``ShopState -> Change`` (the next state, one sentence for people and the facts for the
audit event) or a :class:`ShopChangeRefusedError` with a stable code; the caller writes the change in one
conditional write with its audit event, so a refused or raced change writes nothing. Every change moves
the revision by one.

    receive MATERIAL QTY   on hand grows; committed procurement lines of it close, earliest needed first
                           (a partial delivery reduces the line), then what was on order outside the tool
    complete ORDER         the order leaves the schedule (its machine-days free); material it still held
                           in reserve (first day on or after today) was used, so it leaves on hand
    cancel ORDER REASON    the order leaves the schedule: its machine-days and reserved material free up
    progress ORDER MINUTES work done: that many scheduled minutes go, earliest first
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ..errors import ShopChangeCode, ShopChangeRefusedError
from .model import Allocation, ClosedOrder, Material, Order, ShopState, hours, procurement_key

MAX_REF_CHARS = 200
MAX_REASON_CHARS = 500


@dataclass(frozen=True)
class Change:
    """A change of the shop: the next state, a sentence for people and the audit event's facts."""

    state: ShopState
    summary: str
    detail: dict[str, Any] = field(default_factory=dict)


def _refuse(code: ShopChangeCode, message: str) -> ShopChangeRefusedError:
    return ShopChangeRefusedError(code, message)


def clean_text(value: str, what: str, *, limit: int, required: bool) -> str:
    """``value`` trimmed, one line of printable text of at most ``limit`` characters (or refused)."""
    text = " ".join(str(value).split())
    if required and not text:
        raise _refuse(ShopChangeCode.INVALID_TEXT, f"{what} is empty: say in a few words why")
    if len(text) > limit:
        raise _refuse(ShopChangeCode.INVALID_TEXT, f"{what} is {len(text)} characters; at most {limit}")
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise _refuse(ShopChangeCode.INVALID_TEXT, f"{what} holds control characters")
    return text


def _one(ids: list[str], given: str) -> str | None:
    # Ids are case-sensitive, but one typed in another case (or with stray spaces) names the only one it can mean.
    exact = [i for i in ids if i == given.strip()]
    if exact:
        return exact[0]
    folded = [i for i in ids if i.casefold() == given.strip().casefold()]
    return folded[0] if len(folded) == 1 else None


def material_id(state: ShopState, given: str) -> str:
    """The id of the shop's material ``given`` names, or ``UNKNOWN_MATERIAL``."""
    found = _one([m.id for m in state.materials], given)
    if found is None:
        known = ", ".join(m.id for m in state.materials) or "none"
        raise _refuse(
            ShopChangeCode.UNKNOWN_MATERIAL,
            f"{given!r} is not a material of this shop (known: {known}); a new material comes in through shop import",
        )
    return found


def open_order(state: ShopState, given: str) -> Order:
    """The open order ``given`` names; ``ORDER_CLOSED`` when it already completed or was cancelled,
    ``UNKNOWN_ORDER`` when the shop has no such order."""
    found = _one([o.id for o in state.orders], given)
    if found is not None:
        order = state.order(found)
        assert order is not None
        return order
    closed_id = _one([c.order.id for c in state.closed_orders], given)
    closed = state.closed_order(closed_id) if closed_id else None
    if closed is not None:
        raise _refuse(
            ShopChangeCode.ORDER_CLOSED, f"order {closed.order.id} is already {closed.status} ({closed.closed_on})"
        )
    raise _refuse(
        ShopChangeCode.UNKNOWN_ORDER,
        f"{given!r} is not an order of this shop (order list shows them; a pending request is decided on its plan)",
    )


# The largest amount every store keeps exactly: SQLite's 64-bit integers, DynamoDB's 38 digits, and JSON readers
# that hold numbers as doubles (2**53). A larger one would be written and read back as another number.
MAX_AMOUNT = 2**53 - 1


def _positive(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _refuse(ShopChangeCode.INVALID_QUANTITY, f"{what} must be a whole number of 1 or more, got {value!r}")
    return counted(value, what)


def counted(value: int, what: str) -> int:
    """``value`` if it is an amount every store keeps exactly (0 to :data:`MAX_AMOUNT`), else a refusal."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
        raise _refuse(
            ShopChangeCode.INVALID_QUANTITY, f"{what} must be a whole number from 0 to {MAX_AMOUNT}, got {value!r}"
        )
    return value


def _next(state: ShopState, **update: Any) -> ShopState:
    return ShopState.model_validate({**state.model_dump(), **update, "revision": state.revision + 1})


def receive(state: ShopState, given_material: str, quantity: int, ref: str = "") -> Change:
    """A delivery of ``quantity`` of a material: on hand grows, and what it delivers stops counting as incoming
    (procurement lines earliest needed first, a partial delivery reducing its line, then ``on_order``)."""
    material = state.material(material_id(state, given_material))
    assert material is not None
    _positive(quantity, "the quantity delivered")
    counted(material.on_hand + quantity, "on hand after the delivery")
    ref = clean_text(ref, "--ref", limit=MAX_REF_CHARS, required=False)
    left = quantity
    lines, closed, reduced = [], [], []
    for task in sorted(state.procurement, key=procurement_key):  # earliest needed first
        if task.material != material.id or left == 0:
            lines.append(task)
            continue
        taken = min(task.quantity, left)
        left -= taken
        if taken == task.quantity:
            closed.append({"quantity": task.quantity, "needed_by": task.needed_by})
        else:
            reduced.append({"from": task.quantity, "to": task.quantity - taken, "needed_by": task.needed_by})
            lines.append(task.model_copy(update={"quantity": task.quantity - taken}))
    off_order = min(material.on_order, left)
    updated = Material.model_validate(
        {**material.model_dump(), "on_hand": material.on_hand + quantity, "on_order": material.on_order - off_order}
    )
    materials = tuple(updated if m.id == material.id else m for m in state.materials)
    parts = [f"{material.id}: {material.on_hand} -> {updated.on_hand} on hand"]
    if closed:
        parts.append(f"{len(closed)} procurement line(s) closed")
    if reduced:
        parts.append(f"1 line reduced {reduced[0]['from']} -> {reduced[0]['to']}")
    if off_order:
        parts.append(f"on order {material.on_order} -> {updated.on_order}")
    return Change(
        state=_next(state, materials=materials, procurement=tuple(lines)),
        summary=f"received {quantity} {material.id}" + (f" ({ref})" if ref else "") + ": " + "; ".join(parts),
        detail={
            "material_id": material.id,
            "quantity": quantity,
            "ref": ref,
            "on_hand": updated.on_hand,
            "lines_closed": closed,
            "lines_reduced": reduced,
            "on_order_reduced": off_order,
        },
    )


def _close(state: ShopState, order: Order, status: str, today: str, reason: str, **update: Any) -> ShopState:
    closed = ClosedOrder(order=order, status=status, closed_on=today, reason=reason)  # type: ignore[arg-type]
    return _next(
        state,
        orders=tuple(o for o in state.orders if o.id != order.id),
        closed_orders=(*state.closed_orders, closed),
        **update,
    )


def _used(state: ShopState, order: Order, today: str) -> dict[str, int]:
    """What of each material ``order`` still holds in reserve: all it needs while its first day is today or
    later (an order that started before today already took its material out of on hand)."""
    product = state.product(order.product)
    if product is None or order.first_day is None or order.first_day < today:
        return {}
    return {need.id: order.quantity * need.per_unit for need in product.materials}


def complete(state: ShopState, given_order: str, today: str) -> Change:
    """``order`` is made: it leaves the schedule; the material it held in reserve was used."""
    order = open_order(state, given_order)
    used = _used(state, order, today)
    taken = {m.id: min(m.on_hand, used[m.id]) for m in state.materials if used.get(m.id)}
    materials = tuple(
        m.model_copy(update={"on_hand": m.on_hand - taken[m.id]}) if m.id in taken else m for m in state.materials
    )
    freed = hours(order.scheduled_minutes)
    tail = "; used " + ", ".join(f"{q} {mid}" for mid, q in taken.items()) if taken else ""
    return Change(
        state=_close(state, order, "complete", today, "", materials=materials),
        summary=f"order {order.id} complete; {freed} of scheduled work freed{tail}",
        detail={"order_id": order.id, "freed_minutes": order.scheduled_minutes, "material_used": taken},
    )


def cancel(state: ShopState, given_order: str, reason: str, today: str) -> Change:
    """``order`` is cancelled for ``reason``: its machine-days and the material it reserved are free again."""
    reason = clean_text(reason, "--reason", limit=MAX_REASON_CHARS, required=True)
    order = open_order(state, given_order)
    freed = _used(state, order, today)
    tail = "; reserved material freed: " + ", ".join(f"{q} {mid}" for mid, q in freed.items()) if freed else ""
    return Change(
        state=_close(state, order, "cancelled", today, reason),
        summary=f"order {order.id} cancelled ({reason}); {hours(order.scheduled_minutes)} of machine time freed{tail}",
        detail={
            "order_id": order.id,
            "reason": reason,
            "freed_minutes": order.scheduled_minutes,
            "freed_days": [{"machine": a.machine, "day": a.day, "minutes": a.minutes} for a in order.schedule],
            "material_freed": freed,
        },
    )


def progress(state: ShopState, given_order: str, minutes: int) -> Change:
    """``minutes`` of ``order``'s work are done: that many scheduled minutes go, earliest first."""
    _positive(minutes, "--minutes")
    order = open_order(state, given_order)
    if not order.schedule:
        raise _refuse(ShopChangeCode.ORDER_NOT_SCHEDULED, f"order {order.id} is not scheduled: no work to count")
    total = order.scheduled_minutes
    if minutes >= total:
        raise _refuse(
            ShopChangeCode.PROGRESS_TOO_LARGE,
            f"order {order.id} has {total} scheduled minutes; {minutes} would be all of its work "
            f"(use order complete {order.id} when it is made)",
        )
    left, schedule = minutes, []
    for alloc in order.schedule:
        taken = min(alloc.minutes, left)
        left -= taken
        if alloc.minutes > taken:
            schedule.append(Allocation(machine=alloc.machine, day=alloc.day, minutes=alloc.minutes - taken))
    updated = order.model_copy(update={"schedule": tuple(schedule)})
    return Change(
        state=_next(state, orders=tuple(updated if o.id == order.id else o for o in state.orders)),
        summary=f"order {order.id}: {hours(minutes)} done; {hours(updated.scheduled_minutes)} still scheduled",
        detail={"order_id": order.id, "minutes": minutes, "scheduled_minutes": updated.scheduled_minutes},
    )
