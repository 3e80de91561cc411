"""Why a plan is not simply on time, in words that name the cause: the blockers of the new order and the
orders at risk.

    material   which one, how much is short, and the first day a purchase can arrive (lead time)
    capacity   which machines on which days (how many working machine-days, how much already booked, by
               which orders), and whether the orders holding that time can move
    horizon    how much of the new order found no room in the days planned and needs a later plan

A window the new order's materials cannot reach before its due date is a material cause, never an
"overbooked" machine with no hours.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..shop.model import Order, Product, hours
from .greedy import HORIZON_DAYS, Placement
from .materials import Line, Shortage
from .proposal import AtRisk, Blocker, CapacityConflict, InventoryShortage

CANNOT_MOVE = "the orders holding that time cannot move without missing their own due dates"


def plan_blockers(target: Order, product: Product, short: list[Shortage], placement: Placement) -> tuple[Blocker, ...]:
    """What stops ``target`` by its due date: each shortage (with its arrival), then the capacity of its window."""
    blockers: list[Blocker] = [
        InventoryShortage(
            material_id=s.material, required=s.required, available=s.available, shortfall=s.shortfall, arrives=s.arrives
        )
        for s in short
    ]
    # Material that cannot be in by the due date leaves no window at all: that is the cause, not capacity.
    if placement.earliest <= target.due and placement.window_booked + placement.need > placement.window_capacity:
        blockers.append(
            CapacityConflict(
                machines=product.machines,
                first_day=placement.earliest,
                last_day=target.due,
                machine_days=placement.window_slots,
                order_minutes=placement.need,
                required_minutes=placement.window_booked + placement.need,
                available_minutes=placement.window_capacity,
                related_orders=placement.window_orders,
            )
        )
    return tuple(blockers)


def cannot_arrive(shortage: Shortage) -> str:
    """``INK (short by 500) cannot arrive before 2026-12-27``."""
    return f"{shortage.material} (short by {shortage.shortfall}) cannot arrive before {shortage.arrives}"


def _late_detail(
    target: Order, machines: tuple[str, ...], placement: Placement, short: list[Shortage], planning_day: str
) -> str:
    """Why ``target`` finishes late: the material that cannot arrive in time, or the machine-days that are full."""
    if placement.earliest > target.due:
        detail = " and ".join(cannot_arrive(s) for s in short if s.arrives > target.due)
        detail += f", after its due date {target.due}"
        start = placement.allocations[0].day
        if start > placement.earliest:
            have = "has" if len(machines) == 1 else "have"
            detail += f"; {', '.join(machines)} {have} no free time from {placement.earliest} until {start}"
        return detail
    span = f"on {target.due}" if placement.earliest == target.due else f"from {placement.earliest} to {target.due}"
    days = placement.window_slots
    late = f"{hours(placement.late_minutes)} of its {hours(placement.need)} do not fit"
    if days == 0:
        detail = f"{late}: {', '.join(machines)} {'does' if len(machines) == 1 else 'do'} not work {span}"
    else:
        detail = (
            f"{late} on {', '.join(machines)} {span} ({days} working machine-day{'' if days == 1 else 's'}, "
            f"{hours(placement.window_booked)} of {hours(placement.window_capacity)} already booked)"
        )
    waited = [s.material for s in short if s.arrives == placement.earliest > planning_day]
    if waited:
        detail += f"; it cannot start before {placement.earliest}, when {', '.join(waited)} can arrive"
    if placement.blocking:
        detail += f"; {CANNOT_MOVE}"
    return detail


@dataclass(frozen=True)
class Placed:
    """Where a plan put the new order: the order, the machines that can make it, its placement and the material
    it is short of."""

    target: Order
    machines: tuple[str, ...]
    placement: Placement
    short: list[Shortage]


def plan_at_risk(placed: Placed, lines: list[Line], orders: dict[str, Order], planning_day: str) -> tuple[AtRisk, ...]:
    """The orders a plan cannot promise: the new one when it is late (or partly placed), and any order of
    the plan that starts before a purchase it waits for can arrive; each with its cause, in id order."""
    target, machines, placement, short = placed.target, placed.machines, placed.placement, placed.short
    risks: dict[str, AtRisk] = {}
    if placement.late_minutes:
        detail = _late_detail(target, machines, placement, short, planning_day)
        if placement.unplaced_minutes:
            detail += (
                f"; {hours(placement.unplaced_minutes)} find no room in the {HORIZON_DAYS} days planned "
                f"and need a later plan"
            )
        risks[target.id] = AtRisk(
            order_id=target.id,
            due=target.due,
            finish=placement.allocations[-1].day,
            reason="material" if placement.earliest > target.due else "capacity",
            detail=detail,
            blocking_orders=placement.blocking,
            unplaced_minutes=placement.unplaced_minutes,
        )
    for line in lines:
        for order_id in line.late:
            order = orders[order_id]
            risks.setdefault(
                order_id,
                AtRisk(
                    order_id=order_id,
                    due=order.due,
                    finish=order.schedule[-1].day,
                    reason="material",
                    detail=f"{line.material} cannot arrive before {line.arrives}, it starts {order.schedule[0].day}",
                ),
            )
    return tuple(risks[k] for k in sorted(risks))
