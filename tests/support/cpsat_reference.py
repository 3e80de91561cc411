"""An independent reference for the planner: an OR-Tools CP-SAT model of the planning rules, and a checker of
its own, both written from the rules as docs/concepts/planning.md states them, never from the planner's code
(nothing here imports domain/planning). Dev-only: OR-Tools is in requirements-dev.txt, never in a Lambda asset.

    reference(shop, target, planning_day)  ->  the optimum (days late, then minutes late; where on time also the
                                              least priority-weighted moved minutes and the least moved minutes),
                                              each with whether CP-SAT proved it
    broken_rules(shop, target, day, after) ->  the rules a plan breaks, by name

The rules, as the docs state them (90 days from the planning day):
- the new order runs on its product's machines, on working days (not a closed day, a working weekday), from the
  day its materials can be there (planning day + lead time of any material it lacks after what the scheduled
  orders reserved), in whole units; all of it is placed;
- another order moves only if its priority is lower than the new one's and it has not started before the
  planning day; moved work goes to its own product's machines, on working days, from its first planned day to
  its own due date; it keeps its minutes, and holds no more allocations with part of a unit than before;
- no machine-day holds more than its capacity (one already over it gets no fuller);
- the minimum split: every allocation a plan writes or changes holds at least ``min_split_minutes``, or the
  order's whole minutes when smaller.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

HORIZON = 90
# CP-SAT's budget per objective stage, in its deterministic seconds (work, about a second of one core each).
DEFAULT_WORK = 10.0
WORKERS = 8  # interleaved, not threads: fixed so the search portfolio is the same on any machine
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
Slot = tuple[str, str]  # (day, machine)
Schedule = dict[Slot, int]


def _days(first: str, count: int = HORIZON) -> list[str]:
    start = date.fromisoformat(first)
    return [(start + timedelta(days=i)).isoformat() for i in range(count)]


def _between(first: str, last: str) -> int:
    return (date.fromisoformat(last) - date.fromisoformat(first)).days


@dataclass(frozen=True)
class Shop:
    """The shop as plain data read from a shop document (the file format, not the planner's model)."""

    doc: dict[str, Any]
    planning_day: str

    @property
    def min_split(self) -> int:
        return int(self.doc.get("min_split_minutes", 60))

    def machines(self) -> dict[str, dict[str, Any]]:
        return {m["id"]: m for m in self.doc["machines"]}

    def products(self) -> dict[str, dict[str, Any]]:
        return {p["code"]: p for p in self.doc["products"]}

    def orders(self) -> dict[str, dict[str, Any]]:
        return {o["id"]: o for o in self.doc.get("orders", [])}

    def capacity(self) -> dict[Slot, int]:
        """Every working machine-day of the horizon and its minutes."""
        found = {}
        for day in _days(self.planning_day):
            weekday = WEEKDAYS[date.fromisoformat(day).weekday()]
            for m in self.doc["machines"]:
                if day in m.get("closed_days", ()) or ("weekdays" in m and weekday not in m["weekdays"]):
                    continue
                found[(day, m["id"])] = m["minutes_per_day"]
        return found

    def schedule(self, order: Mapping[str, Any]) -> Schedule:
        return {(a["day"], a["machine"]): a["minutes"] for a in order.get("schedule", ())}

    def unit(self, order: Mapping[str, Any]) -> int:
        return int(self.products()[order["product"]]["minutes_per_unit"])

    def least(self, minutes: int) -> int:
        return max(1, min(self.min_split, minutes))

    def earliest(self, target: Mapping[str, Any]) -> str:
        """The first day the new order's materials can be there."""
        product = self.products()[target["product"]]
        supply = {m["id"]: m["on_hand"] + m.get("on_order", 0) for m in self.doc.get("materials", [])}
        for task in self.doc.get("procurement", ()):
            supply[task["material"]] = supply.get(task["material"], 0) + task["quantity"]
        lead = {m["id"]: m["lead_time_days"] for m in self.doc.get("materials", [])}
        products = self.products()
        reserved: dict[str, int] = {}
        for order in self.doc.get("orders", []):
            sched = order.get("schedule") or []
            if order["id"] == target["id"] or not sched or min(a["day"] for a in sched) < self.planning_day:
                continue
            for use in products[order["product"]].get("materials", ()):
                reserved[use["id"]] = reserved.get(use["id"], 0) + order["quantity"] * use["per_unit"]
        first = self.planning_day
        for use in product.get("materials", ()):
            available = max(0, supply.get(use["id"], 0) - reserved.get(use["id"], 0))
            if available < target["quantity"] * use["per_unit"]:
                first = max(first, _days(self.planning_day, lead.get(use["id"], 0) + 1)[-1])
        return first

    def movable(self, order: Mapping[str, Any], target: Mapping[str, Any]) -> bool:
        sched = order.get("schedule") or []
        return (
            order["id"] != target["id"]
            and bool(sched)
            and order["priority"] < target["priority"]
            and min(a["day"] for a in sched) >= self.planning_day
        )

    def move_slots(self, order: Mapping[str, Any], capacity: Mapping[Slot, int]) -> set[Slot]:
        """Where a moved order's work may go: its machines, working days, first planned day to its due date."""
        machines = set(self.products()[order["product"]]["machines"])
        first = max(min(a["day"] for a in order["schedule"]), self.planning_day)
        return {s for s in capacity if s[1] in machines and first <= s[0] <= order["due"]}

    def new_slots(self, target: Mapping[str, Any], capacity: Mapping[Slot, int]) -> set[Slot]:
        machines = set(self.products()[target["product"]]["machines"])
        earliest = self.earliest(target)
        return {s for s in capacity if s[1] in machines and s[0] >= earliest}


@dataclass(frozen=True)
class Optimum:
    """What CP-SAT found: None where it found no plan; ``*_proven`` where it proved the value optimal."""

    days_late: int | None
    days_late_proven: bool
    minutes_late: int | None
    moved_cost: int | None  # priority-weighted moved minutes (where on time)
    moved_cost_proven: bool
    moved_minutes: int | None  # least moved minutes (where on time), a separate solve
    moved_minutes_proven: bool
    seconds: float  # wall time, for the reader only: what was proven depends on ``work``, never on it
    work: float  # CP-SAT's deterministic time over every stage solved


def reference(
    doc: dict[str, Any],
    target_id: str,
    planning_day: str,
    *,
    min_split: bool = True,
    work: float = DEFAULT_WORK,
) -> Optimum:
    """The CP-SAT optimum for placing ``target_id`` (unscheduled) on the shop ``doc`` from ``planning_day``,
    each objective stage bounded by ``work`` deterministic seconds (see :meth:`_Model.solve`)."""
    from ortools.sat.python import cp_model

    shop = Shop(doc if min_split else {**doc, "min_split_minutes": 1}, planning_day)
    model = _Model(shop, target_id, cp_model)
    spent = _Spent()
    status, value = model.solve(model.days_late, work, spent)
    if value is None:
        return Optimum(None, False, None, None, False, None, False, *spent.figures())
    days_proven = status == cp_model.OPTIMAL
    model.model.Add(model.days_late <= value)
    _, minutes = model.solve(model.minutes_late, work, spent)
    cost = moved = None
    cost_proven = moved_proven = False
    if value == 0 and minutes is not None:
        model.model.Add(model.minutes_late <= minutes)
        status3, cost = model.solve(model.moved_cost, work, spent)
        status4, moved = model.solve(model.moved_minutes, work, spent)
        cost_proven, moved_proven = status3 == cp_model.OPTIMAL, status4 == cp_model.OPTIMAL
    return Optimum(value, days_proven, minutes, cost, cost_proven, moved, moved_proven, *spent.figures())


@dataclass
class _Spent:
    wall: float = 0.0
    work: float = 0.0

    def figures(self) -> tuple[float, float]:
        return round(self.wall, 2), round(self.work, 2)


class _Model:
    """The CP-SAT variables and constraints of the rules above."""

    def __init__(self, shop: Shop, target_id: str, cp: Any) -> None:
        self.cp = cp
        self.model = m = cp.CpModel()
        orders = shop.orders()
        target = orders[target_id]
        capacity = shop.capacity()
        load: dict[Slot, list[Any]] = {}
        fixed: dict[Slot, int] = {}
        before_total: dict[Slot, int] = {}
        for order in orders.values():
            for slot, minutes in shop.schedule(order).items():
                before_total[slot] = before_total.get(slot, 0) + minutes
        limit = {s: max(c, before_total.get(s, 0)) for s, c in capacity.items()}
        new_units, late_terms, last_late = self._new_order(shop, target, capacity, limit, load)
        m.Add(sum(new_units.values()) == target["quantity"])
        self.days_late = m.NewIntVar(0, HORIZON, "days late")
        for used, lateness in last_late:
            m.Add(self.days_late >= lateness).OnlyEnforceIf(used)
        self.minutes_late = m.NewIntVar(0, target["quantity"] * shop.unit(target), "minutes late")
        m.Add(self.minutes_late == sum(late_terms))
        cost_terms, moved_terms = [], []
        for order in orders.values():
            before = shop.schedule(order)
            if order["id"] == target_id:
                continue
            if not shop.movable(order, target):
                for slot, minutes in before.items():
                    fixed[slot] = fixed.get(slot, 0) + minutes
                continue
            gone = self._movable(shop, order, before, capacity, limit, load)
            cost_terms.append(order["priority"] * sum(gone))
            moved_terms.extend(gone)
        for slot, terms in load.items():
            # a booking on a day outside the horizon or not working may not grow
            m.Add(sum(terms) + fixed.get(slot, 0) <= limit.get(slot, before_total.get(slot, 0)))
        self.moved_cost = sum(cost_terms)
        self.moved_minutes = sum(moved_terms)
        self.new_units = new_units

    def _new_order(
        self,
        shop: Shop,
        target: Mapping[str, Any],
        capacity: Mapping[Slot, int],
        limit: Mapping[Slot, int],
        load: dict[Slot, list[Any]],
    ) -> tuple[dict[Slot, Any], list[Any], list[tuple[Any, int]]]:
        """The new order: whole units per machine-day; a part is 0 or at least its minimum part."""
        m = self.model
        unit = shop.unit(target)
        least = shop.least(target["quantity"] * unit)
        new_units, late_terms, last_late = {}, [], []
        for slot in sorted(shop.new_slots(target, capacity)):
            units = m.NewIntVar(0, limit[slot] // unit, f"new {slot}")
            used = m.NewBoolVar(f"new used {slot}")
            m.Add(units * unit >= least).OnlyEnforceIf(used)
            m.Add(units == 0).OnlyEnforceIf(used.Not())
            new_units[slot] = units
            load.setdefault(slot, []).append(units * unit)
            lateness = _between(target["due"], slot[0])
            if lateness > 0:
                late_terms.append(units * unit)
                last_late.append((used, lateness))
        return new_units, late_terms, last_late

    def _movable(
        self,
        shop: Shop,
        order: Mapping[str, Any],
        before: Schedule,
        capacity: Mapping[Slot, int],
        limit: Mapping[Slot, int],
        load: dict[Slot, list[Any]],
    ) -> list[Any]:
        m = self.model
        unit = shop.unit(order)
        total = sum(before.values())
        least = shop.least(total)
        allowed = shop.move_slots(order, capacity)
        parts, splits, gone = [], [], []
        for slot in sorted(allowed | set(before)):
            was = before.get(slot, 0)
            most = max(limit.get(slot, 0) if slot in allowed else was, was)
            whole = m.NewIntVar(0, most // unit, f"{order['id']} units {slot}")
            rest = m.NewIntVar(0, unit - 1, f"{order['id']} rest {slot}")
            minutes = m.NewIntVar(0, most, f"{order['id']} {slot}")
            m.Add(minutes == whole * unit + rest)
            split = m.NewBoolVar(f"{order['id']} split {slot}")
            m.Add(rest == 0).OnlyEnforceIf(split.Not())
            splits.append(split)
            if slot not in allowed:
                m.Add(minutes <= was)
            # min split: 0, what it was, or at least ``least``
            same = m.NewBoolVar(f"{order['id']} same {slot}")
            big = m.NewBoolVar(f"{order['id']} big {slot}")
            m.Add(minutes == was).OnlyEnforceIf(same)
            m.Add(minutes >= least).OnlyEnforceIf(big)
            zero = m.NewBoolVar(f"{order['id']} zero {slot}")
            m.Add(minutes == 0).OnlyEnforceIf(zero)
            m.AddBoolOr([same, big, zero])
            if was:
                left = m.NewIntVar(0, was, f"{order['id']} gone {slot}")
                m.Add(left >= was - minutes)
                gone.append(left)
            parts.append(minutes)
            load.setdefault(slot, []).append(minutes)
        m.Add(sum(parts) == total)
        m.Add(sum(splits) <= sum(1 for v in before.values() if v % unit))
        return gone

    def solve(self, objective: Any, work: float, spent: _Spent) -> tuple[int, int | None]:
        """Minimize ``objective`` within ``work`` deterministic seconds: CP-SAT's work counter, not the clock,
        with its workers interleaved in fixed batches (deterministic whatever the machine's cores or load),
        a fixed worker count and seed, and no wall-time limit, so the same shop gives the same answer and
        the same proofs on a loaded machine and an idle one."""
        cp = self.cp
        self.model.Minimize(objective)
        solver = cp.CpSolver()
        solver.parameters.max_deterministic_time = work
        solver.parameters.interleave_search = True
        solver.parameters.num_workers = WORKERS
        solver.parameters.random_seed = 7
        status = solver.Solve(self.model)
        spent.wall += solver.WallTime()
        spent.work += solver.response_proto.deterministic_time
        if status not in (cp.OPTIMAL, cp.FEASIBLE):
            return status, None
        return status, round(solver.ObjectiveValue())


def broken_rules(doc: dict[str, Any], target_id: str, planning_day: str, after: Mapping[str, Schedule]) -> list[str]:
    """Every rule the plan ``after`` (order id -> new schedule, the new order's included) breaks, by name."""
    shop = Shop(doc, planning_day)
    orders = shop.orders()
    capacity = shop.capacity()
    found = _new_order_breaks(shop, orders[target_id], capacity, after.get(target_id, {}))
    for order_id, sched in after.items():
        if order_id != target_id:
            found += _moved_breaks(shop, orders.get(order_id), orders[target_id], capacity, dict(sched), order_id)
    return found + _capacity_breaks(shop, orders, capacity, after)


def _new_order_breaks(
    shop: Shop, target: Mapping[str, Any], capacity: Mapping[Slot, int], placed: Mapping[Slot, int]
) -> list[str]:
    found = []
    unit = shop.unit(target)
    need = target["quantity"] * unit
    allowed = shop.new_slots(target, capacity)
    for slot, minutes in placed.items():
        if slot not in allowed:
            found.append(f"new order slot {slot}")
        if minutes % unit:
            found.append(f"new order part of a unit {slot}")
        if minutes < shop.least(need):
            found.append(f"min split {target['id']} {slot}")
    if sum(placed.values()) > need or not placed:
        found.append(f"new order minutes {sum(placed.values())} of {need}")
    return found


def _moved_breaks(
    shop: Shop,
    order: Mapping[str, Any] | None,
    target: Mapping[str, Any],
    capacity: Mapping[Slot, int],
    sched: Schedule,
    order_id: str,
) -> list[str]:
    if order is None:
        return [f"unknown order {order_id}"]
    before = shop.schedule(order)
    if before == sched:
        return []
    if not shop.movable(order, target):
        return [f"may not move {order_id}"]
    found = []
    ok = shop.move_slots(order, capacity)
    unit, total = shop.unit(order), sum(before.values())
    if sum(sched.values()) != total:
        found.append(f"minutes kept {order_id}")
    if sum(1 for v in sched.values() if v % unit) > sum(1 for v in before.values() if v % unit):
        found.append(f"whole units {order_id}")
    for slot, minutes in sched.items():
        if minutes > before.get(slot, 0) and slot not in ok:
            found.append(f"moved work slot {order_id} {slot}")
        if minutes != before.get(slot) and minutes < shop.least(total):
            found.append(f"min split {order_id} {slot}")
    return found


def _capacity_breaks(
    shop: Shop, orders: Mapping[str, Mapping[str, Any]], capacity: Mapping[Slot, int], after: Mapping[str, Schedule]
) -> list[str]:
    before: dict[Slot, int] = {}
    now: dict[Slot, int] = {}
    for order in orders.values():
        for slot, minutes in shop.schedule(order).items():
            before[slot] = before.get(slot, 0) + minutes
        for slot, minutes in (after[order["id"]] if order["id"] in after else shop.schedule(order)).items():
            now[slot] = now.get(slot, 0) + minutes
    return [
        f"capacity {slot}"
        for slot, minutes in now.items()
        if minutes > before.get(slot, 0) and minutes > max(capacity.get(slot, 0), before.get(slot, 0))
    ]


def days_late(schedule: Mapping[Slot, int], due: str) -> int:
    """Days after ``due`` of the last part of ``schedule`` (0 when on time)."""
    return max([0, *(_between(due, s[0]) for s in schedule)])


def moved(before: Mapping[Slot, int], after: Mapping[Slot, int]) -> int:
    """Minutes that left the machine-day they were on."""
    return sum(max(0, n - after.get(s, 0)) for s, n in before.items())
