"""The optimizing planner: a mixed-integer model of :mod:`.rules` solved by HiGHS, warm-started from greedy.

    neighbourhood  the orders the model may move: those the rules let move that hold the new order's
                   machine-days up to a week past its due date (nearest first), then orders holding the
                   days those could move to (chain moves; lowest priority first), at most MAX_CANDIDATES;
                   every other booking is fixed capacity
    variables      per movable order and allowed machine-day: whole units + a remainder (< one unit,
                   flagged), so partial moves go in whole units and no unit is split further, and whether
                   it holds at least its minimum part (or, for an original part under it, exactly that);
                   per machine-day of the new order: whole units and whether it runs there (then at least
                   its minimum part); per day: does the new order run then
    objective      lexicographic, one HiGHS solve per stage, each stage bounded by the one before:
                   1 days late x (need + 1) + minutes after the due date
                   2 moved minutes x priority
                   3 orders moved x (HORIZON_DAYS + 1) + the new order's finish day
    then           each part of moved work that went to a new machine-day goes to the earliest one with room
                   that the rules allow (:func:`earliest_homes`): equal plans, the earlier days

The budget is counted in work, never in time: one thread, a fixed seed, at most ``nodes`` branch-and-bound
nodes for each of stages 1 and 2 and a fraction of that for the tie-break (STAGE_SHARES), so the same shop
and request give the same plan on any machine and under any load.
HiGHS is imported only here, when a plan is made, so no handler's cold start pays for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..limits import DEFAULT_NODES as DEFAULT_NODES  # the help shows it without importing the solver
from ..shop.model import Allocation, Order, Product, ShopState, add_days, sorted_schedule
from . import rules
from .greedy import HORIZON_DAYS, Placing
from .homes import earliest_homes

MAX_CANDIDATES = 60
FOCUS_DAYS = 7  # the new order's machine-days up to this many days past its due date draw movable orders
SEED = 7
# The share of the node budget each objective stage gets: the tie-breaks (orders moved and finish day, then
# moved work's days) get a fraction, so breaking ties never costs more than deciding lateness and moves.
STAGE_SHARES = ((1, 1), (1, 1), (1, 4))


@dataclass
class _Model:
    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    integer: list[bool] = field(default_factory=list)
    rows: list[tuple[float, float, dict[int, float]]] = field(default_factory=list)

    def var(self, lb: float, ub: float, integer: bool = True) -> int:
        self.lower.append(lb)
        self.upper.append(ub)
        self.integer.append(integer)
        return len(self.lower) - 1

    def row(self, lb: float, ub: float, coefs: dict[int, float]) -> None:
        self.rows.append((lb, ub, coefs))


@dataclass
class _Placed:
    """The columns of one order in one machine-day: after = unit x units + rest."""

    units: int
    rest: int | None
    split: int | None
    moved: int | None  # minutes that left the machine-day (original machine-days only)
    on: int  # binary: the order holds at least its minimum part here (min_split)
    keep: int | None  # binary: the order keeps exactly what it had here (original parts under the minimum)


@dataclass
class _Build:
    model: _Model
    target: dict[rules.Slot, int]  # new order's units per machine-day
    runs: dict[str, int]  # does the new order run on this day (binary)
    placed: dict[str, dict[rules.Slot, _Placed]]  # movable order -> machine-day -> columns
    touched: dict[str, int]
    days_late: int
    finish: int
    stages: list[dict[int, float]]
    unit: int
    planning_day: str
    parts: dict[rules.Slot, int]  # new order's machine-day -> binary: it runs there (at least its minimum part)


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
    reach: set[rules.Slot] = set()
    for order in list(chosen.values()):
        reach.update(_allowed(state, order, planning_day))
    chain = sorted(
        (o for o in movable if o.id not in chosen and any((a.day, a.machine) in reach for a in o.schedule)),
        key=lambda o: (o.priority, o.id),
    )
    for order in chain[: max(0, MAX_CANDIDATES - len(chosen))]:
        chosen[order.id] = order
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


def _part_size(model: _Model, after: dict[int, float], most: int, least: int, kept: int) -> tuple[int, int | None]:
    """min_split: ``after`` minutes are 0, at least ``least`` (``on``), or exactly ``kept`` (``keep``: an
    original part already under the minimum that the plan leaves alone)."""
    on = model.var(0, 1)
    keep = model.var(0, 1) if 0 < kept < least else None
    low = {on: -float(least)} | ({keep: -float(kept)} if keep is not None else {})
    high = {on: -float(max(most, least))} | ({keep: -float(kept)} if keep is not None else {})
    model.row(0, model_inf(), {**after, **low})
    model.row(-model_inf(), 0, {**after, **high})
    if keep is not None:
        model.row(-model_inf(), 1, {on: 1, keep: 1})
    return on, keep


def _order_columns(
    model: _Model, order: Order, unit: int, slots: list[rules.Slot], limits: dict[rules.Slot, int], least: int
) -> tuple[dict[rules.Slot, _Placed], int]:
    before = rules.by_slot(order.schedule)
    touched = model.var(0, 1)
    columns: dict[rules.Slot, _Placed] = {}
    for slot in sorted(set(slots) | set(before)):
        most = limits.get(slot, 0) if slot in slots else before[slot]
        most = max(most, before.get(slot, 0))
        units = model.var(0, most // unit)
        rest = split = None
        if unit > 1:
            rest, split = model.var(0, unit - 1), model.var(0, 1)
            model.row(-model_inf(), 0, {rest: 1, split: -(unit - 1)})
        on, keep = _part_size(model, _after(unit, units, rest), most + unit, least, before.get(slot, 0))
        if slot not in slots:  # an original machine-day it may not grow in
            model.row(-model_inf(), before[slot], _after(unit, units, rest))
        moved = None
        if slot in before:
            moved = model.var(0, before[slot], integer=False)
            model.row(before[slot], model_inf(), {moved: 1, **_after(unit, units, rest)})
            model.row(-model_inf(), 0, {moved: 1, touched: -before[slot]})
        columns[slot] = _Placed(units, rest, split, moved, on, keep)
    total: dict[int, float] = {}
    for placed in columns.values():
        total.update(_after(unit, placed.units, placed.rest))
    model.row(order.scheduled_minutes, order.scheduled_minutes, total)
    splits = {p.split: 1.0 for p in columns.values() if p.split is not None}
    if splits:
        model.row(-model_inf(), rules.split_units(order.schedule, unit), splits)
    return columns, touched


def _after(unit: int, units: int, rest: int | None) -> dict[int, float]:
    return {units: float(unit)} | ({rest: 1.0} if rest is not None else {})


def model_inf() -> float:
    """HiGHS' infinity (any value at or above 1e20 counts as unbounded)."""
    return 1e30


