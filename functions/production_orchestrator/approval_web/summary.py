"""The top of a plan's page: what a person needs to decide in the first screen of a phone.

    order, customer, due -> on time or at risk (by how much) -> what moves -> what is bought -> fingerprint
    -> the decision forms (Approve, Reject) right below

The details (the before/after timeline, why it is blocked, allocations, messages) follow further down.
"""

from __future__ import annotations

from datetime import datetime
from html import escape

from ..domain.approval.approvals import ApprovalRecord
from ..domain.planning.proposal import ProposalContent
from ..domain.planning.timeline import day_label
from ..domain.presentation import (
    describe_buys,
    describe_given,
    describe_moves,
    fingerprint,
    others_at_risk,
    shop_time,
    time_left,
    timing,
)
from .layout import page


def _list(lines: list[str], empty: str) -> str:
    if not lines:
        return escape(empty)
    return "<br>".join(escape(line) for line in lines)


def render_card(proposal: ProposalContent, proposal_hash: str, *, deadline: str, forms: str, extra: str = "") -> str:
    """The summary card: the order and its timing, what moves and is bought, the fingerprint, ``deadline``
    (time left, in words), then ``extra`` (e.g. what changed in the shop) and ``forms`` (already HTML)."""
    order = proposal.target_order
    on_time, sentence = timing(proposal)
    risks = others_at_risk(proposal)
    risk_line = "".join(f'<p class="when late">\u26a0 {escape(line)}</p>' for line in risks)
    given = "".join(f'<p class="given">{escape(line)}</p>' for line in describe_given(proposal))
    return (
        '<section class="card" aria-label="Summary">'
        f'<p class="what">Order <b>{escape(order.id)}</b> for {escape(order.customer)}: '
        f"{order.quantity} &times; {escape(order.product)}</p>"
        f'<p class="when {"ok" if on_time else "late"}">{"" if on_time else chr(0x26A0) + " "}{escape(sentence)}</p>'
        f"{risk_line}{given}"
        '<dl class="sum">'
        f"<dt>Due</dt><dd>{escape(day_label(order.due))}</dd>"
        f"<dt>Moves</dt><dd>{_list(describe_moves(proposal), 'nothing else moves')}</dd>"
        f"<dt>Buys</dt><dd>{_list(describe_buys(proposal), 'nothing')}</dd>"
        f'<dt>Fingerprint</dt><dd class="fp">{escape(fingerprint(proposal_hash))}</dd>'
        f"<dt>Decide</dt><dd>{escape(deadline)}</dd>"
        "</dl>"
        f"{extra}{forms}</section>"
    )


def anchor(proposal_hash: str) -> str:
    """The id of a plan's line in the list of pending approvals (its fingerprint's characters)."""
    return "p-" + proposal_hash[:16]


def render_index(
    rows: list[tuple[ApprovalRecord, str, str]], now: datetime, zone: str = "UTC", *, schedule: bool = False
) -> str:
    """The local server's list of open approvals: (approval, order id, fingerprint); no links to an approval,
    no secrets. Each line's id is its plan's fingerprint, which the schedule page (``schedule``: linked from
    here) points at."""
    shop = '<p><a href="/schedule">The whole shop\'s schedule</a></p>' if schedule else ""
    if not rows:
        return page("Pending approvals", f"<p>Nothing is waiting for a decision.</p>{shop}")
    # One card per approval, not a table: long addresses and dates wrap inside a phone's 390 px.
    body = "".join(
        f'<li id="{escape(anchor(a.proposal_hash))}"><b>{escape(order_id)}</b> &middot; <code>{escape(fp)}</code><br>'
        f"Asked: {escape(', '.join(a.approver_names()))}<br>"
        f"{escape(time_left(a.expires_at, now))} (until {escape(shop_time(a.expires_at, zone))})</li>"
        for a, order_id, fp in rows
    )
    return page(
        "Pending approvals",
        "<p>Each approver opens the plan from their own link (printed by <code>start</code> as "
        f'<code>APPROVAL_URL=</code>).</p>{shop}<ul class="rows">{body}</ul>',
    )
