"""Does a plan still hold on the shop as it is now? The re-validation behind the staleness rule (DESIGN "Still
holds"); :func:`.application.judge` asks these in order, each answer a list of phrases that name the conflict.

    passed(current, plan, today)     a day the plan changes, or the last day to place one of its purchases,
                                     is before today in the shop's time zone (stale by time)
    where_found(current, plan)       every order it moves is where it found it, open (not completed or
                                     cancelled); its own order is not closed, scheduled or altered meanwhile
    rules_kept(current, after, plan) its changes, applied to the current shop, keep every planning rule: the
                                     independent checker (capacity, calendars, eligibility, priorities, whole
                                     units, minutes) and the rules of due dates and materials
    promises(current, plan)          what its approvers saw still holds: the new order's completion day and
                                     on-time verdict, each moved order's on-time status, each purchase in time

Every check reads the current shop and the plan only, never the shop the plan was made on, so a change that
only frees capacity or stock (an order completed or cancelled elsewhere, a delivery) can never fail one.
"""

from __future__ import annotations

from datetime import datetime

from ..shop.model import Allocation, ShopState, add_days, runs
from . import checker
from .guidance import with_calendar
from .materials import ready_day, shortages
from .proposal import ProcurementAction, ProposalContent


def judged_today(current: ShopState, made_at: datetime, now: datetime) -> str | None:
    """The shop's calendar day on which a plan made at ``made_at`` is judged by time at ``now``: today, once a day
    has passed since it was made; None on the day it was made (a plan made for a day already past, a reference
    scenario's or one made ``--as-of``, is judged from the next day on)."""
    today = current.today(now)
    return today if today > current.today(made_at) else None


def changed_days(proposal: ProposalContent) -> list[tuple[str, str]]:
    """Every (day, machine) whose minutes the plan changes (booked, freed or moved), in day order."""
    slots: set[tuple[str, str]] = set()
    for change in proposal.schedule_changes:
        before = {(a.day, a.machine): a.minutes for a in change.before}
        after = {(a.day, a.machine): a.minutes for a in change.after}
        slots.update(s for s in before.keys() | after.keys() if before.get(s) != after.get(s))
    return sorted(slots)


def purchase_day(current: ShopState, action: ProcurementAction) -> str:
    """The last day a purchase can be placed and still arrive by the day it is needed (the supplier's lead time
    as the shop holds it now)."""
    material = current.material(action.material_id)
    return add_days(action.needed_by, -(material.lead_time_days if material else 0))


def passed(current: ShopState, proposal: ProposalContent, today: str) -> list[str]:
    """Why the plan is stale by time on ``today`` (empty: no day of it has passed)."""
    reasons = []
    slots = changed_days(proposal)
    if slots and slots[0][0] < today:
        day, machine = slots[0]
        reasons.append(f"it changes {machine} on {day}, a day that has passed (today is {today} in {current.timezone})")
    for action in proposal.procurement_actions:
        last = purchase_day(current, action)
        if proposal.planning_day <= last < today:
            reasons.append(
                f"its purchase of {action.quantity} {action.material_id} needed by {action.needed_by} had to be "
                f"placed by {last}, a day that has passed (today is {today} in {current.timezone})"
            )
    return reasons


def _closed(current: ShopState, order_id: str) -> str | None:
    closed = current.closed_order(order_id)
    if closed is None:
        return None
    verb = "completed" if closed.status == "complete" else "cancelled"
    return f"order {order_id} was {verb} on {closed.closed_on}" + (f" ({closed.reason})" if closed.reason else "")


def where_found(current: ShopState, proposal: ProposalContent) -> list[str]:
    """Why an order the plan touches is not as the plan found it (empty: every one is)."""
    reasons = []
    target = proposal.target_order
    for change in proposal.schedule_changes:
        order = current.order(change.order_id)
        closed = _closed(current, change.order_id)
        if closed:
            reasons.append(closed)
        elif change.order_id == target.id:
            if order is not None and order.schedule:
                reasons.append(f"order {target.id} is already scheduled ({runs(order.schedule)})")
            elif order is not None and order != target.model_copy(update={"schedule": ()}):
                reasons.append(f"order {target.id} changed in the shop since the plan was made")
        elif order is None:
            reasons.append(f"order {change.order_id} is no longer in the shop")
        elif order.schedule != change.before:
            reasons.append(
                f"order {change.order_id} is no longer where the plan found it (now {runs(order.schedule)}; "
                f"the plan found {runs(change.before)})"
            )
    return reasons


def _planned(current: ShopState, proposal: ProposalContent) -> checker.Plan | None:
    """The plan as the independent checker reads it, on the current shop with the new order taken in and the
    plan's own calendar changes (overtime) made; ``PlanningError`` when those no longer fit the shop."""
    target = proposal.target_order.model_copy(update={"schedule": ()})
    state = current if current.order(target.id) is not None else current.with_order(target)
    state = with_calendar(state, proposal.calendar_changes)
    product = state.product(target.product)
    if product is None:
        return None
    earliest = ready_day(shortages(state, target, product, proposal.planning_day), proposal.planning_day)
    after: dict[str, tuple[Allocation, ...]] = {c.order_id: c.after for c in proposal.schedule_changes}
    return checker.Plan(state=state, target=target, planning_day=proposal.planning_day, earliest=earliest, after=after)


def rules_kept(current: ShopState, proposal: ProposalContent) -> list[str]:
    """Every planning rule the plan's changes break on the current shop, each naming itself (empty: all kept)."""
    plan = _planned(current, proposal)
    if plan is None:
        return [f"product {proposal.target_order.product} is no longer made by this shop"]
    return [str(v) for v in checker.violations(plan)]


def _late_then(proposal: ProposalContent) -> bool:
    target = proposal.target_order.id
    return any(r.order_id == target and (r.unplaced_minutes or r.finish > r.due) for r in proposal.at_risk)


def promises(current: ShopState, proposal: ProposalContent) -> list[str]:
    """What the approvers saw that no longer holds: the new order's on-time verdict, each purchase arriving by
    the day it is needed (moved orders' due dates and materials are :mod:`.application`'s rules)."""
    reasons = []
    plan = _planned(current, proposal)
    if plan is not None:
        late_now, late_then = checker.new_order_late(plan), _late_then(proposal)
        finish = max((a.day for a in proposal.new_schedule()), default=proposal.planning_day)
        if late_now != late_then:
            verdict = "late" if late_now else "on time"
            reasons.append(f"order {proposal.target_order.id} finishing {finish} would now be {verdict}")
    for action in proposal.procurement_actions:
        last = purchase_day(current, action)
        if last < proposal.planning_day:
            material = current.material(action.material_id)
            lead = material.lead_time_days if material else 0
            reasons.append(
                f"its purchase of {action.quantity} {action.material_id} can no longer arrive by {action.needed_by} "
                f"(lead time is now {lead} days)"
            )
    return reasons
