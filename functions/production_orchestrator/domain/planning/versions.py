"""What changed between two versions of a request's plan, in words: moves, purchases, overtime, the facts
planned and the on-time verdict. ``show``, ``status``, ``history`` and the approval page all read it."""

from __future__ import annotations

from ..shop.model import runs as runs_words
from .proposal import ProposalContent


def _moves(proposal: ProposalContent) -> dict[str, str]:
    target = proposal.target_order.id
    return {c.order_id: runs_words(c.after) for c in proposal.schedule_changes if c.order_id != target}


def _purchases(proposal: ProposalContent) -> dict[str, int]:
    bought: dict[str, int] = {}
    for action in proposal.procurement_actions:
        bought[action.material_id] = bought.get(action.material_id, 0) + action.quantity
    return bought


def on_time(proposal: ProposalContent) -> bool:
    """True when the plan finishes its own order by the due day (nothing of it at risk)."""
    return not any(r.order_id == proposal.target_order.id for r in proposal.at_risk)


def _move_lines(before: ProposalContent, after: ProposalContent) -> list[str]:
    old, new = _moves(before), _moves(after)
    lines = []
    for order_id in sorted(set(old) | set(new)):
        if order_id not in new:
            lines.append(f"{order_id} is no longer moved")
        elif order_id not in old:
            lines.append(f"{order_id} is now moved (to {new[order_id]})")
        elif old[order_id] != new[order_id]:
            lines.append(f"{order_id} moves to {new[order_id]} instead of {old[order_id]}")
    if runs_words(before.new_schedule()) != runs_words(after.new_schedule()):
        lines.append(f"{after.target_order.id} runs {runs_words(after.new_schedule())}")
    return lines


def _purchase_lines(before: ProposalContent, after: ProposalContent) -> list[str]:
    old, new = _purchases(before), _purchases(after)
    lines = []
    for material in sorted(set(old) | set(new)):
        was, now = old.get(material, 0), new.get(material, 0)
        if not now:
            lines.append(f"no longer buys {material} (was {was})")
        elif not was:
            lines.append(f"now buys {now} {material}")
        elif was != now:
            lines.append(f"buys {now} {material} instead of {was}")
    return lines


def _fact_lines(before: ProposalContent, after: ProposalContent) -> list[str]:
    lines = []
    for name in ("product", "quantity", "due"):
        was, now = getattr(before.target_order, name), getattr(after.target_order, name)
        if was != now:
            lines.append(f"{name} {now} instead of {was}")
    return lines


def version_changes(before: ProposalContent, after: ProposalContent) -> list[str]:
    """Each difference a person would ask about, from ``before`` to ``after``; one line saying so when none."""
    lines = _fact_lines(before, after) + _move_lines(before, after) + _purchase_lines(before, after)
    added = [o for o in after.calendar_changes if o not in before.calendar_changes]
    lines += [f"adds overtime: {o.words()}" for o in added]
    if on_time(before) != on_time(after):
        verdict = "on time" if on_time(after) else "at risk"
        cause = next((r.detail for r in after.at_risk if r.order_id == after.target_order.id), "")
        lines.append(f"{after.target_order.id} is now {verdict}" + (f": {cause}" if cause else ""))
    return lines or ["the plan itself is the same"]
