"""The schedule a plan changes, before and after, as a grid people look at: machines as rows, days as columns.

    base shop (the state the plan was proposed on)  +  the proposal's schedule changes
        -> before: every booking on the machines the plan touches, moving work marked
        -> after:  the new order, moved work (and where it came from), the slot it left, kept work

Pure data; the approval page draws it as SVG and reads the same rows out as text, so what is drawn and
what a screen reader hears are one thing. Days run from the planning day (and the day after) through every
day the plan touches, closed days between them included, at most ``MAX_DAYS`` of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from ..shop.model import Allocation, ShopState, add_days, hours, parse_day
from .proposal import ProposalContent

MAX_DAYS = 14
FALLBACK_MINUTES_PER_DAY = 480  # only when the proposal's base state is not on record

BlockKind = Literal["new", "moved", "moving", "left", "kept"]
# Top to bottom in a cell: work that stays, work moved in, the new order, then the slots moved work left.
BLOCK_ORDER = {"kept": 0, "moving": 1, "moved": 2, "new": 3, "left": 4}


@dataclass(frozen=True)
class Block:
    """One order's booking in one cell. ``kind``: ``new`` (the order being planned), ``moved`` (moved here;
    ``other`` says from where), ``moving`` (before: it moves away), ``left`` (after: the slot a moved order
    left; ``other`` says where it went), ``kept``."""

    order_id: str
    minutes: int
    kind: BlockKind
    at_risk: bool = False
    other: str = ""
    other_first: Allocation | None = None  # the first slot of ``other`` (for a short label)
    plan: int = 0  # on the shop's schedule: the pending plan (numbered from 1) this block belongs to; 0: booked

    @property
    def pending(self) -> bool:
        """Work a pending plan would book (on the shop's schedule): not in the shop yet."""
        return bool(self.plan) and self.kind in ("new", "moved")


@dataclass(frozen=True)
class Cell:
    """One machine on one day: its capacity, whether it is closed, and its bookings."""

    machine: str
    day: str
    capacity: int
    closed: bool
    blocks: tuple[Block, ...]

    @property
    def booked(self) -> int:
        """Minutes booked (a slot left behind, or a pending plan's work, books nothing)."""
        return sum(b.minutes for b in self.blocks if b.kind != "left" and not b.pending)


@dataclass(frozen=True)
class Timeline:
    """The machines the plan touches, the days shown, and the cells before and after."""

    machines: tuple[str, ...]
    days: tuple[str, ...]
    before: tuple[tuple[Cell, ...], ...]  # one row per machine, one cell per day
    after: tuple[tuple[Cell, ...], ...]
    other_machines: int = 0  # machines the plan does not touch (not drawn)
    days_cut: int = 0  # days beyond MAX_DAYS (not drawn)


def day_label(day: str) -> str:
    """``2026-08-12`` -> ``Wed 12 Aug``."""
    parsed: date = parse_day(day)
    return f"{parsed:%a} {parsed.day} {parsed:%b}"


def places(allocations: tuple[Allocation, ...]) -> str:
    """Where allocations run, short: ``EMB-01 Wed 12 Aug, EMB-02 Thu 13 Aug`` (or ``unscheduled``)."""
    return ", ".join(f"{a.machine} {day_label(a.day)}" for a in allocations) or "unscheduled"


Grid = dict[tuple[str, str], list[Block]]  # (machine, day) -> bookings


def _put(grid: Grid, a: Allocation, block: Block) -> None:
    grid.setdefault((a.machine, a.day), []).append(block)


def _place(base: ShopState | None, proposal: ProposalContent) -> tuple[Grid, Grid]:
    """Every booking before and after the plan on the machines' days, each marked with its part in the plan."""
    target = proposal.target_order.id
    changes = {c.order_id: c for c in proposal.schedule_changes}
    risky = {r.order_id for r in proposal.at_risk}
    before: Grid = {}
    after: Grid = {}
    for order in base.orders if base is not None else ():
        for a in order.schedule if order.id not in changes else ():
            block = Block(order.id, a.minutes, "kept", order.id in risky)
            _put(before, a, block)
            _put(after, a, block)
    for order_id, change in sorted(changes.items()):
        at_risk = order_id in risky
        stays = {(a.machine, a.day) for a in change.after}
        went = change.after[0] if change.after else None
        came = change.before[0] if change.before else None
        for a in change.before:
            _put(before, a, Block(order_id, a.minutes, "moving" if order_id != target else "kept", at_risk))
            if (a.machine, a.day) not in stays:
                _put(after, a, Block(order_id, a.minutes, "left", at_risk, places(change.after), went))
        for a in change.after:
            moved = Block(order_id, a.minutes, "moved", at_risk, places(change.before), came)
            _put(after, a, Block(order_id, a.minutes, "new", at_risk) if order_id == target else moved)
    return before, after


def build_timeline(base: ShopState | None, proposal: ProposalContent) -> Timeline:
    """The before/after grid of ``proposal`` on ``base`` (None: only what the proposal itself records)."""
    touched = sorted({a.machine for c in proposal.schedule_changes for a in (*c.before, *c.after)})
    machines = {m.id: m for m in base.machines} if base is not None else {}
    days = sorted(
        {proposal.planning_day, add_days(proposal.planning_day, 1)}
        | {a.day for c in proposal.schedule_changes for a in (*c.before, *c.after)}
    )
    span = (parse_day(days[-1]) - parse_day(days[0])).days + 1
    shown = tuple(add_days(days[0], i) for i in range(min(span, MAX_DAYS)))
    before, after = _place(base, proposal)

    extra = {(o.machine, o.day): o.minutes for o in proposal.calendar_changes}

    def row(grid: Grid, machine_id: str, overtime: bool = False) -> tuple[Cell, ...]:
        machine = machines.get(machine_id)

        def capacity(day: str) -> int:
            if machine is None:
                return FALLBACK_MINUTES_PER_DAY
            return machine.minutes_on(day) + (extra.get((machine_id, day), 0) if overtime else 0)

        return tuple(
            Cell(
                machine_id,
                day,
                capacity(day),
                machine is not None and not machine.works_on(day),
                tuple(sorted(grid.get((machine_id, day), ()), key=lambda b: (BLOCK_ORDER[b.kind], b.order_id))),
            )
            for day in shown
        )

    return Timeline(
        machines=tuple(touched),
        days=shown,
        before=tuple(row(before, m) for m in touched),
        after=tuple(row(after, m, overtime=True) for m in touched),
        other_machines=len(set(machines) - set(touched)),
        days_cut=span - len(shown),
    )


def _block_words(block: Block) -> str:
    words = f"{block.order_id} {hours(block.minutes)}"
    extra = {
        "new": " (the new order)",
        "moved": f" (moved here from {block.other})",
        "moving": " (moves away in this plan)",
        "left": f" (moved away to {block.other}; free now)",
        "kept": "",
    }[block.kind]
    if block.plan:  # the shop's schedule: what a pending plan would do, not booked yet
        extra = {
            "new": f" (plan {block.plan}, pending: the new order)",
            "moved": f" (plan {block.plan}, pending: moved here from {block.other})",
            "moving": f" (booked; plan {block.plan}, pending, moves it away)",
        }.get(block.kind, f" (plan {block.plan}, pending)")
    return words + extra + (", at risk" if block.at_risk else "")


def describe_cell(cell: Cell) -> str:
    """One cell in words: ``closed``, ``free``, or its bookings and how full it is."""
    if cell.closed:
        return "closed"
    if not cell.blocks:
        return f"free ({hours(cell.capacity)} open)"
    used = f"{hours(cell.booked)} of {hours(cell.capacity)} booked"
    return "; ".join(_block_words(b) for b in cell.blocks) + f" ({used})"


def describe_timeline(timeline: Timeline) -> list[str]:
    """The grid read out: one line per machine and day, before and after (the page's text equivalent)."""
    lines = []
    for machine, before_row, after_row in zip(timeline.machines, timeline.before, timeline.after, strict=True):
        for before, after in zip(before_row, after_row, strict=True):
            lines.append(
                f"{machine}, {day_label(before.day)}: before, {describe_cell(before)}; after, {describe_cell(after)}."
            )
    if timeline.other_machines:
        lines.append(f"{timeline.other_machines} other machine(s): the plan does not change them.")
    if timeline.days_cut:
        lines.append(f"{timeline.days_cut} later day(s) not drawn.")
    return lines
