"""Plain words for people: the plan a human reviews and the shop at a glance."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .planning import CapacityConflict, InventoryShortage, ProposalContent
from .records import Checkpoint, parse_utc
from .shop import ShopState, hours


def shop_zone(state: ShopState | None) -> str:
    """The time zone people at the shop read times in (the shop's own once it records one; UTC until then)."""
    return str(getattr(state, "timezone", "") or "UTC")


def shop_time(timestamp: str, zone: str = "UTC") -> str:
    """``timestamp`` (ISO 8601) as the shop reads it: ``Wed 19 Aug 2026, 08:00 UTC`` in ``zone``.

    The one conversion every page and message uses; an unknown zone falls back to UTC rather than failing.
    """
    try:
        moment = parse_utc(timestamp)
    except ValueError:
        return timestamp
    try:
        local = moment.astimezone(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        local, zone = moment.astimezone(ZoneInfo("UTC")), "UTC"
    label = local.tzname() or zone
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} {label}"


def time_left(expires_at: str, now: datetime) -> str:
    """``'2 days 3 hours left'``-style wording, or ``'expired'``."""
    seconds = int((parse_utc(expires_at) - now).total_seconds())
    if seconds <= 0:
        return "expired"
    days, rest = divmod(seconds, 86400)
    hours_left, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [(days, "day"), (hours_left, "hour"), (minutes, "minute")]
    shown = [f"{value} {unit}{'s' if value != 1 else ''}" for value, unit in parts if value][:2]
    return (" ".join(shown) or "less than a minute") + " left"


def fingerprint(proposal_hash: str) -> str:
    """A short, readable form of the hash for people to compare (the full hash is what decides)."""
    return " ".join(proposal_hash[i : i + 4] for i in range(0, 16, 4))


def describe_blockers(proposal: ProposalContent) -> list[str]:
    """Each blocker as a sentence."""
    lines = []
    for blocker in proposal.evidence:
        if isinstance(blocker, InventoryShortage):
            lines.append(
                f"Not enough {blocker.material_id}: needs {blocker.required}, "
                f"{blocker.available} available, short by {blocker.shortfall}."
            )
        elif isinstance(blocker, CapacityConflict):
            lines.append(
                f"{blocker.machine_id} is overbooked on {blocker.day}: needs {hours(blocker.required_minutes)}, "
                f"has {hours(blocker.available_minutes)} (also booked: {', '.join(blocker.related_orders) or 'none'})."
            )
    return lines or ["Nothing blocks this order."]


def describe_plan(proposal: ProposalContent) -> list[str]:
    """Each change the plan makes, as a sentence."""
    lines = []
    for change in proposal.schedule_changes:
        if change.from_day is None:
            lines.append(f"Schedule {change.order_id} on {change.machine_id} for {change.to_day}.")
        else:
            lines.append(f"Move {change.order_id} on {change.machine_id} from {change.from_day} to {change.to_day}.")
    lines += [
        f"Order {a.quantity} units of {a.material_id}, needed by {a.needed_by}." for a in proposal.procurement_actions
    ]
    return lines


def render_review(checkpoint: Checkpoint, proposal: ProposalContent) -> str:
    """The plan as a person reviews it before deciding."""
    order = proposal.target_order
    out = [
        f"Approval requested for order {order.order_id} from {order.customer}",
        f"  {order.quantity} x {order.product_code}, priority {order.priority}, needed {order.requested_day}",
        "",
        "What blocks it:",
        *(f"  - {line}" for line in describe_blockers(proposal)),
        "",
        "The plan:",
        *(f"  - {line}" for line in describe_plan(proposal)),
        "",
        "Drafted messages (not sent):",
    ]
    for draft in proposal.communication_drafts:
        out += [f"  [{draft.audience}] to {draft.to}: {draft.subject}", f"      {draft.body}"]
    out += [
        "",
        f"Proposal fingerprint: {fingerprint(checkpoint.proposal_hash)}",
        f"Full proposal hash:   {checkpoint.proposal_hash}",
        f"Proposed by:          {checkpoint.provider_binding.describe()}",
        f"Decide before:        {checkpoint.expires_at}",
        f"Checkpoint:           {checkpoint.checkpoint_id}",
    ]
    return "\n".join(out)


def render_shop(state: ShopState) -> str:
    """The shop at a glance: revision, schedule, inventory, procurement."""
    out = [f"Shop ({state.scenario}) at revision {state.revision}", "", "Schedule:"]
    for day in state.days:
        for machine in state.machines:
            booked = [o for o in state.orders if o.machine_id == machine.machine_id and o.scheduled_day == day]
            used = sum(o.machine_minutes for o in booked)
            names = ", ".join(f"{o.order_id} ({hours(o.machine_minutes)})" for o in booked) or "nothing"
            out.append(f"  {day} {machine.machine_id}: {names} [{hours(used)} of {hours(machine.minutes_per_day)}]")
    waiting = [o.order_id for o in state.orders if o.scheduled_day is None]
    out.append(f"  not scheduled: {', '.join(waiting) or 'none'}")
    out += ["", "Inventory:"]
    out += [f"  {material}: {qty}" for material, qty in sorted(state.inventory.items())]
    out += ["", "Procurement requested:"]
    out += [f"  {p.quantity} {p.material_id} by {p.needed_by}" for p in state.procurement] or ["  none"]
    return "\n".join(out)
