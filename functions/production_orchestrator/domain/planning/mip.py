"""The mixed-integer model of :mod:`.rules` that :mod:`.solver` hands to HiGHS.

    neighbourhood  the orders the model may move: those the rules let move that hold the new order's
                   machine-days up to a week past its due date (nearest first), then, link by link, the
                   orders holding the days the last link could move to (chain moves; lowest priority first
                   within a link), at most MAX_CANDIDATES; every other booking is fixed capacity
    variables      per movable order and allowed machine-day: whole units + a remainder (< one unit,
                   flagged), so partial moves go in whole units and no unit is split further, and whether
                   it holds at least its minimum part (or, for an original part under it, exactly that);
                   per machine-day of the new order: whole units and whether it runs there (then at least
                   its minimum part); per day: does the new order run then
    objective      lexicographic stages, each a cost over the columns (:class:`Build`.stages):
                   1 days late x (need + 1) + minutes after the due date
                   2 moved minutes x priority
                   3 orders moved x (HORIZON_DAYS + 1) + the new order's finish day

The minimum-part rows (``min_split_minutes``) are marked: without them the model is a relaxation whose
optimum bounds the full model's, and a relaxed plan that happens to keep them is the full model's optimum.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..shop.model import Order, Product, ShopState, add_days
from . import rules
from .greedy import HORIZON_DAYS

MAX_CANDIDATES = 60
FOCUS_DAYS = 7  # the new order's machine-days up to this many days past its due date draw movable orders


@dataclass(frozen=True)
class Part:
    """One minimum-part choice: the minutes ``after`` are 0, at least ``least`` (``on``), or exactly ``kept``
    (``keep``: an original part already under the minimum, left alone)."""

    owner: str  # the order
    after: dict[int, float]
    least: int
    kept: int
    on: int
    keep: int | None


@dataclass
class Model:
    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    integer: list[bool] = field(default_factory=list)
    rows: list[tuple[float, float, dict[int, float]]] = field(default_factory=list)
    part_rows: set[int] = field(default_factory=set)  # the rows of the minimum part (left out when relaxed)
    parts: list[Part] = field(default_factory=list)

    def var(self, lb: float, ub: float, integer: bool = True) -> int:
        self.lower.append(lb)
        self.upper.append(ub)
        self.integer.append(integer)
        return len(self.lower) - 1

    def row(self, lb: float, ub: float, coefs: dict[int, float], part: bool = False) -> None:
        if part:
            self.part_rows.add(len(self.rows))
        self.rows.append((lb, ub, coefs))


@dataclass
class Placed:
    """The columns of one order in one machine-day: after = unit x units + rest."""

    units: int
    rest: int | None
    split: int | None
    moved: int | None  # minutes that left the machine-day (original machine-days only)
    on: int  # binary: the order holds at least its minimum part here (min_split)
    keep: int | None  # binary: the order keeps exactly what it had here (original parts under the minimum)
    unit: int = 1  # the order's minutes per unit
    had: int = 0  # the minutes it had here before the plan


@dataclass
class Build:
    model: Model
    target: dict[rules.Slot, int]  # new order's units per machine-day
    runs: dict[str, int]  # does the new order run on this day (binary)
    placed: dict[str, dict[rules.Slot, Placed]]  # movable order -> machine-day -> columns
    touched: dict[str, int]
    days_late: int
    finish: int
    stages: list[dict[int, float]]
    unit: int
    planning_day: str
    parts: dict[rules.Slot, int]  # new order's machine-day -> binary: it runs there (at least its minimum part)
    target_id: str


def _candidates(
    state: ShopState, target: Order, planning_day: str, focus: set[rules.Slot], must: set[str]
) -> list[Order]:
    movable = [o for o in state.orders if o.id != target.id and rules.may_move(o, target, planning_day)]
    nearest = sorted(
        ((min(a.day for a in o.schedule if (a.day, a.machine) in focus), o.priority, o.id), o)
        for o in movable
        if any((a.day, a.machine) in focus for a in o.schedule)
    )
    chosen = {o.id: o for o in state.orders if o.id in must}
    for _, order in nearest:
        if len(chosen) < MAX_CANDIDATES:
            chosen.setdefault(order.id, order)
    # Chain moves, link by link: the orders holding the days the last link could move to, lowest priority
    # first. On a calendar booked all along, room for the new order is made by a chain of orders each moving
    # into the next one's days, so one link is not enough (horizon-l-0: 84 days late with one, 5 with them all).
    level = list(chosen.values())
    while level and len(chosen) < MAX_CANDIDATES:
        reach: set[rules.Slot] = set()
        for order in level:
            reach.update(_allowed(state, order, planning_day))
        chain = sorted(
            (o for o in movable if o.id not in chosen and any((a.day, a.machine) in reach for a in o.schedule)),
            key=lambda o: (o.priority, o.id),
        )
        level = chain[: MAX_CANDIDATES - len(chosen)]
        chosen.update((o.id, o) for o in level)
    return [chosen[k] for k in sorted(chosen)]


def _allowed(state: ShopState, order: Order, planning_day: str) -> list[rules.Slot]:
    product = state.product(order.product)
    if product is None:
        return []
    days = [d for d in rules.horizon(planning_day) if order.schedule[0].day <= d <= order.due]
    return [
        (d, m)
        for d in days
        for m in product.machines
        if rules.slot_for_move(state, order, product, (d, m), planning_day)
    ]


def _part_size(
    model: Model, owner: str, after: dict[int, float], most: int, least: int, kept: int
) -> tuple[int, int | None]:
    """min_split: ``after`` minutes are 0, at least ``least`` (``on``), or exactly ``kept`` (``keep``: an
    original part already under the minimum that the plan leaves alone)."""
    on = model.var(0, 1)
    keep = model.var(0, 1) if 0 < kept < least else None
    low = {on: -float(least)} | ({keep: -float(kept)} if keep is not None else {})
    high = {on: -float(max(most, least))} | ({keep: -float(kept)} if keep is not None else {})
    model.row(0, model_inf(), {**after, **low}, part=True)
    model.row(-model_inf(), 0, {**after, **high}, part=True)
    if keep is not None:
        model.row(-model_inf(), 1, {on: 1, keep: 1}, part=True)
    model.parts.append(Part(owner, after, least, kept, on, keep))
    return on, keep


def _minutes(part: Part, values: list[float]) -> int:
    return round(sum(coef * values[col] for col, coef in part.after.items()))


def short_parts(model: Model, values: list[float]) -> set[str]:
    """The orders with a part under their minimum in ``values`` (a solution of the relaxed model)."""
    return {
        p.owner
        for p in model.parts
        if 0 < (n := _minutes(p, values)) < p.least and not (p.keep is not None and n == p.kept)
    }


def full_parts(model: Model, values: list[float]) -> list[int]:
    """The minimum-part choices ``values`` (a solution of the relaxed model) already holds at least their
    least in: fixed on, they make the repair model (a part under it may still grow, go or move)."""
    return [p.on for p in model.parts if _minutes(p, values) >= p.least]


def keep_parts(model: Model, values: list[float]) -> list[float]:
    """``values`` (a solution of the relaxed model without :func:`short_parts`) with every minimum-part choice
    set: a solution of the full model."""
    full = list(values)
    for part in model.parts:
        minutes = _minutes(part, values)
        kept = part.keep is not None and minutes == part.kept
        full[part.on] = float(minutes > 0 and not kept)
        if part.keep is not None:
            full[part.keep] = float(kept)
    return full


def tidy(model: Build, values: list[float]) -> list[float]:
    """``values`` with each movable order's bookkeeping columns at the least the rules let them be: moved
    minutes what left the machine-day, the split flag where a remainder is, touched where minutes moved.

    A stage minimizes only its own columns, so a plan can carry a touched flag or moved minutes nothing
    moved (free until the stage that costs them). Held where they are, such orders would make the plan
    infeasible in the near model, which then starts from nothing; tidied, the plan is a solution of every
    model it solved and costs no more in any stage."""
    tidied = list(values)
    for order_id, columns in model.placed.items():
        touched = 0.0
        for p in columns.values():
            rest = round(values[p.rest]) if p.rest is not None else 0
            if p.split is not None:
                tidied[p.split] = float(rest > 0)
            if p.moved is not None:
                tidied[p.moved] = float(max(0, p.had - p.unit * round(values[p.units]) - rest))
                touched = max(touched, float(tidied[p.moved] > 0))
        tidied[model.touched[order_id]] = touched
    return tidied


def columns_of(model: Build, order_id: str) -> list[int]:
    """The columns that say where ``order_id`` (a movable order or the new one) runs."""
    if order_id not in model.placed:
        return list(model.target.values())
    return [
        col for p in model.placed[order_id].values() for col in (p.units, p.rest, p.split, p.moved) if col is not None
    ] + [model.touched[order_id]]


def _order_columns(
    model: Model, order: Order, unit: int, slots: list[rules.Slot], limits: dict[rules.Slot, int], least: int
) -> tuple[dict[rules.Slot, Placed], int]:
    before = rules.by_slot(order.schedule)
    touched = model.var(0, 1)
    columns: dict[rules.Slot, Placed] = {}
    for slot in sorted(set(slots) | set(before)):
        most = limits.get(slot, 0) if slot in slots else before[slot]
        most = max(most, before.get(slot, 0))
        units = model.var(0, most // unit)
        rest = split = None
        if unit > 1:
            rest, split = model.var(0, unit - 1), model.var(0, 1)
            model.row(-model_inf(), 0, {rest: 1, split: -(unit - 1)})
        on, keep = _part_size(
            model, order.id, after_minutes(unit, units, rest), most + unit, least, before.get(slot, 0)
        )
        if slot not in slots:  # an original machine-day it may not grow in
            model.row(-model_inf(), before[slot], after_minutes(unit, units, rest))
        moved = None
        if slot in before:
            moved = model.var(0, before[slot])  # integral, so each stage's cost is a whole number
            model.row(before[slot], model_inf(), {moved: 1, **after_minutes(unit, units, rest)})
            model.row(-model_inf(), 0, {moved: 1, touched: -before[slot]})
        columns[slot] = Placed(units, rest, split, moved, on, keep, unit, before.get(slot, 0))
    total: dict[int, float] = {}
    for placed in columns.values():
        total.update(after_minutes(unit, placed.units, placed.rest))
    model.row(order.scheduled_minutes, order.scheduled_minutes, total)
    splits = {p.split: 1.0 for p in columns.values() if p.split is not None}
    if splits:
        model.row(-model_inf(), rules.split_units(order.schedule, unit), splits)
    return columns, touched


def after_minutes(unit: int, units: int, rest: int | None) -> dict[int, float]:
    """The minutes of one machine-day's columns: unit x units + rest."""
    return {units: float(unit)} | ({rest: 1.0} if rest is not None else {})


