"""The approval pages as HTML strings: the confirmation (open approval), the state of a closed one, and the
one neutral page for links that are not valid.

Pure rendering from domain objects (no strands, no boto3), so the decision Lambda and the local server
(`serve`) serve the same bytes. Every dynamic value is HTML-escaped. Mail scanners fetch links with GET
and HEAD, so the confirmation page only shows the plan; a form POST (echoing the hash the human saw)
decides. The forms post back to the page's own URL (``action=""``), which already carries the approval id
and link secret, so no page body ever contains the secret. No script at all; the one stylesheet is
allowed by its hash in the Content-Security-Policy, so not even an injected ``<style>`` would apply.

A valid link always tells its holder the truth: an open approval shows the plan and the forms (a refused
form comes back with why, the reason typed kept); a decided, rejected, expired or superseded one shows who
decided what, when, on which plan, and how it ended. Times are shown in the shop's time zone.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from html import escape

from ..domain.approval.approvals import ApprovalRecord
from ..domain.planning.proposal import ProposalContent
from ..domain.presentation import (
    MESSAGES_ON_APPROVAL,
    describe_allocations,
    describe_at_risk,
    describe_blockers,
    describe_procurement,
    describe_schedule,
    fingerprint,
    shop_time,
    time_left,
)
from ..domain.records import Checkpoint
from ..lifecycle.review import LinkView

_STYLE = (
    "html{-webkit-text-size-adjust:100%}"
    "body{font:1.0625rem/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;padding:1rem;"
    "color:#1a1a1a;background:#f6f6f4}"
    "main{max-width:40rem;margin:0 auto}"
    "h1{font-size:1.45rem;line-height:1.25;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.4rem 0 .4rem}"
    "section{background:#fff;border:1px solid #ddd;border-radius:.6rem;padding:.2rem 1rem .6rem;margin:.8rem 0}"
    "ul{padding-left:1.2rem;margin:.3rem 0}li{margin:.35rem 0}"
    ".fp{font:700 1.35rem/1.3 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.06em;word-spacing:.2em}"
    "code,.hash{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8rem;overflow-wrap:anywhere}"
    "dl{margin:.4rem 0}dt{font-weight:600;margin-top:.5rem}dd{margin:0}"
    ".draft{white-space:pre-wrap;background:#f4f4f4;border-radius:.4rem;padding:.5rem;margin-top:.3rem}"
    ".note{border-left:.3rem solid #b26b00;background:#fff7e6;padding:.6rem .8rem;margin:.8rem 0}"
    ".ok{border-left-color:#1b7f3b;background:#eefaf1}.bad{border-left-color:#b3261e;background:#fdeeee}"
    "form{margin:1rem 0}label{display:block;font-weight:600;margin:.6rem 0 .3rem}"
    "textarea{box-sizing:border-box;width:100%;font:inherit;padding:.5rem;border:1px solid #888;"
    "border-radius:.4rem}"
    "button{display:block;box-sizing:border-box;width:100%;min-height:3rem;font:600 1.05rem system-ui,sans-serif;"
    "border:0;border-radius:.5rem;padding:.7rem 1rem;margin:.6rem 0;cursor:pointer}"
    ".approve{background:#1b7f3b;color:#fff}.reject{background:#b3261e;color:#fff}"
    ".again{background:#1f4e99;color:#fff}"
    ".risk{border-left:.3rem solid #b3261e}pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}"
    "button:focus,textarea:focus{outline:3px solid #1f4e99;outline-offset:2px}"
    "table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem .3rem;"
    "border-bottom:1px solid #e3e3e3;vertical-align:top}"
)
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode("utf-8")).digest()).decode("ascii")

# Sent with every page: nothing cached, nothing leaked through a Referer header, no framing, no scripts.
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
}
CONTENT_TYPE = "text/html; charset=utf-8"

NEUTRAL_MESSAGE = "This approval link cannot be used: it is not a link to an approval. Nothing was changed."


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="robots" content="noindex, nofollow">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main><h1>{escape(title)}</h1>{body}</main></body></html>"
    )


def _items(lines: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def _note(text: str, klass: str = "bad") -> str:
    return f'<p class="note {klass}" role="alert">{escape(text)}</p>' if text else ""


def _who(approval: ApprovalRecord, approver: str) -> str:
    asked = ", ".join(approval.approver_names())
    needs = (
        "one approval decides"
        if approval.required == 1
        else f"{approval.required} approvals needed, {approval.approving_votes()} given so far; any reject decides"
    )
    lines = [f"<dt>Asked</dt><dd>{escape(asked)} ({escape(needs)})</dd>"]
    if approval.requester:
        sod = " (may not approve: separation of duties)" if approval.policy.separation_of_duties else ""
        lines.append(f"<dt>Requested by</dt><dd>{escape(approval.requester)}{escape(sod)}</dd>")
    lines.append(f"<dt>You are</dt><dd>{escape(approver)}</dd>")
    return "".join(lines)


def _facts(view: LinkView, now: datetime) -> str:
    checkpoint, approval = view.checkpoint, view.approval
    when = (
        f"{time_left(approval.expires_at, now)} (until {shop_time(approval.expires_at, view.timezone)})"
        if approval.is_open(now)
        else f"closed; the window ran until {shop_time(approval.expires_at, view.timezone)}"
    )
    return (
        "<section><h2>What you are deciding on</h2><dl>"
        f'<dt>Proposal fingerprint</dt><dd class="fp">{escape(fingerprint(checkpoint.proposal_hash))}</dd>'
        f'<dt>Full proposal hash</dt><dd class="hash">{escape(checkpoint.proposal_hash)}</dd>'
        f"<dt>Proposed by</dt><dd>{escape(checkpoint.provider_binding.describe())}</dd>"
        f"{_who(approval, view.approver)}"
        f"<dt>Time left</dt><dd>{escape(when)}</dd></dl></section>"
    )


def _hidden(checkpoint: Checkpoint) -> str:
    return f'<input type="hidden" name="reviewed_hash" value="{escape(checkpoint.proposal_hash)}">'


def _changes(changes: list[str], can_repropose: bool) -> str:
    then = (
        "Propose again to plan on the current shop, or reject it to cancel it."
        if can_repropose
        else "Reject it to cancel it; a new run plans on the current shop."
    )
    return (
        '<section class="note bad" role="alert"><h2>The shop changed since this plan was proposed</h2>'
        f"{_items(changes)}<p>Approving it would be refused. {then}</p></section>"
    )


def _allocations(proposal: ProposalContent) -> str:
    return f"<section><h2>Allocations by machine and day</h2>{_items(describe_allocations(proposal))}</section>"


def _at_risk(proposal: ProposalContent) -> str:
    if not proposal.at_risk:
        return "<section><h2>At risk</h2><p>Nothing: every order keeps its due date.</p></section>"
    return (
        '<section class="risk" role="alert"><h2>At risk: these orders miss their due date</h2>'
        f"{_items(describe_at_risk(proposal))}</section>"
    )


def _plan(view: LinkView) -> list[str]:
    proposal = view.proposal
    order = proposal.target_order
    drafts = "".join(
        f"<li><b>To the {escape(d.audience)}</b> ({escape(d.to)}): {escape(d.subject)}"
        f'<div class="draft">{escape(d.body)}</div></li>'
        for d in proposal.communication_drafts
    )
    buying = describe_procurement(proposal) or ["Nothing to buy."]
    return [
        f"<p>Order <b>{escape(order.id)}</b> for {escape(order.customer)}: {order.quantity} &times; "
        f"{escape(order.product)}, priority {order.priority}, due {escape(order.due)}; "
        f"planned from {escape(proposal.planning_day)}.</p>",
        _at_risk(proposal),
        f"<section><h2>Why it is blocked</h2>{_items(describe_blockers(proposal))}</section>",
        f"<section><h2>Schedule changes</h2>{_items(describe_schedule(proposal))}</section>",
        _allocations(proposal),
        f"<section><h2>Procurement</h2>{_items(buying)}</section>",
        "<section><details><summary>The customer's e-mail</summary>"
        f"<pre>{escape(proposal.request_text)}</pre></details></section>",
        f"<section><h2>Messages this plan sends</h2><p>{escape(MESSAGES_ON_APPROVAL)}</p><ul>{drafts}</ul></section>",
    ]


def _forms(view: LinkView, *, can_repropose: bool, reason: str) -> str:
    hidden = _hidden(view.checkpoint)
    parts = []
    if view.changes:
        if can_repropose:
            parts.append(
                f'<form method="post" action="">{hidden}<input type="hidden" name="decision" value="repropose">'
                '<button type="submit" class="again">Propose again on the current shop</button></form>'
            )
    elif view.may_approve:
        parts.append(
            f'<form method="post" action="">{hidden}<input type="hidden" name="decision" value="approve">'
            '<button type="submit" class="approve">Approve this exact plan</button></form>'
        )
    else:
        parts.append(
            '<p class="note">You started this run, so you may not approve it (separation of duties). '
            "You can still reject it.</p>"
        )
    label = "Reason for rejecting (required; the agent and the audit trail keep it)"
    parts.append(
        f'<form method="post" action="">{hidden}<input type="hidden" name="decision" value="reject">'
        f'<label for="reason">{label}</label>'
        f'<textarea id="reason" name="reason" rows="3" maxlength="2000" required>{escape(reason)}</textarea>'
        '<button type="submit" class="reject">Reject</button></form>'
        "<p>Opening this page changed nothing. Only these buttons record a decision.</p>"
    )
    return "".join(parts)


def render_confirmation(
    view: LinkView, *, now: datetime, can_repropose: bool = False, message: str = "", reason: str = ""
) -> str:
    """An open approval: the plan, why, its fingerprint, provider, who is asked and the time left, and the forms
    whose POST decides. ``message``: why the last POST recorded nothing; ``reason``: what was typed, kept."""
    parts = [_note(f"Your decision was not recorded: {message}" if message else "")]
    parts += _plan(view)[:1]
    if view.changes:
        parts.append(_changes(view.changes, can_repropose))
    parts += _plan(view)[1:]
    parts.append(_facts(view, now))
    parts.append(_forms(view, can_repropose=can_repropose, reason=reason))
    return _page("A production plan needs your decision", "".join(parts))


_TITLES = {
    "decided": "Plan approved",
    "rejected": "Plan rejected",
    "expired": "Approval expired",
    "superseded": "Plan replaced by a new proposal",
    "pending": "Approval recorded, waiting for more",
}
_OUTCOMES = {
    "applied": ("ok", "The plan was verified again against the stored evidence and applied, once."),
    "rejected": ("ok", "The agent was told the reason and changed nothing. The shop stays as it was."),
    "not_applied": (
        "bad",
        "The approval was recorded, but the plan did not apply and will not: nothing in the shop changed. "
        "A new run can propose a plan on the current shop.",
    ),
}


def _votes(view: LinkView) -> str:
    lines = []
    for vote in view.approval.votes:
        decision = vote.decision
        verb = "approved" if decision.approved else "rejected"
        why = f": {decision.reason}" if decision.reason else ""
        lines.append(f"{decision.approver} {verb} on {shop_time(decision.decided_at, view.timezone)}{why}")
    return f"<section><h2>Decisions recorded</h2>{_items(lines or ['None.'])}</section>"


def _next(view: LinkView, resumed: bool, now: datetime) -> tuple[str, str]:
    """How it ended, or what happens next, from the approval and the resume's record."""
    approval, record = view.approval, view.outcome
    if approval.state(now) == "expired":
        closed = shop_time(approval.closed_at or approval.expires_at, view.timezone)
        return "bad", f"The window closed on {closed}: nothing was approved and nothing changed."
    if approval.status == "superseded":
        return "note", "The shop changed and a new plan was proposed in its place; open your link again to see it."
    if approval.status == "pending":
        return "note", (
            f"This plan needs {approval.required} approvals; {approval.approving_votes()} given so far. Nothing "
            "changes until enough approvers approve; any approver can still reject it."
        )
    if record is not None and record.completion is not None:
        return _OUTCOMES.get(record.completion.outcome, _OUTCOMES["not_applied"])
    if record is not None:
        return (
            "note",
            f"A fresh process is verifying and resuming it (since {shop_time(record.claimed_at, view.timezone)}).",
        )
    if resumed:
        return "bad", "The resume refused to act on it: the checks before any change failed. Nothing was changed."
    approved = approval.status == "decided"
    return "ok", (
        "A fresh process now verifies the plan again against the stored evidence and then "
        + (
            "applies it exactly once; its drafted messages are then sent."
            if approved
            else "tells the agent the reason; nothing is changed and no message is sent."
        )
    )


