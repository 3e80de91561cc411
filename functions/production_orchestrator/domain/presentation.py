"""Plain words for people: the plan a human reviews (e-mail, CLI) and the shop at a glance.

The approval page (approval_web/pages.py) renders the same pieces as HTML, so the page, the e-mail and
``show`` never disagree about what a plan does.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .planning.materials import ShopShortage
from .planning.proposal import CapacityConflict, InventoryShortage, ProposalContent
from .planning.timeline import day_label, places
from .records import Checkpoint, parse_utc
from .shop.model import ShopState, hours, parse_day, runs
from .terminal import terminal_safe as terminal_safe  # re-exported: every printer escapes the same way


def shop_zone(state: ShopState | None) -> str:
    """The time zone people at the shop read times in (the shop's own once it records one; UTC until then)."""
    return str(getattr(state, "timezone", "") or "UTC")


def shop_time(timestamp: str, zone: str = "UTC") -> str:
    """``timestamp`` (ISO 8601) as the shop reads it in ``zone``, with the offset from UTC:
    ``Wed 19 Aug 2026, 10:00 CEST (+02:00)`` (``... 08:00 UTC`` in UTC).

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
    offset = local.strftime("%z")
    shown = "" if offset == "+0000" and label == "UTC" else f" ({offset[:3]}:{offset[3:]})"
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} {label}{shown}"


def shop_stamp(timestamp: str, zone: str = "UTC") -> str:
    """``timestamp`` as one token in the shop's zone with its offset, for lines people read and tools split:
    ``2026-08-19T10:00:00+02:00`` (the same instant as ``2026-08-19T08:00:00Z``)."""
    try:
        moment = parse_utc(timestamp)
    except ValueError:
        return timestamp
    try:
        return moment.astimezone(ZoneInfo(zone)).isoformat(timespec="seconds")
    except (ZoneInfoNotFoundError, ValueError):
        return moment.astimezone(ZoneInfo("UTC")).isoformat(timespec="seconds")


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


def days_between(first: str, second: str) -> int:
    """Whole days from ``first`` to ``second`` (ISO dates); negative when ``second`` is earlier."""
    return (parse_day(second) - parse_day(first)).days


def _days(count: int) -> str:
    return f"{count} day{'s' if count != 1 else ''}"


def timing(proposal: ProposalContent) -> tuple[bool, str]:
    """``(on_time, sentence)`` for the order being planned: when it finishes against its due date."""
    order = proposal.target_order
    risk = next((r for r in proposal.at_risk if r.order_id == order.id), None)
    schedule = proposal.new_schedule()
    if not schedule:
        return False, f"At risk: not scheduled at all; due {day_label(order.due)}"
    finish = risk.finish if risk is not None else max(a.day for a in schedule)
    margin = days_between(finish, order.due)
    if risk is None and margin >= 0:
        ahead = "on its due day" if margin == 0 else f"{_days(margin)} before it is due"
        return True, f"On time: finishes {day_label(finish)}, {ahead}"
    if risk is not None and risk.unplaced_minutes:
        return False, (
            f"At risk: only partly planned, up to {day_label(finish)}; {hours(risk.unplaced_minutes)} not placed"
        )
    late = f"{_days(-margin)} after it is due" if margin < 0 else risk.detail if risk is not None else ""
    return False, f"At risk: finishes {day_label(finish)}, {late}"


def others_at_risk(proposal: ProposalContent) -> list[str]:
    """Each other order the plan leaves late, with by how much."""
    lines = []
    for r in proposal.at_risk:
        if r.order_id == proposal.target_order.id:
            continue
        late = days_between(r.due, r.finish)
        lines.append(
            f"{r.order_id} at risk: finishes {day_label(r.finish)}, "
            + (f"{_days(late)} after it is due" if late > 0 else r.detail)
        )
    return lines


def describe_moves(proposal: ProposalContent) -> list[str]:
    """Each other order the plan moves, short: ``STANDARD-100: EMB-01 Wed 12 Aug -> EMB-01 Thu 13 Aug``."""
    return [
        f"{c.order_id}: {places(c.before)} \u2192 {places(c.after)}"
        for c in proposal.schedule_changes
        if c.order_id != proposal.target_order.id
    ]


def describe_buys(proposal: ProposalContent) -> list[str]:
    """Each purchase, short: ``600 THREAD-RED-40 (orders@supplier.example)``."""
    return [f"{a.quantity} {a.material_id} ({a.supplier_email})" for a in proposal.procurement_actions]


def _span(first: str, last: str) -> str:
    return f"on {first}" if first == last else f"from {first} to {last}"


def _lead(planning_day: str, arrives: str) -> str:
    days = (parse_day(arrives) - parse_day(planning_day)).days
    return "no lead time" if days <= 0 else f"{days} day{'s' if days != 1 else ''} lead time"


def describe_blockers(proposal: ProposalContent) -> list[str]:
    """Each blocker as a sentence naming its cause: which material and when more can arrive, or which
    machines on which days and how their time is taken."""
    lines = []
    for blocker in proposal.evidence:
        if isinstance(blocker, InventoryShortage):
            lines.append(
                f"Not enough {blocker.material_id}: needs {blocker.required}, {blocker.available} available, "
                f"short by {blocker.shortfall}; more can arrive on {blocker.arrives} at the earliest "
                f"({_lead(proposal.planning_day, blocker.arrives)})."
            )
        elif isinstance(blocker, CapacityConflict):
            machines = ", ".join(blocker.machines)
            span = _span(blocker.first_day, blocker.last_day)
            booked = blocker.required_minutes - blocker.order_minutes
            if blocker.machine_days == 0:
                lines.append(
                    f"{machines} {'does' if len(blocker.machines) == 1 else 'do'} not work {span}: "
                    f"no machine time for its {hours(blocker.order_minutes)} by the due date."
                )
                continue
            others = (
                f"{hours(booked)} already booked by {', '.join(blocker.related_orders)}"
                if blocker.related_orders
                else "nothing else booked"
            )
            count = f"{blocker.machine_days} working machine-day{'s' if blocker.machine_days != 1 else ''}"
            lines.append(
                f"Not enough time on {machines} {span} ({count}): {hours(blocker.available_minutes)} there, "
                f"{hours(blocker.required_minutes)} needed ({hours(blocker.order_minutes)} for this order, {others})."
            )
    return lines or ["Nothing blocks this order."]


def describe_existing_shortages(found: list[ShopShortage]) -> list[str]:
    """Each shortage the shop already has (``materials.existing_shortages``) as a sentence: how much, for
    which orders, from when, and when a purchase can arrive. These are the shop's, not any plan's."""
    lines = []
    for s in found:
        late = f"; {', '.join(s.late)} start{'s' if len(s.late) == 1 else ''} before then" if s.late else ""
        lines.append(
            f"{s.material}: short by {s.quantity} for {', '.join(s.orders)} (first needed {s.needed_by}); "
            f"a purchase from {s.supplier_email} can arrive on {s.arrives} at the earliest{late}."
        )
    return lines


def describe_schedule(proposal: ProposalContent) -> list[str]:
    """Where the new order runs and each move of another order, as sentences."""
    target = proposal.target_order.id
    lines = [f"Schedule {target} on {runs(proposal.new_schedule())}."]
    lines += [
        f"Move {c.order_id} from {runs(c.before)} to {runs(c.after)}."
        for c in proposal.schedule_changes
        if c.order_id != target
    ]
    return lines


def describe_procurement(proposal: ProposalContent) -> list[str]:
    """Each procurement line as a sentence."""
    return [
        f"Order {a.quantity} units of {a.material_id} from {a.supplier_email}, needed by {a.needed_by}."
        for a in proposal.procurement_actions
    ]


def describe_at_risk(proposal: ProposalContent) -> list[str]:
    """Each order the plan cannot promise on time, as a sentence."""
    return [
        (
            f"{r.order_id} (due {r.due}) is only partly planned, up to {r.finish}: {r.detail}"
            if r.unplaced_minutes
            else f"{r.order_id} (due {r.due}) finishes {r.finish}: {r.detail}"
        )
        + (f"; held by {', '.join(r.blocking_orders)}" if r.blocking_orders else "")
        + "."
        for r in proposal.at_risk
    ]


def describe_plan(proposal: ProposalContent) -> list[str]:
    """Each change the plan makes, as a sentence (schedule, then procurement)."""
    return describe_schedule(proposal) + describe_procurement(proposal)


def allocation_rows(proposal: ProposalContent) -> list[tuple[str, str, str, int, str]]:
    """``(machine, day, order, minutes, change)`` for every allocation the plan adds or removes, by machine
    and day: ``new`` for the new order, ``moved in`` / ``moved out`` for the others."""
    target = proposal.target_order.id
    rows = []
    for change in proposal.schedule_changes:
        before = {(a.machine, a.day): a.minutes for a in change.before}
        after = {(a.machine, a.day): a.minutes for a in change.after}
        for slot in before.keys() - after.keys():
            rows.append((slot[0], slot[1], change.order_id, before[slot], "moved out"))
        for slot, minutes in after.items():
            if before.get(slot) != minutes:
                rows.append(
                    (slot[0], slot[1], change.order_id, minutes, "new" if change.order_id == target else "moved in")
                )
    return sorted(rows)


def describe_allocations(proposal: ProposalContent) -> list[str]:
    """Per machine and day the plan touches, what it adds and removes there."""
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    for machine, day, order, minutes, change in allocation_rows(proposal):
        grouped[(machine, day)].append(f"{order} {hours(minutes)} {change}")
    return [f"{machine} on {day}: {', '.join(items)}." for (machine, day), items in sorted(grouped.items())]


# What the approver needs to know about the drafts: they are sent because of the approval, and only then.
MESSAGES_ON_APPROVAL = (
    "Sent when you approve: queued as the plan applies, then delivered once. Rejecting sends nothing."
)


def describe_given(proposal: ProposalContent) -> list[str]:
    """Each fact the person who started the run gave: ``'Quantity 60: given by dana, not from the e-mail (the
    e-mail said 400)'``; nothing when every fact came from the e-mail."""
    given = proposal.given
    if given is None:
        return []
    said: dict[str, str] = {str(name): value for name, value in given.email_said.items()}
    return [
        f"{name.capitalize()} {value}: given by {given.given_by}, not from the e-mail"
        + (f" (the e-mail said {said[name]})" if name in said else "")
        for name, value in given.facts().items()
    ]


LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "nl": "Dutch"}


def describe_messages(proposal: ProposalContent) -> list[str]:
    """Each drafted message as ``To the <kind> (<address>): <subject>``, then ``(written in German)`` when it
    is not in English (the customer's message is written in the language they wrote in)."""
    return [
        f"To the {d.audience} ({d.to}): {d.subject}"
        + (f" (written in {LANGUAGE_NAMES[d.language]})" if d.language not in (None, "en") else "")
        for d in proposal.communication_drafts
    ]


def describe_revision(proposal: ProposalContent) -> list[str]:
    """For a revised version: which version, who asked for what, and the calendar changes it makes (each
    applied only with the plan); nothing for a request's first plan."""
    lines = []
    revision = proposal.revision
    if revision is not None:
        replaced = fingerprint(revision.supersedes)
        lines.append(f"Version {revision.version}, revised by {revision.given_by} (supersedes {replaced})")
        lines += [f"  asked: {line}" for line in revision.guidance.words()]
    lines += [f"Calendar change (applied only with this plan): overtime {o.words()}" for o in proposal.calendar_changes]
    return lines


def describe_held(proposal: ProposalContent) -> list[str]:
    """What other pending plans held when the plan was made (it was planned around them), a line each."""
    return [h.words() for h in proposal.held_capacity] + [h.words() for h in proposal.held_stock]


