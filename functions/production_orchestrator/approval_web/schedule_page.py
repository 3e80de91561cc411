"""The whole shop's schedule as one page: every machine over the days ahead, drawn (grid.py) and in words,
with each pending plan's changes laid over the booked work and listed below, each with how to reach its
approval. ``serve`` answers it at /schedule (loopback only: it names every customer); ``shop show --html``
writes it to a file.

No page here holds a link secret: an approval is opened from its approver's own link (the e-mail, or
``APPROVAL_URL=`` from ``start``). The served page points at the plan's line in serve's list of pending
approvals (``/#p-<hash>``, which shows no secret either); both point at ``show --checkpoint ID`` at this
computer. Every shop and customer string is escaped, control characters shown as escapes (a customer
name from an e-mail may hold markup or terminal escapes).
"""

from __future__ import annotations

from html import escape

from ..domain.planning.shop_schedule import PendingPlan, ShopSchedule, describe_shop_schedule
from ..domain.planning.timeline import day_label
from ..domain.presentation import describe_buys, describe_moves, fingerprint, timing
from ..domain.terminal import terminal_safe
from .grid import draw_grid, legend, scrolls
from .layout import page
from .summary import anchor

PROG = "production-orchestrator"
_LEGEND = (
    ("kept", "booked work"),
    ("new", "\u2605 a pending plan's new order (not booked yet)"),
    ("moved", "\u21aa where a pending plan moves work"),
    ("moving", "booked work a pending plan moves away"),
    ("risk", "\u26a0 late"),
    ("closed", "closed day"),
)
_STATUS = {
    "pending": "waiting for a decision",
    "stale": "no longer holds on the current shop: an approver proposes it again or rejects it",
    "decided": "approved; it applies once the resume runs",
    "resuming": "approved; the resume is applying it",
    "no_approval": "no approval record yet",
}


def safe(value: object) -> str:
    """``value`` as HTML text: markup escaped, control and format characters shown as escapes."""
    return escape(terminal_safe(str(value)))


def _reach(plan: PendingPlan, *, served: bool) -> str:
    """How to reach this plan's approval: never a link secret."""
    listed = (
        f' It is listed with its fingerprint among the <a href="/#{anchor(plan.proposal_hash)}">pending approvals</a>.'
        if served
        else ""
    )
    return (
        '<p class="small">Each approver opens it from their own approval link (the e-mail, or the '
        f"<code>APPROVAL_URL=</code> that <code>start</code> printed).{listed} At this computer: "
        f"<code>{PROG} show --checkpoint {safe(plan.checkpoint_id)}</code>.</p>"
    )


def _plan(plan: PendingPlan, *, served: bool) -> str:
    proposal = plan.proposal
    order = proposal.target_order
    on_time, sentence = timing(proposal)
    lines = [
        *(f"Moves {line}" for line in describe_moves(proposal)),
        *(f"Buys {line}" for line in describe_buys(proposal)),
        *(f"Overtime {o.words()} (only with this plan)" for o in proposal.calendar_changes),
    ] or ["Moves nothing and buys nothing."]
    changes = "<br>".join(safe(line) for line in lines)
    return (
        f'<li id="plan-{plan.number}"><b>Plan {plan.number}</b>: order <b>{safe(order.id)}</b> for '
        f"{safe(order.customer)}, {order.quantity} &times; {safe(order.product)}, due "
        f"{safe(day_label(order.due))}.<br>{safe(_STATUS.get(plan.status, plan.status).capitalize())}. "
        f"{'' if on_time else chr(0x26A0) + ' '}{safe(sentence)}.<br>"
        f"Fingerprint <code>{safe(fingerprint(plan.proposal_hash))}</code><br>{changes}"
        f"{_reach(plan, served=served)}</li>"
    )


def _notes(schedule: ShopSchedule) -> dict[str, tuple[str, ...]]:
    """What is due, under each day's heading (at most three names; the words list them all)."""
    notes = {}
    for day, ids in schedule.due:
        shown = [f"due {i}" for i in ids[:3]]
        notes[day] = (*shown, f"+{len(ids) - 3} more due") if len(ids) > 3 else tuple(shown)
    return notes


def render_schedule(schedule: ShopSchedule, *, served: bool) -> str:
    """The page: the drawing (scrolling sideways in its own box), its legend, the pending plans, the words."""
    hint = (
        '<p class="small" aria-hidden="true">Later days: scroll the schedule sideways.</p>'
        if scrolls(len(schedule.days))
        else ""
    )
    drawing = draw_grid(schedule.days, schedule.machines, schedule.rows, klass="grid-shop", notes=_notes(schedule))
    plans = "".join(_plan(p, served=served) for p in schedule.plans)
    pending = f'<ul class="rows">{plans}</ul>' if plans else "<p>No plan is waiting for a decision.</p>"
    words = "".join(f"<li>{safe(line)}</li>" for line in describe_shop_schedule(schedule))
    first, last = day_label(schedule.days[0]), day_label(schedule.days[-1])
    back = '<p><a href="/">Pending approvals</a></p>' if served else ""
    body = (
        f"<p>{safe(schedule.name)}: every machine from {safe(first)} to {safe(last)} (today: "
        f"{safe(day_label(schedule.today))}). What the pending "
        "plans would change is laid over the booked work; none of it is booked until its plan is approved "
        f"and applies.</p>{back}"
        f'<section class="timeline" aria-label="The schedule, drawn"><h2>Machines and days</h2>{hint}'
        f'<div class="tl">{drawing}</div>{legend(_LEGEND)}</section>'
        f"<section><h2>Pending plans</h2>{pending}</section>"
        f'<section><h2>The schedule in words</h2><ul id="schedule-text">{words}</ul></section>'
    )
    return page("The shop's schedule", body)
