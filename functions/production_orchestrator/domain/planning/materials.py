"""Materials reserved by the schedule: what each scheduled order uses, what is short, and by when.

An order uses all its materials on its first scheduled day. Orders that started before the planning day
already used theirs (``on_hand`` counts what is left), so only orders starting on or after it reserve.
Supply is on hand + on order + procurement the shop committed to. Orders already on the schedule keep
what they reserved (earliest first); a new order gets what is left.

Two kinds of shortage, kept apart:

    the shop's own    scheduled orders that already lack material (:func:`existing_shortages`): shown to
                      the owner with the orders that wait for it, never bought by a customer's plan
    a plan's own      what the plan adds to them (:func:`plan_procurement`): its new order's shortfall
                      and whatever its moves newly need; this is all the plan buys

A purchase is never asked for before the day it can arrive (the planning day plus the supplier's lead
time, :func:`arrival_day`); an order that needs it earlier is at risk, and the purchase asks for the day
it can really come.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..shop.model import Order, Product, ShopState, add_days


@dataclass(frozen=True)
class Shortage:
    """What a new order lacks of one material, after the scheduled orders' reservations."""

    material: str
    required: int
    available: int
    arrives: str

    @property
    def shortfall(self) -> int:
        """How much is missing."""
        return self.required - self.available


@dataclass(frozen=True)
class ShopShortage:
    """A material the scheduled orders of the shop need beyond its supply, before any new plan.

    ``orders`` are the ones that lack it (id order); ``late`` those of them that start before a purchase
    made on the planning day can arrive (``arrives``); ``needed_by`` is the first day one of them starts.
    """

    material: str
    quantity: int
    needed_by: str
    arrives: str
    supplier_email: str
    orders: tuple[str, ...]
    late: tuple[str, ...]


@dataclass(frozen=True)
class Line:
    """One procurement line of a plan and the orders of the plan that wait for it.

    ``needed_by`` is the day the purchase asks for: the first day an order of the plan uses the material,
    or the day it can arrive when that is later (``late`` then names the orders that start too early).
    """

    material: str
    quantity: int
    needed_by: str
    supplier_email: str
    arrives: str
    waiting: tuple[str, ...]
    late: tuple[str, ...]


def arrival_day(state: ShopState, material_id: str, planning_day: str) -> str:
    """The first day a purchase of ``material_id`` made on ``planning_day`` can be in (its lead time later)."""
    material = state.material(material_id)
    return add_days(planning_day, material.lead_time_days if material else 0)


def _supply(state: ShopState, material: str) -> int:
    stock = state.material(material)
    incoming = sum(t.quantity for t in state.procurement if t.material == material)
    return (stock.on_hand + stock.on_order if stock else 0) + incoming


def _reserving(order: Order, planning_day: str) -> bool:
    return bool(order.schedule) and order.schedule[0].day >= planning_day


def _demand(state: ShopState, orders: list[Order]) -> dict[str, list[tuple[Order, int]]]:
    """Per material, each of ``orders`` that uses it and how much (in the order given)."""
    products = {p.code: p for p in state.products}
    demand: dict[str, list[tuple[Order, int]]] = {}
    for order in orders:
        product = products.get(order.product)
        for need in product.materials if product else ():
            demand.setdefault(need.id, []).append((order, order.quantity * need.per_unit))
    return demand


def shortages(state: ShopState, target: Order, product: Product, planning_day: str) -> list[Shortage]:
    """The materials ``target`` lacks once the scheduled orders have what they reserved."""
    others = [o for o in state.orders if o.id != target.id and _reserving(o, planning_day)]
    demand = _demand(state, others)
    found = []
    for need in product.materials:
        reserved = sum(units for _, units in demand.get(need.id, ()))
        required = target.quantity * need.per_unit
        available = max(0, _supply(state, need.id) - reserved)
        if available < required:
            arrives = arrival_day(state, need.id, planning_day)
            found.append(Shortage(material=need.id, required=required, available=available, arrives=arrives))
    return found


def ready_day(found: list[Shortage], planning_day: str) -> str:
    """The first day every short material can be in: the planning day or the latest arrival."""
    return max([planning_day, *(s.arrives for s in found)])


def _short(state: ShopState, planning_day: str) -> dict[str, int]:
    """Per material, how much the scheduled orders need beyond supply (zero entries left out)."""
    demand = _demand(state, [o for o in state.orders if _reserving(o, planning_day)])
    short = {m: sum(units for _, units in uses) - _supply(state, m) for m, uses in demand.items()}
    return {m: n for m, n in short.items() if n > 0}


def existing_shortages(state: ShopState, planning_day: str) -> list[ShopShortage]:
    """The shortages the shop already has on ``planning_day``, one per material in id order.

    Scheduled orders reserve supply earliest start first (then higher priority, then id); the ones left
    without are the orders that need the material. Pure: no plan, no purchase, the same answer for the
    same shop and day.
    """
    reserving = sorted(
        (o for o in state.orders if _reserving(o, planning_day)),
        key=lambda o: (o.schedule[0].day, -o.priority, o.id),
    )
    demand = _demand(state, reserving)
    found = []
    for material in state.materials:
        pool, short, waiting = _supply(state, material.id), 0, []
        for order, need in demand.get(material.id, ()):
            if need > pool:
                short += need - pool
                waiting.append(order)
            pool = max(0, pool - need)
        if not short:
            continue
        arrives = arrival_day(state, material.id, planning_day)
        found.append(
            ShopShortage(
                material=material.id,
                quantity=short,
                needed_by=min(o.schedule[0].day for o in waiting),
                arrives=arrives,
                supplier_email=material.supplier_email,
                orders=tuple(sorted(o.id for o in waiting)),
                late=tuple(sorted(o.id for o in waiting if o.schedule[0].day < arrives)),
            )
        )
    return found


def plan_procurement(
    before: ShopState, planned: ShopState, target_id: str, moved: set[str], planning_day: str
) -> list[Line]:
    """What a plan must buy: how much more each material falls short in ``planned`` than in ``before``.

    The shop's own shortages (``before``) stay the shop's. The new order reserves last, so what is added
    waits on it when it uses the material; otherwise on the moved orders that use it. Each line asks for
    the first day one of those starts, or for the day it can arrive when that is later; the ones starting
    before it can arrive are ``late``.
    """
    was, now = _short(before, planning_day), _short(planned, planning_day)
    scheduled = sorted((o for o in planned.orders if o.schedule and o.id in moved | {target_id}), key=lambda o: o.id)
    users = _demand(planned, scheduled)
    lines = []
    for material in planned.materials:
        quantity = now.get(material.id, 0) - was.get(material.id, 0)
        if quantity <= 0:
            continue
        using = [order for order, _ in users.get(material.id, ())]
        waiting = [o for o in using if o.id == target_id] or using
        arrives = arrival_day(planned, material.id, planning_day)
        first = min((o.schedule[0].day for o in waiting), default=arrives)
        lines.append(
            Line(
                material=material.id,
                quantity=quantity,
                needed_by=max(first, arrives),
                supplier_email=material.supplier_email,
                arrives=arrives,
                waiting=tuple(o.id for o in waiting),
                late=tuple(o.id for o in waiting if o.schedule[0].day < arrives),
            )
        )
    return lines