def _queued(queued: list[str]) -> str:
    if not queued:
        return ""
    return (
        f"<section><h2>Queued to send</h2>{_items(queued)}"
        "<p>Each is delivered once, by the outbox sender.</p></section>"
    )


def render_state(
    view: LinkView,
    *,
    now: datetime,
    notice: str = "",
    problem: str = "",
    resumed: bool = False,
    queued: list[str] | None = None,
) -> str:
    """A valid link to an approval that takes no (more) votes from its holder: what was decided, by whom, when,
    on which plan, and how it ended. ``notice``: what the POST just did; ``problem``: why it recorded nothing;
    ``queued``: the messages the apply queued."""
    approval = view.approval
    status = approval.state(now)
    klass, text = _next(view, resumed, now)
    closed = f" on {shop_time(approval.closed_at, view.timezone)}" if approval.closed_at else ""
    parts = [
        _note(f"Your decision was not recorded: {problem}" if problem else ""),
        _note(notice, "ok"),
        f'<p>Proposal <span class="fp">{escape(fingerprint(approval.proposal_hash))}</span>, '
        f"{escape(status)}{escape(closed)}"
        f"{escape(' by ' + approval.decided_by) if approval.decided_by and status != 'expired' else ''}.</p>",
        f'<p class="note {klass}"><b>What happens next:</b> {escape(text)}</p>',
        _queued(queued or []),
        _votes(view),
        _facts(view, now),
        "<p>You can close this page.</p>",
    ]
    return _page(_TITLES.get(status, "Approval"), "".join(parts))


