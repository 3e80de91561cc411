"""An approver's guidance for a revised plan, and how the planner is told of it.

    revise --keep ORDER --overtime MACHINE:DAY:MINUTES --quantity/--due/--product --note TEXT
        -> check_guidance(shop, ...)      unknown order, machine or day, a closed day, minutes over a day:
                                          refused with a stable code before anything is written or planned
        -> planner_view(shop, guidance)   the shop copy every planner (greedy, solver, checker) sees: a kept
                                          order is pinned (it may not move: the ``may_move`` rule lets only
                                          orders of lower priority than the new one move, so a kept order is
                                          seen with the new order's priority), overtime is capacity
        -> the proposal records the guidance (``revision``) and the overtime as ``calendar_changes``, which
           apply with the plan (application.result_of), in its one write, and never without it

The facts (quantity, due day, product) become given facts beside what the e-mail said; the note is recorded
and put in a real model's prompt (the deterministic model plans without reading it).
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from ..errors import GuidanceCode, GuidanceRefusedError, PlanningError, ValidationError
from ..limits import MAX_NOTE_CHARS
from ..records import ProposalHash
from ..shop.model import MAX_MINUTES_PER_DAY, Day, Id, Machine, Order, ShopState, add_days
from ..shop.overtime import ExtraMinutes
from .greedy import HORIZON_DAYS


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Overtime(_Frozen):
    """``minutes`` more than ``machine``'s daily capacity on ``day``: a calendar change the plan makes."""

    machine: Id
    day: Day
    minutes: int = Field(ge=1, le=MAX_MINUTES_PER_DAY)

    def words(self) -> str:
        """``EMB-01 on 2026-08-15: 120 extra minutes``."""
        return f"{self.machine} on {self.day}: {self.minutes} extra minutes"


class Guidance(_Frozen):
    """What an approver asked the revised plan to honour."""

    keep: tuple[Id, ...] = ()
    overtime: tuple[Overtime, ...] = ()
    quantity: int | None = Field(default=None, ge=1, le=10_000_000)
    due: Day | None = None
    product: Id | None = None
    note: str = Field(default="", max_length=MAX_NOTE_CHARS, pattern=r"^[^\x00-\x08\x0b-\x1f\x7f]*$")

    def is_empty(self) -> bool:
        """True when it asks nothing at all."""
        return not (self.keep or self.overtime or self.facts() or self.note.strip())

    def facts(self) -> dict[str, str | int]:
        """The request's facts it gives (quantity, due, product), by name."""
        values = {"product": self.product, "quantity": self.quantity, "due": self.due}
        return {name: value for name, value in values.items() if value is not None}

    def words(self) -> list[str]:
        """Each piece of guidance as a line a person reads."""
        lines = [f"keep {order} where it is" for order in self.keep]
        lines += [f"overtime {o.words()}" for o in self.overtime]
        lines += [f"{name} {value} (given)" for name, value in self.facts().items()]
        if self.note.strip():
            lines.append(f"note: {self.note.strip()}")
        return lines


def read_guidance(**values: object) -> Guidance:
    """The guidance ``values`` give, or ``ValidationError`` saying what is not well formed."""
    try:
        return Guidance.model_validate(values)
    except PydanticValidationError as exc:
        raise ValidationError(f"the guidance is not usable: {exc.errors()[0]['msg']}") from None


def read_overtime(machine: str, day: str, minutes: int) -> Overtime:
    """One overtime, or ``ValidationError``."""
    try:
        return Overtime(machine=machine, day=day, minutes=minutes)
    except PydanticValidationError as exc:
        raise ValidationError(f"the overtime is not usable: {exc.errors()[0]['msg']}") from None


class Revision(_Frozen):
    """What makes a proposal a revised version: which version it is, the proposal it supersedes, who asked
    and what they asked."""

    version: int = Field(ge=2, le=1000)
    supersedes: ProposalHash
    given_by: str = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f\x7f]+$")
    guidance: Guidance


def _refuse(code: GuidanceCode, message: str) -> GuidanceRefusedError:
    return GuidanceRefusedError(code, message)


def _check_keep(shop: ShopState, keep: Iterable[str], target_id: str) -> None:
    for order_id in keep:
        if order_id == target_id:
            raise _refuse(GuidanceCode.KEEP_NEW_ORDER, f"{order_id} is the order being planned; it cannot be kept")
        order = shop.order(order_id)
        if order is None:
            closed = shop.closed_order(order_id)
            why = (
                f"{order_id} was {closed.status} on {closed.closed_on}{f' ({closed.reason})' if closed.reason else ''}"
                if closed is not None
                else f"the shop has no open order {order_id}"
            )
            raise _refuse(GuidanceCode.UNKNOWN_ORDER, f"--keep {order_id}: {why}; there is nothing to keep")
        if not order.schedule:
            raise _refuse(GuidanceCode.UNKNOWN_ORDER, f"--keep {order_id}: the order is not scheduled anywhere")


