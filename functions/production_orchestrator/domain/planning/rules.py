"""The planning rules, written once: the solver model builds its variables from them and the checker
(:mod:`.checker`) holds every plan, greedy or optimized, against them. A broken rule names itself.

    may_move          an order other than the new one may change only if its priority is lower than the new
                      order's and it has not started before the planning day
    slot_for_move     moved work goes to its own product's machines, on their working days, in the horizon,
                      not before the planning day nor before the order's first planned day (its materials
                      are reserved for that day), on or before its own due date
    slot_for_new      the new order runs on its product's machines, on working days, in the horizon, from
                      the day its materials can be there (``earliest``)
    slot_limit        a machine-day holds at most its capacity; one already over it may not get fuller
    split_units       a unit is never split further: a moved order has no more allocations holding part of a
                      unit than before (the new order: none); partial moves go in whole units
    min_part          every allocation a plan writes or changes (the new order's, a moved order's part where
                      it goes and the remnant it leaves) holds at least the shop's ``min_split_minutes``, or
                      the whole order when the order is smaller; allocations a plan leaves alone stay as they are
    minutes kept      every order keeps its total minutes (the new one: quantity x minutes per unit)

The objective, in this order (:func:`score`): minutes of the new order that fit nowhere in the horizon
(only greedy leaves any: the solver places all or nothing); the new order's lateness (days late, then minutes after its
due date); then moved minutes, each weighted by its order's priority (lower priority is cheaper to move);
then the number of orders moved; then the new order's finish day.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from ..shop.model import Allocation, Machine, Order, Product, ShopState, day_range, parse_day
from .greedy import HORIZON_DAYS

Slot = tuple[str, str]  # (day, machine): sorts by day first, like a schedule


@dataclass(frozen=True)
class Violation:
    """One broken rule: its name, the order (or slot) it concerns, and what was found."""

    rule: str
    subject: str
    detail: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.subject}: {self.detail}"


@dataclass(frozen=True)
class Score:
    """The objective of a plan, compared in field order (lower is better)."""

    unplaced: int
    days_late: int
    minutes_late: int
    moved_cost: int
    orders_moved: int
    finish_day: int

    def key(self) -> tuple[int, int, int, int, int, int]:
        """The lexicographic key."""
        return (self.unplaced, self.days_late, self.minutes_late, self.moved_cost, self.orders_moved, self.finish_day)


@lru_cache(maxsize=8)
def horizon(planning_day: str) -> tuple[str, ...]:
    """The days a plan may book: the planning day and the :data:`HORIZON_DAYS` - 1 after it."""
    return tuple(day_range(planning_day, HORIZON_DAYS))


def capacities(state: ShopState, planning_day: str) -> dict[Slot, int]:
    """Capacity of every working machine-day in the horizon (a closed day or a day off is no slot)."""
    return {(d, m.id): m.minutes_on(d) for d in horizon(planning_day) for m in state.machines if m.works_on(d)}


def bookings(orders: Iterable[Order]) -> dict[Slot, int]:
    """Booked minutes per machine-day over ``orders``' schedules."""
    booked: dict[Slot, int] = {}
    for order in orders:
        for a in order.schedule:
            booked[(a.day, a.machine)] = booked.get((a.day, a.machine), 0) + a.minutes
    return booked


def may_move(order: Order, target: Order, planning_day: str) -> bool:
    """Rule: a scheduled order of lower priority than ``target`` that has not started before ``planning_day``."""
    return bool(order.schedule) and order.priority < target.priority and order.schedule[0].day >= planning_day


def _working(machine: Machine | None, day: str, planning_day: str) -> bool:
    return machine is not None and planning_day <= day <= horizon(planning_day)[-1] and machine.works_on(day)


def slot_for_move(state: ShopState, order: Order, product: Product, slot: Slot, planning_day: str) -> bool:
    """Rule: may a moved order's work go to ``slot``? Own machines, working day, its own window, by its due."""
    day, machine = slot
    first = order.schedule[0].day if order.schedule else planning_day
    return (
        machine in product.machines
        and _working(state.machine(machine), day, planning_day)
        and max(first, planning_day) <= day <= order.due
    )


def slot_for_new(state: ShopState, product: Product, slot: Slot, planning_day: str, earliest: str) -> bool:
    """Rule: may the new order run in ``slot``? Its product's machines, a working day, from ``earliest``."""
    day, machine = slot
    return machine in product.machines and _working(state.machine(machine), day, planning_day) and day >= earliest


def slot_limit(capacity: int, booked_before: int) -> int:
    """Rule: the most a machine-day may hold after the plan (never fuller than it was when already over)."""
    return max(capacity, booked_before)


def split_units(schedule: Iterable[Allocation], unit: int) -> int:
    """How many allocations hold part of a unit (minutes not a multiple of ``unit``)."""
    return sum(1 for a in schedule if a.minutes % unit)


def min_part(state: ShopState, order_minutes: int) -> int:
    """Rule: the least minutes an allocation a plan writes may hold, for an order of ``order_minutes``."""
    return state.min_part(order_minutes)


def small_parts(before: Iterable[Allocation], after: Iterable[Allocation], least: int) -> list[Allocation]:
    """The allocations of ``after`` that the plan wrote or changed (not in ``before`` as they are) and that
    hold less than ``least`` minutes."""
    kept = by_slot(before)
    return [a for a in after if kept.get((a.day, a.machine)) != a.minutes and a.minutes < least]


def by_slot(schedule: Iterable[Allocation]) -> dict[Slot, int]:
    """Minutes per (day, machine)."""
    return {(a.day, a.machine): a.minutes for a in schedule}


def moved_minutes(before: Iterable[Allocation], after: Iterable[Allocation]) -> int:
    """Minutes that left the machine-day they were planned on."""
    kept = by_slot(after)
    return sum(max(0, n - kept.get(s, 0)) for s, n in by_slot(before).items())


def days_between(first: str, last: str) -> int:
    """Calendar days from ``first`` to ``last`` (negative when ``last`` is earlier)."""
    return (parse_day(last) - parse_day(first)).days


def lateness(schedule: Iterable[Allocation], due: str) -> tuple[int, int]:
    """(days after ``due`` of the last allocation, minutes booked after ``due``) of a schedule."""
    runs = list(schedule)
    late = sum(a.minutes for a in runs if a.day > due)
    last = max((a.day for a in runs), default=due)
    return max(0, days_between(due, last)), late


def score(state: ShopState, target: Order, planning_day: str, after: Mapping[str, tuple[Allocation, ...]]) -> Score:
    """The objective of the plan that gives each order in ``after`` its new schedule (the target included)."""
    placed = after.get(target.id, ())
    days_late, minutes_late = lateness(placed, target.due)
    cost, touched = 0, 0
    for order_id in sorted(after):
        order = state.order(order_id)
        if order is None or order_id == target.id:
            continue
        moved = moved_minutes(order.schedule, after[order_id])
        cost += moved * order.priority
        touched += 1 if moved else 0
    finish = max((days_between(planning_day, a.day) for a in placed), default=0)
    product = state.product(target.product)
    unplaced = target.quantity * (product.minutes_per_unit if product else 0) - sum(a.minutes for a in placed)
    return Score(max(0, unplaced), days_late, minutes_late, cost, touched, finish)
