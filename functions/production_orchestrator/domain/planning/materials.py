"""Materials reserved by the schedule: what each scheduled order uses, what is short, and by when.

An order uses all its materials on its first scheduled day. Orders that started before the planning day
already used theirs (``on_hand`` counts what is left), so only orders starting on or after it reserve.
Supply is on hand + on order + procurement the shop committed to. Orders already on the schedule keep
what they reserved (earliest first); a new order gets what is left. What is short becomes one
procurement line per material, needed by the first day of an order that lacks it; an order whose
material cannot arrive by its first day (planning day + the supplier's lead time) is at risk.
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

    @property
    def shortfall(self) -> int:
        """How much is missing."""
        return self.required - self.available


@dataclass(frozen=True)
class Line:
    """One procurement line and the orders that wait for it."""

    material: str
    quantity: int
    needed_by: str
    supplier_email: str
    arrives: str
    waiting: tuple[str, ...]
    late: tuple[str, ...]


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
            found.append(Shortage(material=need.id, required=required, available=available))
    return found


def ready_day(state: ShopState, found: list[Shortage], planning_day: str) -> str:
    """The first day every short material can be in: the planning day plus the longest lead time."""
    days = [planning_day]
    for shortage in found:
        material = state.material(shortage.material)
        days.append(add_days(planning_day, material.lead_time_days if material else 0))
    return max(days)


def procurement(state: ShopState, new_order_id: str, planning_day: str) -> list[Line]:
    """What the scheduled orders of ``state`` need beyond supply: one line per material, in id order."""
    reserving = [o for o in state.orders if _reserving(o, planning_day)]
    # Orders on the schedule first (earliest start, then higher priority), the new order last.
    reserving.sort(key=lambda o: (o.id == new_order_id, o.schedule[0].day, -o.priority, o.id))
    demand = _demand(state, reserving)
    lines = []
    for material in state.materials:
        pool = _supply(state, material.id)
        short, waiting = 0, []
        for order, need in demand.get(material.id, ()):
            if need > pool:
                short += need - pool
                waiting.append(order)
            pool = max(0, pool - need)
        if not short:
            continue
        arrives = add_days(planning_day, material.lead_time_days)
        lines.append(
            Line(
                material=material.id,
                quantity=short,
                needed_by=min(o.schedule[0].day for o in waiting),
                supplier_email=material.supplier_email,
                arrives=arrives,
                waiting=tuple(sorted(o.id for o in waiting)),
                late=tuple(sorted(o.id for o in waiting if o.schedule[0].day < arrives)),
            )
        )
    return lines
