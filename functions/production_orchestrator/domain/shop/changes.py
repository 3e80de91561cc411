"""What changed in the shop between two states (the one a plan was proposed on, and the current one)."""

from __future__ import annotations

from .model import Order, ShopState, runs


def _order_line(before: Order, after: Order) -> list[str]:
    lines = []
    if before.schedule != after.schedule:
        lines.append(f"Order {after.id}: scheduled {runs(before.schedule)} -> {runs(after.schedule)}.")
    for name in ("quantity", "priority", "due", "product", "customer"):
        if getattr(before, name) != getattr(after, name):
            lines.append(f"Order {after.id}: {name} {getattr(before, name)} -> {getattr(after, name)}.")
    return lines


def _catalog_lines(before: ShopState, after: ShopState) -> list[str]:
    lines = []
    old = {m.id: m for m in before.materials}
    new = {m.id: m for m in after.materials}
    for material in sorted(old.keys() | new.keys()):
        was, now = old.get(material), new.get(material)
        if was is None or now is None:
            lines.append(f"Material {material} was {'added' if was is None else 'removed'}.")
            continue
        if was.on_hand != now.on_hand:
            lines.append(f"Inventory {material}: {was.on_hand} -> {now.on_hand}.")
        if was.model_copy(update={"on_hand": 0}) != now.model_copy(update={"on_hand": 0}):
            lines.append(f"Material {material}: supplier, lead time or quantity on order changed.")
    if before.machines != after.machines:
        lines.append("Machines changed (capacity, calendar or the machines themselves).")
    if before.products != after.products:
        lines.append("Products changed.")
    return lines


def describe_changes(before: ShopState, after: ShopState) -> list[str]:
    """Each difference as a sentence: revision, orders, schedule, inventory, procurement, catalog."""
    lines: list[str] = []
    if before.revision != after.revision:
        lines.append(f"Revision {before.revision} -> {after.revision} (a plan was applied since).")
    old = {o.id: o for o in before.orders}
    new = {o.id: o for o in after.orders}
    lines += [f"Order {oid} is new." for oid in sorted(new.keys() - old.keys())]
    lines += [f"Order {oid} was removed." for oid in sorted(old.keys() - new.keys())]
    for oid in sorted(old.keys() & new.keys()):
        lines += _order_line(old[oid], new[oid])
    lines += _catalog_lines(before, after)
    if before.procurement != after.procurement:
        lines.append(f"Procurement tasks: {len(before.procurement)} -> {len(after.procurement)}.")
    if (before.name, before.timezone, before.operator_email) != (after.name, after.timezone, after.operator_email):
        lines.append("The shop's name, time zone or operator address changed.")
    return lines or ["Nothing visible changed, but the state's digest differs."]