def render_reproposed(*, proposal_hash: str) -> str:
    """A new plan was proposed on the current shop; the old approval is closed."""
    return _page(
        "A new plan was proposed",
        f'<p>The agent planned again on the current shop. New proposal: <span class="fp">'
        f"{escape(fingerprint(proposal_hash))}</span>.</p>"
        '<p class="note ok"><b>What happens next:</b> the earlier plan is closed. Open your link again: it now '
        "shows the new plan, and every approver decides on it afresh.</p>",
    )


def render_neutral() -> str:
    """The one page for links that are not valid (unknown approval, wrong secret, malformed)."""
    return _page("Approval link not usable", f"<p>{escape(NEUTRAL_MESSAGE)}</p>")


def render_invalid(detail: str) -> str:
    """The request could not be read: nothing was recorded."""
    return _page(
        "Decision not recorded",
        f'<p class="note bad">The form could not be used ({escape(detail)}). Nothing was recorded.</p>',
    )


def render_index(rows: list[tuple[ApprovalRecord, str, str]], now: datetime, zone: str = "UTC") -> str:
    """The local server's list of open approvals: (approval, order id, fingerprint); no links, no secrets."""
    if not rows:
        return _page("Pending approvals", "<p>Nothing is waiting for a decision.</p>")
    body = "".join(
        f"<tr><td>{escape(order_id)}</td><td><code>{escape(fp)}</code></td>"
        f"<td>{escape(', '.join(a.approver_names()))}</td>"
        f"<td>{escape(time_left(a.expires_at, now))} ({escape(shop_time(a.expires_at, zone))})</td></tr>"
        for a, order_id, fp in rows
    )
    return _page(
        "Pending approvals",
        "<p>Each approver opens the plan from their own link (printed by <code>start</code> as "
        "<code>APPROVAL_URL=</code>).</p><table><thead><tr><th>Order</th><th>Fingerprint</th><th>Asked</th>"
        f"<th>Time left</th></tr></thead><tbody>{body}</tbody></table>",
    )