def _check_overtime(shop: ShopState, overtime: tuple[Overtime, ...], planning_day: str) -> None:
    last = add_days(planning_day, HORIZON_DAYS - 1)
    added: dict[tuple[str, str], int] = {}
    for extra in overtime:
        machine = shop.machine(extra.machine)
        where = f"--overtime {extra.machine}:{extra.day}:{extra.minutes}"
        if machine is None:
            raise _refuse(GuidanceCode.UNKNOWN_MACHINE, f"{where}: the shop has no machine {extra.machine}")
        if extra.day < planning_day:
            raise _refuse(
                GuidanceCode.UNKNOWN_DAY,
                f"{where}: {extra.day} has passed; this plan starts on {planning_day} (it runs to {last})",
            )
        if extra.day > last:
            raise _refuse(
                GuidanceCode.UNKNOWN_DAY, f"{where}: {extra.day} is not a day of this plan ({planning_day} to {last})"
            )
        if not machine.works_on(extra.day):
            raise _refuse(
                GuidanceCode.CLOSED_DAY,
                f"{where}: {extra.machine} does not work on {extra.day}; overtime extends a working day, it does "
                "not open a closed one",
            )
        key = (extra.machine, extra.day)
        added[key] = added.get(key, 0) + extra.minutes
        if machine.minutes_on(extra.day) + added[key] > MAX_MINUTES_PER_DAY:
            raise _refuse(
                GuidanceCode.MINUTES_OVER_DAY,
                f"{where}: {extra.machine} already runs {machine.minutes_on(extra.day)} minutes that day; a day has "
                f"{MAX_MINUTES_PER_DAY}",
            )


def check_guidance(shop: ShopState, guidance: Guidance, target_id: str, planning_day: str) -> None:
    """Refuse guidance the shop cannot honour as asked (``GuidanceRefusedError`` with a stable code): an
    unknown or unscheduled order to keep, the new order itself, an unknown machine, a day outside the plan's
    horizon, a closed day, more minutes than a day holds, or nothing asked at all. Reads only."""
    if guidance.is_empty():
        raise _refuse(GuidanceCode.NO_GUIDANCE, "say what to change: --keep, --overtime, --quantity, --due, "
                      "--product or --note")  # fmt: skip
    _check_keep(shop, guidance.keep, target_id)
    _check_overtime(shop, guidance.overtime, planning_day)


def with_calendar(shop: ShopState, overtime: Iterable[Overtime]) -> ShopState:
    """``shop`` with ``overtime`` added to its machines' calendars; ``PlanningError`` when a machine is gone or a
    day would hold more than a day has."""
    extra: dict[str, dict[str, int]] = {}
    for o in overtime:
        days = extra.setdefault(o.machine, {})
        days[o.day] = days.get(o.day, 0) + o.minutes
    if not extra:
        return shop
    missing = sorted(set(extra) - {m.id for m in shop.machines})
    if missing:
        raise PlanningError(f"calendar: machine {missing[0]} is no longer in the shop")
    machines = tuple(_with_extra(m, extra.get(m.id, {})) for m in shop.machines)
    return shop.model_copy(update={"machines": machines})


def _with_extra(machine: Machine, days: dict[str, int]) -> Machine:
    if not days:
        return machine
    merged = {x.day: x.minutes for x in machine.overtime}
    for day, minutes in days.items():
        merged[day] = merged.get(day, 0) + minutes
        if machine.minutes_per_day + merged[day] > MAX_MINUTES_PER_DAY:
            raise PlanningError(
                f"calendar: {machine.id} on {day} would run {machine.minutes_per_day + merged[day]} minutes, more "
                f"than a day has ({MAX_MINUTES_PER_DAY})"
            )
    overtime = tuple(ExtraMinutes(day=d, minutes=n) for d, n in sorted(merged.items()))
    return machine.model_copy(update={"overtime": overtime})


def planner_view(shop: ShopState, guidance: Guidance | None, target: Order) -> ShopState:
    """The shop as every planner sees it under ``guidance``: its overtime as capacity, and each kept order
    pinned (seen with ``target``'s priority, so the one ``may_move`` rule, which greedy, the solver and the
    checker all keep, lets it move no more than an order that outranks the new one). Only the planners see
    this copy: the proposal's schedules, digests and footprint come from the shop itself."""
    if guidance is None:
        return shop
    view = with_calendar(shop, guidance.overtime)
    kept = set(guidance.keep)
    pinned = [o.model_copy(update={"priority": max(o.priority, target.priority)}) for o in view.orders if o.id in kept]
    return view.with_orders(pinned) if pinned else view
