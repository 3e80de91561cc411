"""What open pending plans hold: the capacity and stock a new plan must treat as taken (DESIGN "Still holds").

A pending plan books free capacity beside the shop: nothing of it is in the shop until it applies. Two plans
made side by side on the same free minutes would both hold alone, and the second to apply would be stale. So
a new plan is made around every open pending plan (not decided, not expired, still holding on the shop):

    held_view(shop, pending, target) -> the shop as the planners see it, one copy:
        each pending plan's new order   on its planned schedule, pinned (no plan moves it)
        each order a pending plan moves on both its current and its planned slots (the larger per slot), pinned:
                                        the new plan may not move it (it would no longer be where that plan
                                        found it) nor book what that plan frees only once it applies
        each pending plan's purchases   as incoming stock; its new order's materials as reserved
    held_on(view, ...)                -> what was held on the machines and materials the new plan could use,
                                         each naming the pending plan's order: recorded in the proposal

Only the planners see this copy: the proposal's schedules, digests and footprint are the shop's own, so when a
pending plan is rejected or expires its hold just ends, and the plan made around it still applies (it only
used capacity that was free). Re-validation at decision time (:mod:`.application`) stays the final check.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import PlanningError
from ..shop.model import MAX_MINUTES_PER_DAY, Allocation, Order, ProcurementTask, ShopState, procurement_key
from .guidance import Overtime, with_calendar
from .proposal import HeldCapacity, HeldStock, ProposalContent

Slot = tuple[str, str]  # (machine, day)


def _others(pending: Iterable[ProposalContent], target: Order, shop: ShopState) -> list[ProposalContent]:
    """The pending plans that hold against ``target``'s plan: not its own request's (a revision or "propose
    again" replaces it) and not one whose order the shop already holds (applied, or taken in)."""
    return sorted(
        (p for p in pending if p.target_order.id != target.id and shop.order(p.target_order.id) is None),
        key=lambda p: p.target_order.id,
    )


def _booked(plan: ProposalContent) -> dict[Slot, int]:
    """The minutes ``plan`` adds per machine-day: its new order's, and what its moves add where they go."""
    added: dict[Slot, int] = {}
    for change in plan.schedule_changes:
        before = {(a.machine, a.day): a.minutes for a in change.before}
        for a in change.after:
            more = a.minutes - before.get((a.machine, a.day), 0)
            if more > 0:
                added[(a.machine, a.day)] = added.get((a.machine, a.day), 0) + more
    return added


def _merged(schedule: Iterable[Allocation], other: Iterable[Allocation]) -> tuple[Allocation, ...]:
    slots: dict[Slot, int] = {}
    for a in (*schedule, *other):
        slots[(a.machine, a.day)] = max(slots.get((a.machine, a.day), 0), a.minutes)
    return tuple(Allocation(machine=m, day=d, minutes=n) for (m, d), n in sorted(slots.items(), key=lambda s: s[0]))


def held_view(shop: ShopState, pending: Sequence[ProposalContent], target: Order) -> ShopState:
    """``shop`` as the planners of ``target`` see it with every other open pending plan's bookings, moves and
    purchases held (see the module docstring); ``shop`` itself when nothing is pending."""
    others = _others(pending, target, shop)
    if not others:
        return shop
    pin = target.priority
    orders: dict[str, Order] = {}
    tasks: list[ProcurementTask] = []
    for plan in others:
        for change in plan.schedule_changes:
            if change.order_id == plan.target_order.id:
                order = plan.target_order.model_copy(update={"schedule": change.after})
            else:
                order = orders.get(change.order_id) or shop.order(change.order_id)  # type: ignore[assignment]
                if order is None:
                    continue
                order = order.model_copy(update={"schedule": _merged(order.schedule, change.after)})
            orders[order.id] = order.model_copy(update={"priority": max(order.priority, pin)})
        tasks += [
            ProcurementTask(
                material=a.material_id, quantity=a.quantity, needed_by=a.needed_by, supplier_email=a.supplier_email
            )
            for a in plan.procurement_actions
        ]
    incoming = tuple(sorted((*shop.procurement, *tasks), key=procurement_key))
    view = shop.with_orders(orders.values()).model_copy(update={"procurement": incoming})
    return _not_overbooked(shop, view, _held_slots(others))


def held_minutes(shop: ShopState, pending: Sequence[ProposalContent], target: Order) -> dict[Slot, int]:
    """Per (machine, day), the minutes the other open pending plans book there (what the planners see as taken)."""
    held: dict[Slot, int] = {}
    for plan in _others(pending, target, shop):
        for slot, minutes in _booked(plan).items():
            held[slot] = held.get(slot, 0) + minutes
    return held


def _held_slots(others: Iterable[ProposalContent]) -> set[Slot]:
    return {slot for plan in others for slot in _booked(plan)}


def _not_overbooked(shop: ShopState, view: ShopState, slots: set[Slot]) -> ShopState:
    """A held slot over its capacity (a pending plan's own overtime, not in the shop until it applies) is seen
    as exactly full: a planner can neither book it nor move work out of a slot fuller than it holds."""
    extra = []
    for machine_id, day in sorted(slots):
        machine = view.machine(machine_id)
        if machine is None or not machine.works_on(day):
            continue
        over = view.booked_minutes(machine_id, day) - machine.minutes_on(day)
        if over > 0 and shop.booked_minutes(machine_id, day) <= machine.minutes_on(day):
            extra.append(Overtime(machine=machine_id, day=day, minutes=min(over, MAX_MINUTES_PER_DAY)))
    try:
        return with_calendar(view, extra)
    except PlanningError:
        return view  # a day that cannot hold it: the checker still refuses to book a slot over capacity


def held_on(
    shop: ShopState, pending: Sequence[ProposalContent], target: Order, planning_day: str, last: str
) -> tuple[tuple[HeldCapacity, ...], tuple[HeldStock, ...]]:
    """What the other open pending plans hold that ``target``'s plan could have used: minutes on its product's
    machines from ``planning_day`` to ``last``, and the materials its product uses; each naming the pending
    plan's order."""
    product = shop.product(target.product)
    if product is None:
        return (), ()
    capacity: list[HeldCapacity] = []
    stock: list[HeldStock] = []
    uses = {m.id for m in product.materials}
    for plan in _others(pending, target, shop):
        by = plan.target_order.id
        for (machine, day), minutes in sorted(_booked(plan).items(), key=lambda s: (s[0][1], s[0][0])):
            if machine in product.machines and planning_day <= day <= last:
                capacity.append(HeldCapacity(by=by, machine=machine, day=day, minutes=minutes))
        made = shop.product(plan.target_order.product)
        for need in made.materials if made is not None else ():
            if need.id in uses:
                stock.append(HeldStock(by=by, material=need.id, quantity=plan.target_order.quantity * need.per_unit))
    capacity.sort(key=lambda h: (h.day, h.machine, h.by))
    stock.sort(key=lambda h: (h.material, h.by))
    return tuple(capacity), tuple(stock)
