"""Where moved work waits: equal plans, the earlier days.

After the solver's stages (lateness, moved minutes, orders moved), each part of moved work that went to a
machine-day its order did not hold before goes, whole, to the earliest earlier machine-day where the rules
let it go and it fits: the plan's lateness, moved minutes and orders moved stay what they were.
"""

from __future__ import annotations

from ..shop.model import Allocation, ShopState, sorted_schedule
from . import rules


def earliest_homes(
    state: ShopState, planning_day: str, target_id: str, plan: dict[str, tuple[Allocation, ...]]
) -> dict[str, tuple[Allocation, ...]]:
    """``plan`` with each moved part that sits on a machine-day its order did not hold before moved, whole, to
    the earliest earlier machine-day where the rules let it go and it fits (ties by machine id). Lateness,
    moved minutes and orders moved stay what they were; only where moved work waits changes."""
    others = [o for o in state.orders if o.id not in plan]
    planned = [o.model_copy(update={"schedule": s}) for o_id, s in plan.items() if (o := state.order(o_id))]
    booked = rules.bookings([*others, *planned])
    caps = rules.capacities(state, planning_day)
    ordered = sorted(caps)
    shifted = dict(plan)
    for order_id in sorted(plan):
        order = state.order(order_id)
        product = state.product(order.product) if order is not None else None
        if order is None or product is None or order_id == target_id:
            continue
        held = rules.by_slot(order.schedule)
        now = rules.by_slot(shifted[order_id])
        for slot in sorted(now):
            minutes = now[slot]
            if slot in held:
                continue
            for home in ordered:
                if home[0] >= slot[0]:
                    break
                if (
                    home in held
                    or booked.get(home, 0) + minutes > caps[home]
                    or not rules.slot_for_move(state, order, product, home, planning_day)
                ):
                    continue
                booked[home] = booked.get(home, 0) + minutes
                booked[slot] -= minutes
                now[home] = now.get(home, 0) + minutes
                del now[slot]
                break
        shifted[order_id] = sorted_schedule(Allocation(machine=m, day=d, minutes=n) for (d, m), n in now.items())
    return shifted
