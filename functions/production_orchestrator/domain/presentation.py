"""Plain words for people: the plan a human reviews and the shop at a glance."""

from __future__ import annotations

from .planning import CapacityConflict, InventoryShortage, ProposalContent
from .records import Checkpoint
from .shop import ShopState, hours


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


# What the approver needs to know about the drafts: they are sent because of the approval, and only then.
MESSAGES_ON_APPROVAL = (
    "Sent when you approve: queued as the plan applies, then delivered once. Rejecting sends nothing."
)


def describe_messages(proposal: ProposalContent) -> list[str]:
    """Each drafted message as ``To the <kind> (<address>): <subject>``."""
    return [f"To the {d.audience} ({d.to}): {d.subject}" for d in proposal.communication_drafts]


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
        "Messages this plan sends:",
        f"  {MESSAGES_ON_APPROVAL}",
    ]
    for line, draft in zip(describe_messages(proposal), proposal.communication_drafts, strict=True):
        out += [f"  - {line}", f"      {draft.body}"]
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