def render_review(checkpoint: Checkpoint, proposal: ProposalContent, zone: str = "UTC") -> str:
    """The plan as a person reviews it before deciding (times in ``zone``, the shop's)."""
    order = proposal.target_order
    out = [
        f"Approval requested for order {order.id} from {order.customer}",
        f"  {order.quantity} x {order.product}, priority {order.priority}, due {order.due}; "
        f"planned from {proposal.planning_day}",
        *(f"  {line}" for line in describe_given(proposal)),
        *(f"  {line}" for line in describe_revision(proposal)),
        "",
        "What blocks it:",
        *(f"  - {line}" for line in describe_blockers(proposal)),
        "",
        "The plan:",
        *(f"  - {line}" for line in describe_plan(proposal)),
        "",
        "Allocations by machine and day:",
        *(f"  - {line}" for line in describe_allocations(proposal)),
        "",
        "At risk:",
        *(f"  - {line}" for line in describe_at_risk(proposal) or ["nothing: every order keeps its due date"]),
        *(["", "Planned around other pending plans (what they book is held):"] if describe_held(proposal) else []),
        *(f"  - {line}" for line in describe_held(proposal)),
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
        f"Decide before:        {shop_time(checkpoint.expires_at, zone)}",
        f"Checkpoint:           {checkpoint.checkpoint_id}",
    ]
    return "\n".join(out)


def render_shop(state: ShopState) -> str:
    """The shop at a glance: revision, schedule by day and machine, materials, procurement."""
    out = [f"Shop {state.name} ({state.timezone}) at revision {state.revision}", "", "Schedule:"]
    booked: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for order in state.orders:
        for a in order.schedule:
            booked[(a.day, a.machine)].append((order.id, a.minutes))
    machines = {m.id: m for m in state.machines}
    for (day, machine), entries in sorted(booked.items()):
        names = ", ".join(f"{oid} ({hours(n)})" for oid, n in entries)
        used = sum(n for _, n in entries)
        capacity = machines[machine].minutes_on(day) if machine in machines else 0
        out.append(f"  {day} {machine}: {names} [{hours(used)} of {hours(capacity)}]")
    waiting = [o.id for o in state.orders if not o.schedule]
    out.append(f"  not scheduled: {', '.join(waiting) or 'none'}")
    out += ["", "Materials (on hand / on order):"]
    out += [f"  {m.id}: {m.on_hand} / {m.on_order}" for m in state.materials] or ["  none"]
    out += ["", "Procurement requested:"]
    out += [f"  {p.quantity} {p.material} by {p.needed_by} from {p.supplier_email}" for p in state.procurement] or [
        "  none"
    ]
    return "\n".join(out)
