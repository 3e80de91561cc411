"""Which planner's plan is proposed: the solver's when it is better, the greedy one otherwise.

    greedy place()  ->  warm start for the solver (or, when greedy finds no room at all, no start)
    solver.solve()  ->  kept only if the checker finds no broken rule and its score beats greedy's
    otherwise       ->  greedy's plan (also when the solver fails or HiGHS cannot be imported)

Either way the chosen plan passes the checker before it is proposed, and the proposal records which
planner produced it (``planned_by``).
"""

from __future__ import annotations

import logging
from typing import Literal

from ..errors import PlanningError
from ..limits import DEFAULT_NODES
from ..shop.model import Allocation, Order, Product, ShopState
from . import rules
from .checker import Plan, require_valid, violations
from .greedy import Placement, Placing, place

PlannedBy = Literal["solver", "greedy"]
LOGGER = logging.getLogger(__name__)


def _after(placement: Placement, target: Order) -> dict[str, tuple[Allocation, ...]]:
    return {**placement.moved, target.id: placement.allocations}


def window(
    state: ShopState, product: Product, planning_day: str, earliest: str, due: str
) -> tuple[int, int, int, tuple[str, ...]]:
    """(booked minutes, capacity, machine-days, orders booked) of the new order's machine-days, ``earliest``
    to ``due``."""
    caps = rules.capacities(state, planning_day)
    slots = {s for s in caps if s[0] <= due and rules.slot_for_new(state, product, s, planning_day, earliest)}
    booked = rules.bookings(state.orders)
    orders = {o.id for o in state.orders for a in o.schedule if (a.day, a.machine) in slots}
    return sum(booked.get(s, 0) for s in slots), sum(caps[s] for s in slots), len(slots), tuple(sorted(orders))


def _placement(
    state: ShopState,
    target: Order,
    product: Product,
    planning_day: str,
    earliest: str,
    after: dict[str, tuple[Allocation, ...]],
) -> Placement:
    booked, capacity, slots, in_window = window(state, product, planning_day, earliest, target.due)
    moved = {k: v for k, v in sorted(after.items()) if k != target.id}
    late = rules.lateness(after[target.id], target.due)[1]
    return Placement(
        allocations=after[target.id],
        need=target.quantity * product.minutes_per_unit,
        earliest=earliest,
        moved=moved,
        late_minutes=late,
        unplaced_minutes=0,
        blocking=tuple(o for o in in_window if o not in moved) if late else (),
        window_booked=booked,
        window_capacity=capacity,
        window_slots=slots,
        window_orders=in_window,
    )


def best_placement(placing: Placing, nodes: int = DEFAULT_NODES, solve: bool = True) -> tuple[Placement, PlannedBy]:
    """The plan to propose for ``target`` and who made it. ``solve=False`` asks the solver only when greedy
    finds no room at all; ``nodes`` is the solver's budget (branch-and-bound nodes per objective stage)."""
    state, target, product = placing.state, placing.target, placing.product
    planning_day, earliest = placing.planning_day, placing.earliest
    greedy: Placement | None = None
    failed: PlanningError | None = None
    try:
        greedy = place(state, target, product, planning_day, earliest)
    except PlanningError as exc:
        failed = exc
    if greedy is not None and (not solve or _nothing_to_better(greedy)):
        return _checked(state, target, planning_day, earliest, greedy), "greedy"
    from . import solver  # only here: a request greedy places on time, moving nothing, never loads it

    start = _after(greedy, target) if greedy is not None else None
    try:
        found = solver.solve(placing, start, nodes)
    except Exception:  # the greedy plan stands when the solver is missing or fails; why is logged
        LOGGER.warning("solver failed for %s; the greedy plan stands", target.id, exc_info=True)
        found = None
    if found is not None and target.id in found:
        plan = Plan(state, target, planning_day, earliest, found)
        better = (
            start is None
            or rules.score(state, target, planning_day, found).key()
            < rules.score(state, target, planning_day, start).key()
        )
        if better and not violations(plan):
            return _placement(state, target, product, planning_day, earliest, found), "solver"
    if greedy is None:
        assert failed is not None
        raise failed
    return _checked(state, target, planning_day, earliest, greedy), "greedy"


def _nothing_to_better(greedy: Placement) -> bool:
    """Greedy placed the whole order on time and moved no other order: no plan is later by less or moves
    less, so the solver has nothing to improve on the objective's first stages."""
    return greedy.late_minutes == 0 and greedy.unplaced_minutes == 0 and not greedy.moved


def _checked(state: ShopState, target: Order, planning_day: str, earliest: str, placement: Placement) -> Placement:
    require_valid(Plan(state, target, planning_day, earliest, _after(placement, target)))
    return placement