def model_inf() -> float:
    """HiGHS' infinity (any value at or above 1e20 counts as unbounded)."""
    return 1e30


def build(
    state: ShopState, target: Order, product: Product, planning_day: str, earliest: str, must: set[str]
) -> Build | None:
    """The model of placing ``target`` (the orders in ``must`` among the movable ones), or None when the new
    order has no machine-day at all."""
    caps = rules.capacities(state, planning_day)
    booked = rules.bookings(state.orders)
    limits = {s: rules.slot_limit(c, booked.get(s, 0)) for s, c in caps.items()}
    new_slots = [s for s in sorted(caps) if rules.slot_for_new(state, product, s, planning_day, earliest)]
    if not new_slots:
        return None
    last_focus = add_days(max(target.due, earliest), FOCUS_DAYS)
    focus = {s for s in new_slots if s[0] <= last_focus}
    movable = _candidates(state, target, planning_day, focus, must)
    model = Model()
    unit = product.minutes_per_unit
    load: dict[rules.Slot, dict[int, float]] = {}
    fixed = dict(booked)
    placed: dict[str, dict[rules.Slot, Placed]] = {}
    touched: dict[str, int] = {}
    for order in movable:
        order_unit = state.product(order.product).minutes_per_unit  # type: ignore[union-attr]
        placed[order.id], touched[order.id] = _order_columns(
            model,
            order,
            order_unit,
            _allowed(state, order, planning_day),
            limits,
            state.min_part(order.scheduled_minutes),
        )
        for slot, cols in placed[order.id].items():
            load.setdefault(slot, {}).update(after_minutes(order_unit, cols.units, cols.rest))
        for a in order.schedule:
            fixed[(a.day, a.machine)] -= a.minutes
    days = sorted({s[0] for s in new_slots})
    runs = {d: model.var(0, 1) for d in days}
    columns = {s: model.var(0, limits[s] // unit) for s in new_slots}
    least = state.min_part(target.quantity * unit)
    parts: dict[rules.Slot, int] = {}
    for slot, col in columns.items():
        load.setdefault(slot, {})[col] = float(unit)
        model.row(-model_inf(), 0, {col: 1, runs[slot[0]]: -(limits[slot] // unit)})
        parts[slot] = _part_size(model, target.id, {col: float(unit)}, limits[slot], least, 0)[0]
    model.row(target.quantity, target.quantity, dict.fromkeys(columns.values(), 1.0))
    for slot in sorted(load):
        model.row(-model_inf(), limits.get(slot, booked.get(slot, 0)) - fixed.get(slot, 0), load[slot])
    days_late, finish = model.var(0, model_inf()), model.var(0, HORIZON_DAYS)
    for day, col in runs.items():
        if day > target.due:
            model.row(0, model_inf(), {days_late: 1, col: -rules.days_between(target.due, day)})
        model.row(0, model_inf(), {finish: 1, col: -rules.days_between(planning_day, day)})
    need = target.quantity * unit
    late = {col: float(unit) for s, col in columns.items() if s[0] > target.due}
    stages = [
        {days_late: float(need + 1), **late},
        {
            cols.moved: float(order.priority)
            for order in movable
            for cols in placed[order.id].values()
            if cols.moved is not None
        },
        {**{t: float(HORIZON_DAYS + 1) for t in touched.values()}, finish: 1.0},
    ]
    return Build(model, columns, runs, placed, touched, days_late, finish, stages, unit, planning_day, parts, target.id)