def _build(
    state: ShopState, target: Order, product: Product, planning_day: str, earliest: str, must: set[str]
) -> _Build | None:
    caps = rules.capacities(state, planning_day)
    booked = rules.bookings(state.orders)
    limits = {s: rules.slot_limit(c, booked.get(s, 0)) for s, c in caps.items()}
    new_slots = [s for s in sorted(caps) if rules.slot_for_new(state, product, s, planning_day, earliest)]
    if not new_slots:
        return None
    last_focus = add_days(max(target.due, earliest), FOCUS_DAYS)
    focus = {s for s in new_slots if s[0] <= last_focus}
    movable = _candidates(state, target, planning_day, focus, must)
    model = _Model()
    unit = product.minutes_per_unit
    load: dict[rules.Slot, dict[int, float]] = {}
    fixed = dict(booked)
    placed: dict[str, dict[rules.Slot, _Placed]] = {}
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
            load.setdefault(slot, {}).update(_after(order_unit, cols.units, cols.rest))
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
        parts[slot] = _part_size(model, {col: float(unit)}, limits[slot], least, 0)[0]
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
    return _Build(model, columns, runs, placed, touched, days_late, finish, stages, unit, planning_day, parts)


def _warm_order(build: _Build, values: list[float], order: Order, unit: int, now: dict[rules.Slot, int]) -> bool:
    columns = build.placed[order.id]
    if not set(now) <= set(columns):
        return False
    before = rules.by_slot(order.schedule)
    for slot, cols in columns.items():
        minutes = now.get(slot, 0)
        values[cols.units] = minutes // unit
        if cols.rest is not None and cols.split is not None:
            values[cols.rest], values[cols.split] = minutes % unit, float(minutes % unit > 0)
        kept = cols.keep is not None and minutes == before.get(slot)
        if cols.keep is not None:
            values[cols.keep] = float(kept)
        values[cols.on] = float(minutes > 0 and not kept)
        if cols.moved is not None:
            gone = max(0, before[slot] - minutes)
            values[cols.moved] = gone
            values[build.touched[order.id]] = max(values[build.touched[order.id]], float(gone > 0))
    return True


def _warm(
    build: _Build, after: Mapping[str, tuple[Allocation, ...]], target: Order, state: ShopState
) -> list[float] | None:
    """The columns of a plan (greedy's) for HiGHS to start from; None when the plan is outside the model."""
    values = [0.0] * len(build.model.lower)
    if not set(after) - {target.id} <= set(build.placed):
        return None
    for order_id in build.placed:
        order = state.order(order_id)
        assert order is not None
        unit = state.product(order.product).minutes_per_unit  # type: ignore[union-attr]
        if not _warm_order(build, values, order, unit, rules.by_slot(after.get(order_id, order.schedule))):
            return None
    new = rules.by_slot(after.get(target.id, ()))
    if not set(new) <= set(build.target):
        return None
    for slot, col in build.target.items():
        values[col] = new.get(slot, 0) // build.unit
        if new.get(slot, 0):
            values[build.runs[slot[0]]] = values[build.parts[slot]] = 1.0
    values[build.days_late] = rules.lateness(after.get(target.id, ()), target.due)[0]
    values[build.finish] = max((rules.days_between(build.planning_day, s[0]) for s in new), default=0)
    return values


