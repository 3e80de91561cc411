"""What changed in the shop between two states (the one a plan was proposed on, and the current one)."""

from __future__ import annotations

from .shop import Order, ShopState


def _order_line(before: Order, after: Order) -> list[str]:
    lines = []
    if before.scheduled_day != after.scheduled_day:
        was, now = before.scheduled_day or "nowhere", after.scheduled_day or "nowhere"
        lines.append(f"Order {after.order_id}: scheduled {was} -> {now}.")
    for name in ("quantity", "priority", "requested_day", "machine_id", "machine_minutes", "materials"):
        if getattr(before, name) != getattr(after, name):
            lines.append(f"Order {after.order_id}: {name.replace('_', ' ')} changed.")
    return lines


def describe_changes(before: ShopState, after: ShopState) -> list[str]:
    """Each difference as a sentence: revision, orders, schedule, inventory, procurement."""
    lines: list[str] = []
    if before.revision != after.revision:
        lines.append(f"Revision {before.revision} -> {after.revision} (a plan was applied since).")
    old = {o.order_id: o for o in before.orders}
    new = {o.order_id: o for o in after.orders}
    lines += [f"Order {oid} is new." for oid in sorted(new.keys() - old.keys())]
    lines += [f"Order {oid} was removed." for oid in sorted(old.keys() - new.keys())]
    for oid in sorted(old.keys() & new.keys()):
        lines += _order_line(old[oid], new[oid])
    for material in sorted(before.inventory.keys() | after.inventory.keys()):
        was, now = before.inventory.get(material, 0), after.inventory.get(material, 0)
        if was != now:
            lines.append(f"Inventory {material}: {was} -> {now}.")
    if before.procurement != after.procurement:
        lines.append(f"Procurement tasks: {len(before.procurement)} -> {len(after.procurement)}.")
    if before.machines != after.machines:
        lines.append("Machine capacity changed.")
    return lines or ["Nothing visible changed, but the state's digest differs."]
