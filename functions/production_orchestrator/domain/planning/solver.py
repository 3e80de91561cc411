"""The optimizing planner: the model of :mod:`.mip` solved by HiGHS, warm-started from greedy.

    stages    lexicographic, one solve per stage, each bounded by the ones before (:mod:`.mip`):
              1 days late, 2 moved minutes x priority, 3 orders moved and the new order's finish day
    relaxed   first every stage without the minimum-part rows (min_split_minutes): HiGHS solves it in a
              fraction of the full model's time (those binaries are what makes a first plan hard to find),
              and each proven stage optimum is a floor no plan of the full model goes under; a relaxed plan
              that keeps the minimum part is a plan of the full model (and, every stage proven, its optimum)
    per stage the best plan so far meets the floor: decided. Otherwise the full model with only the orders
              the relaxed plan or the best plan moves free (near); if that still misses the floor, the full
              model (stages 1 and 2: what a plan is judged by; the tie-break stays with the near model).
              Lateness tries, between the near and the full model, the repair model: the full one with every
              part the relaxed plan holds at its minimum or more kept at it (its short parts grow, go or move)
              Once a stage ends above its floor, the next floor is the relaxed model's under the same bounds
    bounded   the relaxed stages stop at the first one out of budget (no floor after it); when the near
              model ran out of budget improving the moved work, its plan stands (no full solve); the
              tie-break is skipped once a judged stage ended unproven (the plan's bookkeeping tidied)
    then      each part of moved work that went to a new machine-day goes to the earliest one with room
              that the rules allow (:func:`earliest_homes`): equal plans, the earlier days

The budget is counted in work, never in time: one thread, a fixed seed, at most ``nodes`` branch-and-bound
nodes per solve of stages 1 and 2 and a fraction of that for the tie-break (highs_model.STAGE_SHARES), so the
same shop and request give the same plan on any machine and under any load.
HiGHS is imported only when a plan is made (:mod:`.highs_model`), so no handler's cold start pays for it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..limits import DEFAULT_NODES as DEFAULT_NODES  # the help shows it without importing the solver
from ..shop.model import Allocation, Order, ShopState, sorted_schedule
from . import rules
from .greedy import Placing
from .highs_model import StageSolver, cost
from .homes import earliest_homes
from .mip import Build, build, full_parts, keep_parts, short_parts


def _warm_order(build: Build, values: list[float], order: Order, unit: int, now: dict[rules.Slot, int]) -> bool:
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
    build: Build, after: Mapping[str, tuple[Allocation, ...]], target: Order, state: ShopState
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
    model = build(state, target, product, planning_day, earliest, set(start or ()) - {target.id})
    if model is None:
        return None
    warm = _warm(model, start, target, state) if start is not None else None
    complete = start is not None and sum(a.minutes for a in start.get(target.id, ())) == target.quantity * model.unit
    held = _warm(model, {}, target, state)
    assert held is not None  # every order where it is: inside the model
    best = _Search(model, nodes, held, warm if complete else None, warm)
    for index in range(len(model.stages)):
        if not best.stage(index):
            return None
    assert best.incumbent is not None
    return _read(model, state, target, best.incumbent)


# The stages a plan is judged by (lateness, then moved work) are proven in the full model when the relaxed and
# near models cannot; the tie-break (orders moved, the finish day) is left to the near model.
JUDGED_STAGES = 2


class _Search:
    """The stages in turn, each decided as cheaply as it can be proven (the module docstring's order)."""

    def __init__(
        self, model: Build, nodes: int, held: list[float], incumbent: list[float] | None, hint: list[float] | None
    ) -> None:
        self.model, self.nodes, self.held = model, nodes, held
        self.incumbent, self.hint = incumbent, hint  # a plan of the full model; a start that may not be one
        self.near: StageSolver | None = None
        self.full: StageSolver | None = None
        self.bounds: list[tuple[int, float]] = []
        self.floors, self.relaxed = self._relaxed()
        self.exact = True  # every stage so far ended at its floor: the relaxed floors still bound the next
        self.proven = True  # every judged stage so far ended at its floor or a proven optimum

    def _relaxed(self) -> tuple[list[float | None], list[float] | None]:
        """Every stage of the relaxed model: each one's proven optimum (a floor of the full model's) and its
        plan, whose moves draw the near model and which is the full model's optimum when it keeps the rules."""
        relaxed = StageSolver(self.model, self.nodes, relaxed=True)
        floors: list[float | None] = []
        found = self.incumbent or self.hint
        for index, stage in enumerate(self.model.stages):
            values, optimal = relaxed.run(index, found)
            if values is None:
                return [*floors, *[None] * (len(self.model.stages) - index)], found
            found = values
            floors.append(cost(stage, found) if optimal and None not in floors else None)
            if not optimal:
                # Out of budget: no floor from here on, and the later stages would bound nothing.
                return [*floors, *[None] * (len(self.model.stages) - index - 1)], self._keep(found)
            relaxed.bound(index, cost(stage, found))
        return floors, self._keep(found)

    def _keep(self, found: list[float] | None) -> list[float] | None:
        if found is not None and not short_parts(self.model.model, found):
            self.incumbent = keep_parts(self.model.model, found)  # it keeps every rule as it is: no worse a start
        return found

    def _better(self, index: int, values: list[float] | None) -> None:
        stage = self.model.stages[index]
        if values is not None and (self.incumbent is None or cost(stage, values) < cost(stage, self.incumbent)):
            self.incumbent = values

    def _met(self, index: int, floor: float | None) -> bool:
        level = cost(self.model.stages[index], self.incumbent) if self.incumbent is not None else None
        return level is not None and (level < 0.5 or (floor is not None and level < floor + 0.5))

    def stage(self, index: int) -> bool:
        """Decide stage ``index`` and bound it in every model; False when no plan is found in budget."""
        floor = self.floors[index] if self.exact else None
        judged = index < JUDGED_STAGES
        if not judged and not self.proven:
            # A stage before it ran out of budget: on such shops the tie-break's search found nothing better
            # than the plan it started from (tidied), at the cost of a solve as long as all the others.
            return self._decided(index)
        if judged and not self.exact and not self._met(index, None):
            # An earlier stage ended above its floor: this stage's floor is the relaxed model's under the same
            # bounds as the full model's.
            found, optimal = StageSolver(self.model, self.nodes, True, self.bounds).run(index, self.incumbent)
            floor = cost(self.model.stages[index], found) if found is not None and optimal else None
        near = (False, False) if self._met(index, floor) else self._near(index)
        if index == 0 and not self._met(index, floor):
            self._repair(index)
        if judged and not self._met(index, floor) and (index == 0 or near != (True, False)):
            # Lateness always gets the full model when the near one misses its floor; moved work only when
            # the near model found nothing better or proved its neighbourhood exhausted, not when it ran out
            # of budget improving (the full model's solve then costs twice the near one for about 1%).
            if self.full is None:
                self.full = StageSolver(self.model, self.nodes, bounds=self.bounds)
            values, optimal = self.full.run(index, self.incumbent or self.hint)
            self._better(index, values)
            self.proven = self.proven and (optimal or self._met(index, floor))
        elif judged:
            self.proven = self.proven and self._met(index, floor)
        if self.incumbent is None:
            return False
        self.exact = self.exact and floor is not None and self._met(index, floor)
        return self._decided(index)

    def _decided(self, index: int) -> bool:
        if self.incumbent is None:
            return False
        level = cost(self.model.stages[index], self.incumbent)
        self.bounds.append((index, level))
        for solver in (self.near, self.full):
            if solver is not None:
                solver.bound(index, level)
        return True

    def _repair(self, index: int) -> None:
        """The full model with every part the relaxed plan holds at its minimum or more kept at it: its short
        parts grow, go or move. Where the relaxed plan fills gaps under the minimum part all along a booked
        calendar, neither the near model nor the full one finds a plan near it in budget; this one does."""
        if self.relaxed is None or not short_parts(self.model.model, self.relaxed):
            return
        repair = StageSolver(self.model, self.nodes, bounds=self.bounds)
        repair.require(full_parts(self.model.model, self.relaxed))
        self._better(index, repair.run(index, self.incumbent or self.hint)[0])

    def _near(self, index: int) -> tuple[bool, bool]:
        """The full model around the relaxed plan: the orders it or the best plan so far moves may move."""
        free = _changed(self.model, self.relaxed, self.held) | _changed(self.model, self.incumbent, self.held)
        if self.relaxed is not None:
            free |= short_parts(self.model.model, self.relaxed)
        if self.near is None:
            self.near = StageSolver(self.model, self.nodes, bounds=self.bounds)
        self.near.hold(self.held, free)
        values, optimal = self.near.run(index, self.incumbent or self.hint)
        before = self.incumbent
        self._better(index, values)
        return self.incumbent is not before, optimal


def _changed(model: Build, values: list[float] | None, held: list[float]) -> set[str]:
    """The movable orders that ``values`` places other than where they are."""
    if values is None:
        return set()
    return {
        order_id
        for order_id, columns in model.placed.items()
        if any(values[c] != held[c] for p in columns.values() for c in (p.units, p.rest) if c is not None)
    }


def _read(build: Build, state: ShopState, target: Order, values: list[float]) -> dict[str, tuple[Allocation, ...]]:
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
