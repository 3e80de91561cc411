"""The whole shop's schedule as a grid people look at: every machine as a row, every day from today as a
column, with what the pending plans would change laid over it.

    shop (booked work, closed days, due dates)  +  the pending plans (numbered 1, 2, ... oldest first)
        -> cells: booked work ("kept"; "moving" when a pending plan moves it away), each pending plan's new
           order ("new") and the work it moves there ("moved"), each block of a plan carrying its number
        -> due: per day, the orders due then (a pending plan's order marked with its number)

Pure data, like timeline.py: the page draws it as SVG and reads the same cells out as text. Days run from
today (or the earliest pending plan's planning day, when earlier) through the last day anything is booked,
due or planned (at least a week), at most the planning horizon; work before the first day is counted, not
drawn. Nothing of a pending plan is in the shop yet: its blocks
stand beside the booked work, so a day may show more than it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..shop.days import add_days, day_range, parse_day
from ..shop.model import Machine, ShopState
from .greedy import HORIZON_DAYS
from .proposal import ProposalContent
from .timeline import BLOCK_ORDER, Block, Cell, day_label, describe_cell, places

MIN_DAYS = 7


@dataclass(frozen=True)
class PendingPlan:
    """A plan waiting for its approval: its number on the page, its proposal, its run and where it stands."""

    number: int
    proposal: ProposalContent
    checkpoint_id: str
    proposal_hash: str
    status: str  # pending | stale | decided | resuming | no_approval (services/runs/requests.py)


@dataclass(frozen=True)
class ShopSchedule:
    """Every machine's cells over ``days``, what is due each day, and the pending plans laid over them."""

    name: str
    today: str
    machines: tuple[str, ...]
    days: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]  # one row per machine, one cell per day
    due: tuple[tuple[str, tuple[str, ...]], ...]  # (day, order ids due that day, "(plan N)" marked)
    plans: tuple[PendingPlan, ...]
    days_cut: int = 0  # days after the last one drawn with work on them
    earlier_bookings: int = 0  # bookings before today (not drawn)

    def due_on(self, day: str) -> tuple[str, ...]:
        """What is due on ``day``."""
        return dict(self.due).get(day, ())


Grid = dict[tuple[str, str], list[Block]]


def _put(grid: Grid, machine: str, day: str, block: Block) -> None:
    grid.setdefault((machine, day), []).append(block)


def _blocks(state: ShopState, plans: tuple[PendingPlan, ...]) -> Grid:
    """Booked work (marked when a pending plan moves it), then each plan's new and moved work."""
    moved_by: dict[str, int] = {}
    for plan in plans:
        for change in plan.proposal.schedule_changes:
            moved_by.setdefault(change.order_id, plan.number)
    grid: Grid = {}
    for order in state.orders:
        late = order.last_day is not None and order.last_day > order.due
        mover = moved_by.get(order.id, 0)
        for a in order.schedule:
            _put(grid, a.machine, a.day, Block(order.id, a.minutes, "moving" if mover else "kept", late, plan=mover))
    for plan in plans:
        proposal = plan.proposal
        risky = {r.order_id for r in proposal.at_risk}
        for change in proposal.schedule_changes:
            new = change.order_id == proposal.target_order.id
            came = change.before[0] if change.before else None
            for a in change.after:
                block = Block(
                    change.order_id,
                    a.minutes,
                    "new" if new else "moved",
                    change.order_id in risky,
                    "" if new else places(change.before),
                    None if new else came,
                    plan=plan.number,
                )
                _put(grid, a.machine, a.day, block)
    return grid


def _days(state: ShopState, today: str, plans: tuple[PendingPlan, ...]) -> tuple[tuple[str, ...], int]:
    """The days drawn and how many later days with work or a due date are beyond them: from today, or from the
    earliest pending plan's planning day when that is earlier (a reference scenario plans on its own day)."""
    today = min([today, *(p.proposal.planning_day for p in plans)])
    used = {a.day for o in state.orders for a in o.schedule} | {o.due for o in state.orders}
    for plan in plans:
        used |= {a.day for c in plan.proposal.schedule_changes for a in c.after}
        used.add(plan.proposal.target_order.due)
    later = sorted(d for d in used if d >= today)
    last = max([add_days(today, MIN_DAYS - 1), *later])
    span = (parse_day(last) - parse_day(today)).days + 1
    shown = tuple(day_range(today, min(span, HORIZON_DAYS)))
    return shown, len([d for d in later if d > shown[-1]])


def _due(state: ShopState, plans: tuple[PendingPlan, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    due: dict[str, list[str]] = {}
    for order in state.orders:
        due.setdefault(order.due, []).append(order.id)
    for plan in plans:
        order = plan.proposal.target_order
        due.setdefault(order.due, []).append(f"{order.id} (plan {plan.number})")
    return tuple((day, tuple(sorted(ids))) for day, ids in sorted(due.items()))


def build_schedule(state: ShopState, today: str, plans: tuple[PendingPlan, ...] = ()) -> ShopSchedule:
    """The whole shop's schedule from ``today``, with ``plans`` (pending, numbered) laid over it."""
    days, cut = _days(state, today, plans)
    grid = _blocks(state, plans)

    def cell(machine: Machine, day: str) -> Cell:
        # booked work first, then each pending plan's blocks in the plan's number order
        blocks = sorted(grid.get((machine.id, day), ()), key=lambda b: (b.pending, b.plan, BLOCK_ORDER[b.kind]))
        return Cell(machine.id, day, machine.minutes_on(day), not machine.works_on(day), tuple(blocks))

    return ShopSchedule(
        name=state.name,
        today=today,
        machines=tuple(m.id for m in state.machines),
        days=days,
        rows=tuple(tuple(cell(m, d) for d in days) for m in state.machines),
        due=_due(state, plans),
        plans=plans,
        days_cut=cut,
        earlier_bookings=sum(1 for o in state.orders for a in o.schedule if a.day < days[0]),
    )


def describe_shop_schedule(schedule: ShopSchedule) -> list[str]:
    """The grid read out (the page's text equivalent): per machine, each day with work, closed or due; the
    free days of a machine in one line."""
    lines = []
    for machine, row in zip(schedule.machines, schedule.rows, strict=True):
        free = [c for c in row if not c.blocks and not c.closed]
        for c in row:
            if c.blocks or c.closed:
                lines.append(f"{machine}, {day_label(c.day)}: {describe_cell(c)}.")
        if free:
            lines.append(f"{machine}: free on {', '.join(day_label(c.day) for c in free)}.")
    for day, ids in schedule.due:
        if schedule.days[0] <= day <= schedule.days[-1]:
            lines.append(f"Due {day_label(day)}: {', '.join(ids)}.")
    if schedule.days_cut:
        lines.append(f"{schedule.days_cut} later day(s) with work or a due date are past the horizon drawn.")
    if schedule.earlier_bookings:
        lines.append(f"{schedule.earlier_bookings} booking(s) before {day_label(schedule.days[0])} are not shown.")
    return lines
