"""Placing a new order on the shop's calendar: capacity in integer minutes, machine by machine, day by day.

    horizon: the planning day and the days after it (HORIZON_DAYS)
    window:  the days the new order may run on to make its due date (from when its materials can be there)
    1. enough free minutes in the window on machines its product allows?  place it, earliest day first
    2. else move allocations of lower-priority orders out of the window: each to a later slot its own
       product allows, never past that order's due date, never into the window; lowest priority first
    3. still short?  place what fits by the due date, the rest after it, and name the order at risk
       (with the orders that hold the window and could not move)
    4. past the horizon?  keep what fits and report the rest as unplaced (the order is at risk); only an
       order of which nothing fits is refused, naming why (no working machine-day, or every one full)

Never a closed day, a non-working weekday, a machine the product cannot use, or a machine-day over its
capacity: every slot comes from :class:`Board`, which only holds working slots and refuses overbooking.
Every choice breaks ties by id, so the plan does not depend on the order of the shop file's arrays.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import PlanningError, UnplannableError
from ..shop.model import Allocation, Order, Product, ShopState, day_range, sorted_schedule

HORIZON_DAYS = 90
Slot = tuple[str, str]  # (machine, day)


@dataclass
class Board:
    """Capacity and bookings of every working machine-day in the horizon."""

    days: list[str]
    capacity: dict[Slot, int]
    booked: dict[Slot, int] = field(default_factory=dict)

    @classmethod
    def of(cls, state: ShopState, planning_day: str, horizon: int = HORIZON_DAYS) -> Board:
        """The board of ``state`` from ``planning_day``: working slots only, booked from every schedule."""
        days = day_range(planning_day, horizon)
        capacity = {(m.id, d): m.minutes_on(d) for m in state.machines for d in days if m.works_on(d)}
        board = cls(days=days, capacity=capacity)
        for order in state.orders:
            for a in order.schedule:
                if (a.machine, a.day) in capacity:
                    board.booked[(a.machine, a.day)] = board.booked.get((a.machine, a.day), 0) + a.minutes
        return board

    def free(self, slot: Slot) -> int:
        """Free minutes of a working slot (0 for a slot that does not exist)."""
        return self.capacity.get(slot, 0) - self.booked.get(slot, 0)

    def book(self, slot: Slot, minutes: int) -> None:
        """Add (or with negative ``minutes`` remove) a booking; never beyond capacity, never a missing slot."""
        if slot not in self.capacity or not 0 <= self.booked.get(slot, 0) + minutes <= self.capacity[slot]:
            raise PlanningError(f"internal: {minutes} minutes do not fit {slot[0]} on {slot[1]}")
        self.booked[slot] = self.booked.get(slot, 0) + minutes

    def slots(self, machines: Iterable[str], first: str, last: str) -> list[tuple[str, list[str]]]:
        """Per day from ``first`` to ``last`` (within the horizon), the working machines among ``machines``."""
        ordered = sorted(machines)
        return [(d, [m for m in ordered if (m, d) in self.capacity]) for d in self.days if first <= d <= last]


def _usable(free: int, need: int, unit: int, least: int = 1) -> int:
    """What of ``free`` minutes a run of ``need`` may take: all of it, or whole units, never a part under
    ``least`` minutes and never leaving a rest under it (the shop's minimum split)."""
    if need <= free:
        return need
    take = free - free % unit
    if need - take < least:
        take = need - least
        take -= take % unit
    return take if take >= least else 0


def fill(
    board: Board, slots: list[tuple[str, list[str]]], minutes: int, unit: int, least: int = 1
) -> tuple[list[Allocation], int]:
    """Place ``minutes`` day by day (on one machine when one can take the rest, else the freest first), in
    parts of at least ``least`` minutes.

    Books what it places and returns the allocations and the minutes left over.
    """
    placed: list[Allocation] = []
    left = minutes
    for day, machines in slots:
        while left > 0 and machines:
            whole = [m for m in machines if board.free((m, day)) >= left]
            # max() keeps the first of equals, and machines come sorted by id: ties go to the lowest id.
            chosen = (
                whole[0] if whole else max(machines, key=lambda m: _usable(board.free((m, day)), left, unit, least))
            )
            take = _usable(board.free((chosen, day)), left, unit, least)
            if take <= 0:
                break
            board.book((chosen, day), take)
            placed.append(Allocation(machine=chosen, day=day, minutes=take))
            left -= take
        if left == 0:
            break
    return placed, left


def merge(allocations: Iterable[Allocation]) -> tuple[Allocation, ...]:
    """One allocation per machine and day (minutes added), in canonical order."""
    total: dict[Slot, int] = {}
    for a in allocations:
        total[(a.machine, a.day)] = total.get((a.machine, a.day), 0) + a.minutes
    return sorted_schedule(Allocation(machine=m, day=d, minutes=n) for (m, d), n in total.items())


@dataclass(frozen=True)
class Placement:
    """Where the new order goes, which other orders move, and what could not be done by the due date."""

    allocations: tuple[Allocation, ...]
    need: int
    earliest: str
    moved: dict[str, tuple[Allocation, ...]]
    late_minutes: int
    unplaced_minutes: int
    blocking: tuple[str, ...]
    window_booked: int
    window_capacity: int
    window_slots: int
    window_orders: tuple[str, ...]


@dataclass(frozen=True)
class Placing:
    """One order to place: the shop, the new order and its product, planned from ``planning_day`` and starting
    no earlier than ``earliest`` (the day its material can be there)."""

    state: ShopState
    target: Order
    product: Product
    planning_day: str
    earliest: str


@dataclass
class _Window:
    slots: list[tuple[str, list[str]]]
    members: set[Slot]
    unit: int
    need: int
    least: int

    def usable(self, board: Board) -> int:
        return sum(_usable(board.free(s), self.need, self.unit, self.least) for s in self.members)


def _movable(order: Order, planning_day: str) -> bool:
    return bool(order.schedule) and order.schedule[0].day >= planning_day


def _relocate(
    board: Board, order: Order, product: Product, alloc: Allocation, window: _Window, least: int
) -> list[Allocation] | None:
    """A new home for ``alloc`` after its day, outside the window, by the order's due date, in parts of at
    least ``least`` minutes; None if none (also for an allocation already under ``least``: it stays)."""
    if alloc.minutes < least:
        return None
    targets = [
        (day, [m for m in machines if (m, day) not in window.members and (m, day) != (alloc.machine, alloc.day)])
        for day, machines in board.slots(product.machines, alloc.day, order.due)
    ]
    unit = product.minutes_per_unit
    room = sum(_usable(board.free((m, d)), alloc.minutes, unit, least) for d, ms in targets for m in ms)
    if room < alloc.minutes:
        return None
    booked = dict(board.booked)
    placed, left = fill(board, targets, alloc.minutes, unit, least)
    if left:  # whole units did not add up after all: leave everything as it was
        board.booked = booked
        return None
    return placed


def _make_room(
    state: ShopState, board: Board, target: Order, window: _Window, planning_day: str
) -> tuple[dict[str, tuple[Allocation, ...]], set[str]]:
    """Move lower-priority allocations out of the window until the target fits; returns moves and blockers."""
    products = {p.code: p for p in state.products}
    candidates = sorted(
        (
            (o.priority, o.id, a.day, a.machine, o, a)
            for o in state.orders
            if o.id != target.id
            for a in o.schedule
            if (a.machine, a.day) in window.members
        ),
        key=lambda c: c[:4],
    )
    schedules: dict[str, tuple[Allocation, ...]] = {}
    blockers: set[str] = set()
    deficit = window.need - window.usable(board)
    for priority, order_id, _, _, order, alloc in candidates:
        if deficit <= 0:
            break
        product = products.get(order.product)
        if priority >= target.priority or product is None or not _movable(order, planning_day):
            blockers.add(order_id)
            continue
        slot = (alloc.machine, alloc.day)
        before = _usable(board.free(slot), window.need, window.unit, window.least)
        new_home = _relocate(board, order, product, alloc, window, state.min_part(order.scheduled_minutes))
        if new_home is None:
            blockers.add(order_id)
            continue
        board.book(slot, -alloc.minutes)
        current = schedules.get(order_id, order.schedule)
        schedules[order_id] = merge([a for a in current if a != alloc] + new_home)
        deficit -= _usable(board.free(slot), window.need, window.unit, window.least) - before
    return schedules, blockers


def place(state: ShopState, target: Order, product: Product, planning_day: str, earliest: str) -> Placement:
    """Place ``target`` (unscheduled) from ``earliest`` on; move lower-priority work when that meets its date."""
    board = Board.of(state, planning_day)
    need = target.quantity * product.minutes_per_unit
    slots = board.slots(product.machines, earliest, target.due)
    least = state.min_part(need)
    members = {(m, d) for d, ms in slots for m in ms}
    window = _Window(slots=slots, members=members, unit=product.minutes_per_unit, need=need, least=least)
    booked = sum(board.booked.get(s, 0) for s in window.members)
    capacity = sum(board.capacity[s] for s in window.members)
    in_window = tuple(sorted({o.id for o in state.orders for a in o.schedule if (a.machine, a.day) in window.members}))
    moved: dict[str, tuple[Allocation, ...]] = {}
    blockers: set[str] = set()
    if window.usable(board) < need:
        moved, blockers = _make_room(state, board, target, window, planning_day)
    placed, left = fill(board, slots, need, product.minutes_per_unit, least)
    late = left
    if left:
        after_due = board.slots(product.machines, max(earliest, _next(target.due)), board.days[-1])
        more, left = fill(board, after_due, left, product.minutes_per_unit, least)
        placed += more
    if not placed:
        raise UnplannableError(_nothing_fits(board, target, product, earliest, least))
    return Placement(
        allocations=merge(placed),
        need=need,
        earliest=earliest,
        moved=moved,
        late_minutes=late,
        unplaced_minutes=left,
        blocking=tuple(sorted(blockers - set(moved))) if late else (),
        window_booked=booked,
        window_capacity=capacity,
        window_slots=len(window.members),
        window_orders=in_window,
    )


def _nothing_fits(board: Board, target: Order, product: Product, earliest: str, least: int) -> str:
    """Why ``target`` fits nowhere in the horizon from ``earliest``: no working day, no day with a unit's time free,
    or no way to run it in parts of at least ``least`` minutes (the shop's ``min_split_minutes``)."""
    machines = ", ".join(product.machines)
    if earliest > board.days[-1]:
        return f"{target.id} cannot start before {earliest}, after the {HORIZON_DAYS} days planned from {board.days[0]}"
    working = [s for _, ms in board.slots(product.machines, earliest, board.days[-1]) for s in ms]
    if not working:
        have = "has" if len(product.machines) == 1 else "have"
        return f"{target.id} cannot be made: {machines} {have} no working day from {earliest} to {board.days[-1]}"
    open_slots = [(m, d) for d, ms in board.slots(product.machines, earliest, board.days[-1]) for m in ms]
    if max(board.free(slot) for slot in open_slots) >= product.minutes_per_unit:
        return (
            f"{target.id} cannot be made: its {target.quantity * product.minutes_per_unit} minutes do not fit any "
            f"working day of {machines} whole, and no split of them into parts of at least {least} minutes "
            f"(min_split_minutes) in whole units of {product.minutes_per_unit} fits the free time from {earliest} "
            f"to {board.days[-1]}"
        )
    return (
        f"{target.id} cannot be made: every working day of {machines} from {earliest} to {board.days[-1]} is "
        f"fully booked (none has {product.minutes_per_unit} free minutes, the time of one unit)"
    )


def _next(day: str) -> str:
    return day_range(day, 2)[1]
