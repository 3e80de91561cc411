"""The independent checker: holds a finished plan against the rules of :mod:`.rules`, one named check per rule.

It reads only the shop before the plan and the schedules the plan gives (the new order's and each moved
order's), never how a planner got there, so the greedy planner and the solver are checked alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..errors import PlanningError
from ..shop.model import Allocation, Order, ShopState
from . import rules
from .rules import Violation


@dataclass(frozen=True)
class Plan:
    """What the checker reads: the shop before, the new order, the planning day, and every changed schedule."""

    state: ShopState
    target: Order
    planning_day: str
    earliest: str
    after: Mapping[str, tuple[Allocation, ...]]

    def changed(self) -> list[tuple[Order, tuple[Allocation, ...]]]:
        """Each order other than the new one whose schedule the plan changes, by id."""
        found = []
        for order_id in sorted(self.after):
            order = self.state.order(order_id)
            if order is not None and order_id != self.target.id and order.schedule != self.after[order_id]:
                found.append((order, self.after[order_id]))
        return found


def known_orders(plan: Plan) -> list[Violation]:
    """Every order the plan schedules is in the shop."""
    return [Violation("known_orders", o, "not in the shop") for o in sorted(plan.after) if plan.state.order(o) is None]


def only_lower_priority_moves(plan: Plan) -> list[Violation]:
    """Only orders of lower priority than the new one move."""
    return [
        Violation("only_lower_priority_moves", o.id, f"priority {o.priority} is not below {plan.target.priority}")
        for o, _ in plan.changed()
        if o.priority >= plan.target.priority
    ]


def not_started(plan: Plan) -> list[Violation]:
    """No order that started before the planning day moves."""
    return [
        Violation("not_started", o.id, f"started {o.schedule[0].day}, before {plan.planning_day}")
        for o, _ in plan.changed()
        if not o.schedule or o.schedule[0].day < plan.planning_day
    ]


def moved_work_fits_its_order(plan: Plan) -> list[Violation]:
    """Moved work goes to its own machines, on working days, from its first day to its own due date."""
    found = []
    for order, after in plan.changed():
        product = plan.state.product(order.product)
        before = rules.by_slot(order.schedule)
        for slot, minutes in rules.by_slot(after).items():
            if minutes > before.get(slot, 0) and (
                product is None or not rules.slot_for_move(plan.state, order, product, slot, plan.planning_day)
            ):
                found.append(
                    Violation(
                        "moved_work_fits_its_order",
                        order.id,
                        f"{slot[1]} on {slot[0]} is not its machine, a working day, or in {order.schedule[0].day}"
                        f"..{order.due}",
                    )
                )
    return found


def new_order_slots(plan: Plan) -> list[Violation]:
    """The new order runs on its product's machines, on working days, from when its materials are there."""
    product = plan.state.product(plan.target.product)
    return [
        Violation("new_order_slots", plan.target.id, f"{a.machine} on {a.day} (materials from {plan.earliest})")
        for a in plan.after.get(plan.target.id, ())
        if product is None
        or not rules.slot_for_new(plan.state, product, (a.day, a.machine), plan.planning_day, plan.earliest)
    ]


def capacity(plan: Plan) -> list[Violation]:
    """No machine-day holds more than its capacity (one already over it gets no fuller)."""
    before = rules.bookings(plan.state.orders)
    others = [o for o in plan.state.orders if o.id not in plan.after]
    planned = [o.model_copy(update={"schedule": s}) for o_id, s in plan.after.items() if (o := plan.state.order(o_id))]
    after = rules.bookings([*others, *planned])
    limits = rules.capacities(plan.state, plan.planning_day)
    return [
        Violation("capacity", f"{machine} {day}", f"{minutes} minutes booked, capacity {limits.get((day, machine), 0)}")
        for (day, machine), minutes in sorted(after.items())
        if minutes > before.get((day, machine), 0)
        and minutes > rules.slot_limit(limits.get((day, machine), 0), before.get((day, machine), 0))
    ]


def whole_units(plan: Plan) -> list[Violation]:
    """Partial moves go in whole units: no order holds more split units than before; the new order none."""
    found = []
    for order, after in [*plan.changed(), (plan.target, plan.after.get(plan.target.id, ()))]:
        product = plan.state.product(order.product)
        unit = product.minutes_per_unit if product else 1
        if rules.split_units(after, unit) > rules.split_units(order.schedule, unit):
            found.append(Violation("whole_units", order.id, f"more allocations hold part of a {unit}-minute unit"))
    return found


def min_split(plan: Plan) -> list[Violation]:
    """No part a plan writes is under the shop's minimum split (a smaller order moves or runs whole)."""
    found = []
    product = plan.state.product(plan.target.product)
    need = plan.target.quantity * (product.minutes_per_unit if product else 0)
    for order, before, after, minutes in [
        *((o, o.schedule, a, o.scheduled_minutes) for o, a in plan.changed()),
        (plan.target, (), plan.after.get(plan.target.id, ()), need),
    ]:
        least = rules.min_part(plan.state, minutes)
        for part in rules.small_parts(before, after, least):
            found.append(
                Violation("min_split", order.id, f"{part.minutes} minutes on {part.machine} {part.day}, under {least}")
            )
    return found


def minutes_kept(plan: Plan) -> list[Violation]:
    """Every moved order keeps its minutes; the new order gets exactly quantity x minutes per unit."""
    found = []
    for order, after in plan.changed():
        if sum(a.minutes for a in after) != order.scheduled_minutes:
            found.append(Violation("minutes_kept", order.id, f"{order.scheduled_minutes} minutes before, not after"))
    product = plan.state.product(plan.target.product)
    need = plan.target.quantity * (product.minutes_per_unit if product else 0)
    got = sum(a.minutes for a in plan.after.get(plan.target.id, ()))
    if not 0 < got <= need:  # a rest that fits nowhere in the horizon stays unplaced (and at risk)
        found.append(Violation("minutes_kept", plan.target.id, f"{got} of {need} minutes scheduled"))
    return found


CHECKS: tuple[Callable[[Plan], list[Violation]], ...] = (
    known_orders,
    only_lower_priority_moves,
    not_started,
    moved_work_fits_its_order,
    new_order_slots,
    capacity,
    whole_units,
    min_split,
    minutes_kept,
)


def violations(plan: Plan) -> list[Violation]:
    """Every rule ``plan`` breaks (empty when it keeps them all)."""
    return [v for check in CHECKS for v in check(plan)]


def require_valid(plan: Plan) -> None:
    """Refuse a plan that breaks a rule, naming the rule (a planner bug: never proposed)."""
    broken = violations(plan)
    if broken:
        raise PlanningError("the plan breaks a planning rule: " + "; ".join(str(v) for v in broken[:5]))


def new_order_late(plan: Plan) -> bool:
    """True when the plan finishes the new order after its due date (the checker's verdict for at-risk)."""
    placed = plan.after.get(plan.target.id, ())
    product = plan.state.product(plan.target.product)
    need = plan.target.quantity * (product.minutes_per_unit if product else 0)
    return sum(a.minutes for a in placed) < need or rules.lateness(placed, plan.target.due) != (0, 0)