def solve(
    placing: Placing, start: Mapping[str, tuple[Allocation, ...]] | None, nodes: int = DEFAULT_NODES
) -> dict[str, tuple[Allocation, ...]] | None:
    """The best plan found within ``nodes`` per stage: each changed order's new schedule (the new order's
    included), or None when the model has no solution in budget. ``start`` is a plan to begin from."""
    state, target, product = placing.state, placing.target, placing.product
    planning_day, earliest = placing.planning_day, placing.earliest
    build = _build(state, target, product, planning_day, earliest, set(start or ()) - {target.id})
    if build is None:
        return None
    highs = _highs(build.model, nodes)
    warm = _warm(build, start, target, state) if start is not None else None
    complete = start is not None and sum(a.minutes for a in start.get(target.id, ())) == target.quantity * build.unit
    solution: list[float] | None = None
    for stage, share in zip(build.stages, STAGE_SHARES, strict=True):
        if warm is not None and complete and not any(coef * warm[col] for col, coef in stage.items()):
            # Every stage's costs are non-negative: a start at 0 is optimal, and HiGHS would spend its root LP
            # on proving it. Keep the start and bound the stage at 0.
            solution = warm
            highs.addRow(-model_inf(), 0.5, len(stage), list(stage), list(stage.values()))
            continue
        highs.setOptionValue("mip_max_nodes", max(1, nodes * share[0] // share[1]))
        highs.changeColsCost(len(build.model.lower), list(range(len(build.model.lower))), _costs(build, stage))
        if warm is not None:
            _set_solution(highs, warm)
        highs.run()
        values = list(highs.getSolution().col_value)
        if highs.getInfo().primal_solution_status != 2:  # no feasible point found in budget
            return _read(build, state, target, solution) if solution is not None else None
        solution = warm = [round(v) if build.model.integer[i] else v for i, v in enumerate(values)]
        bound = sum(coef * solution[col] for col, coef in stage.items())
        highs.addRow(-model_inf(), bound + 0.5, len(stage), list(stage), list(stage.values()))
    assert solution is not None
    return _read(build, state, target, solution)


def _costs(build: _Build, stage: dict[int, float]) -> list[float]:
    return [stage.get(i, 0.0) for i in range(len(build.model.lower))]


def _set_solution(highs: Any, values: list[float]) -> None:
    import highspy

    given = highspy.HighsSolution()
    given.col_value = values
    given.value_valid = True
    highs.setSolution(given)


def _highs(model: _Model, nodes: int) -> Any:
    import highspy

    highs = highspy.Highs()
    for option, value in (
        ("output_flag", False),
        ("threads", 1),
        ("random_seed", SEED),
        ("mip_max_nodes", nodes),
        ("mip_rel_gap", 0.0),
        ("mip_abs_gap", 0.5),
        ("presolve", "on"),
    ):
        highs.setOptionValue(option, value)
    n = len(model.lower)
    highs.addVars(n, model.lower, model.upper)
    ints = [i for i in range(n) if model.integer[i]]
    highs.changeColsIntegrality(len(ints), ints, [highspy.HighsVarType.kInteger] * len(ints))
    for lb, ub, coefs in model.rows:
        highs.addRow(lb, ub, len(coefs), list(coefs), list(coefs.values()))
    return highs


def _read(build: _Build, state: ShopState, target: Order, values: list[float]) -> dict[str, tuple[Allocation, ...]]:
    plan: dict[str, tuple[Allocation, ...]] = {}
    unit = state.product(target.product).minutes_per_unit  # type: ignore[union-attr]
    plan[target.id] = sorted_schedule(
        Allocation(machine=m, day=d, minutes=round(values[c]) * unit)
        for (d, m), c in build.target.items()
        if round(values[c])
    )
    for order_id, columns in build.placed.items():
        order = state.order(order_id)
        assert order is not None
        order_unit = state.product(order.product).minutes_per_unit  # type: ignore[union-attr]
        after = []
        for (d, m), cols in columns.items():
            minutes = round(values[cols.units]) * order_unit + (
                round(values[cols.rest]) if cols.rest is not None else 0
            )
            if minutes:
                after.append(Allocation(machine=m, day=d, minutes=minutes))
        schedule = sorted_schedule(after)
        if schedule != order.schedule:
            plan[order_id] = schedule
    return earliest_homes(state, planning_day=build.planning_day, target_id=target.id, plan=plan)
