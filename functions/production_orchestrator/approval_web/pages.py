"""The approval pages as HTML strings: confirmation, outcomes, and the one neutral page.

Pure rendering from domain objects (no strands, no boto3), so the decision Lambda and the local server
(`serve`) serve the same bytes. Every dynamic value is HTML-escaped. Mail scanners fetch links with GET
and HEAD, so the confirmation page only shows the plan; a form POST (echoing the hash the human saw)
decides. The forms post back to the page's own URL (``action=""``), which already carries the approval id
and link secret, so no page body ever contains the secret. No script at all; the one stylesheet is
allowed by its hash in the Content-Security-Policy, so not even an injected ``<style>`` would apply.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from html import escape

from ..domain.approvals import ApprovalRecord
from ..domain.planning import ProposalContent
from ..domain.presentation import (
    MESSAGES_ON_APPROVAL,
    describe_allocations,
    describe_at_risk,
    describe_blockers,
    describe_procurement,
    describe_schedule,
    fingerprint,
)
from ..domain.records import Checkpoint, parse_utc

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

NEUTRAL_MESSAGE = (
    "This approval link cannot be used. It may be unknown, it may have expired, or a decision may "
    "already have been recorded. Nothing was changed."
)


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


def _who(approval: ApprovalRecord, approver: str) -> str:
    asked = ", ".join(approval.approver_names())
    needs = (
        "one approval decides"
        if approval.quorum == 1
        else f"{approval.quorum} approvals needed, {approval.approving_votes()} given so far; any reject decides"
    )
    lines = [f"<dt>Asked</dt><dd>{escape(asked)} ({escape(needs)})</dd>"]
    if approval.requester:
        sod = " (may not approve: separation of duties)" if approval.separation_of_duties else ""
        lines.append(f"<dt>Requested by</dt><dd>{escape(approval.requester)}{escape(sod)}</dd>")
    lines.append(f"<dt>You are</dt><dd>{escape(approver)}</dd>")
    return "".join(lines)


def _hidden(checkpoint: Checkpoint) -> str:
    return f'<input type="hidden" name="reviewed_hash" value="{escape(checkpoint.proposal_hash)}">'


def _changes(changes: list[str], can_repropose: bool) -> str:
    then = (
        "Propose again to plan on the current shop."
        if can_repropose
        else "Reject it; a new run plans on the current shop."
    )
    return (
        '<section class="note bad" role="alert"><h2>The shop changed since this plan was proposed</h2>'
        f"{_items(changes)}<p>Approving it would be refused. {then}</p></section>"
    )


def _repropose_form(checkpoint: Checkpoint) -> str:
    return (
        f'<form method="post" action="">{_hidden(checkpoint)}'
        '<input type="hidden" name="decision" value="repropose">'
        '<button type="submit" class="again">Propose again on the current shop</button></form>'
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


def render_confirmation(
    checkpoint: Checkpoint,
    proposal: ProposalContent,
    *,
    approval: ApprovalRecord,
    approver: str,
    now: datetime,
    may_approve: bool = True,
    changes: list[str] | None = None,
    can_repropose: bool = False,
) -> str:
    """The plan, why, its fingerprint, provider, who is asked and time left, and the forms whose POST decides."""
    order = proposal.target_order
    drafts = "".join(
        f"<li><b>To the {escape(d.audience)}</b> ({escape(d.to)}): {escape(d.subject)}"
        f'<div class="draft">{escape(d.body)}</div></li>'
        for d in proposal.communication_drafts
    )
    buying = describe_procurement(proposal) or ["Nothing to buy."]
    parts = [
        f"<p>Order <b>{escape(order.id)}</b> for {escape(order.customer)}: {order.quantity} &times; "
        f"{escape(order.product)}, priority {order.priority}, due {escape(order.due)}; "
        f"planned from {escape(proposal.planning_day)}.</p>",
    ]
    if changes:
        parts.append(_changes(changes, can_repropose))
    parts += [
        _at_risk(proposal),
        f"<section><h2>Why it is blocked</h2>{_items(describe_blockers(proposal))}</section>",
        f"<section><h2>Schedule changes</h2>{_items(describe_schedule(proposal))}</section>",
        _allocations(proposal),
        f"<section><h2>Procurement</h2>{_items(buying)}</section>",
        "<section><details><summary>The customer's e-mail</summary>"
        f"<pre>{escape(proposal.request_text)}</pre></details></section>",
        f"<section><h2>Messages this plan sends</h2><p>{escape(MESSAGES_ON_APPROVAL)}</p><ul>{drafts}</ul></section>",
        "<section><h2>What you are deciding on</h2><dl>"
        f'<dt>Proposal fingerprint</dt><dd class="fp">{escape(fingerprint(checkpoint.proposal_hash))}</dd>'
        f'<dt>Full proposal hash</dt><dd class="hash">{escape(checkpoint.proposal_hash)}</dd>'
        f"<dt>Proposed by</dt><dd>{escape(checkpoint.provider_binding.describe())}</dd>"
        f"{_who(approval, approver)}"
        f"<dt>Time left</dt><dd>{escape(time_left(checkpoint.expires_at, now))} "
        f"(until {escape(checkpoint.expires_at)})</dd></dl></section>",
    ]
    if changes:
        if can_repropose:
            parts.append(_repropose_form(checkpoint))
    elif may_approve:
        parts.append(
            f'<form method="post" action="">{_hidden(checkpoint)}'
            '<input type="hidden" name="decision" value="approve">'
            '<button type="submit" class="approve">Approve this exact plan</button></form>'
        )
    else:
        parts.append(
            '<p class="note">You started this run, so you may not approve it (separation of duties). '
            "You can still reject it.</p>"
        )
    parts.append(
        f'<form method="post" action="">{_hidden(checkpoint)}'
        '<input type="hidden" name="decision" value="reject">'
        '<label for="reason">Reason for rejecting (required; the agent and the audit trail keep it)</label>'
        '<textarea id="reason" name="reason" rows="3" maxlength="2000" required></textarea>'
        '<button type="submit" class="reject">Reject</button></form>'
        "<p>Opening this page changed nothing. Only these buttons record a decision.</p>"
    )
    return _page("A production plan needs your decision", "".join(parts))


def render_neutral() -> str:
    """The one page for unknown, expired, used and undeliverable links alike."""
    return _page("Approval link not usable", f"<p>{escape(NEUTRAL_MESSAGE)}</p>")


def render_recorded(
    *,
    approved: bool,
    approver: str,
    proposal_hash: str,
    outcome: str = "",
    changes: list[str] | None = None,
    receipted: bool = True,
    queued: list[str] | None = None,
) -> str:
    """The decision was recorded and the workflow woken; ``outcome`` says how the resume ended when known,
    ``queued`` which messages the apply queued."""
    verdict = "approved" if approved else "rejected"
    nexts = {
        "applied": "The plan was verified again against the stored evidence and applied, once.",
        "rejected": "The agent was told your reason and changed nothing. The shop stays as it was.",
        "refused": "The resume refused to act on it: the checks before any change failed. Nothing was changed.",
        "": (
            "A fresh process now verifies the plan again against the stored evidence and then "
            + (
                "applies it exactly once; its drafted messages are then sent."
                if approved
                else "tells the agent your reason; nothing is changed and no message is sent."
            )
        ),
    }
    klass = "ok" if outcome in ("applied", "rejected", "") else "bad"
    body = (
        f"<p>Your decision ({verdict}, by {escape(approver)}) on proposal "
        f'<span class="fp">{escape(fingerprint(proposal_hash))}</span> was recorded'
        f"{' with a signed receipt' if receipted else ''}.</p>"
        f'<p class="note {klass}"><b>What happens next:</b> {escape(nexts.get(outcome, nexts["refused"]))}</p>'
    )
    if queued:
        body += (
            f"<section><h2>Queued to send</h2>{_items(queued)}"
            "<p>Each is delivered once, by the outbox sender.</p></section>"
        )
    if changes:
        body += (
            '<section class="note bad"><h2>Refused: the shop changed since the plan was proposed</h2>'
            f"{_items(changes)}<p>Open your link again to propose a new plan on the current shop.</p></section>"
        )
    body += "<p>You can close this page.</p>"
    return _page(f"Plan {verdict}", body)


def render_vote_recorded(*, approver: str, proposal_hash: str, given: int, needed: int, receipted: bool = True) -> str:
    """An approval short of the quorum: recorded, waiting for more approvers."""
    return _page(
        "Approval recorded, waiting for more",
        f"<p>Your approval (by {escape(approver)}) of proposal "
        f'<span class="fp">{escape(fingerprint(proposal_hash))}</span> was recorded'
        f"{' with a signed receipt' if receipted else ''}.</p>"
        f'<p class="note"><b>What happens next:</b> this plan needs {needed} approvals; {given} given so far. '
        "Nothing changes until enough approvers approve; any approver can still reject it.</p>",
    )


def render_reproposed(*, proposal_hash: str) -> str:
    """A new plan was proposed on the current shop; the old approval is closed."""
    return _page(
        "A new plan was proposed",
        f'<p>The agent planned again on the current shop. New proposal: <span class="fp">'
        f"{escape(fingerprint(proposal_hash))}</span>.</p>"
        '<p class="note ok"><b>What happens next:</b> the earlier plan is closed. Open your link again: it now '
        "shows the new plan, and every approver decides on it afresh.</p>",
    )


def render_unauthorized(detail: str) -> str:
    """The link holder may not make this decision (not on the list, or their own plan)."""
    return _page(
        "Decision not recorded",
        f'<p class="note bad">You may not make this decision: {escape(detail)}. Nothing was recorded.</p>',
    )


def render_hash_mismatch() -> str:
    """The form named another proposal than the pending one: nothing was recorded."""
    return _page(
        "Decision not recorded",
        '<p class="note bad">The plan you reviewed is not the plan waiting for a decision. Nothing was '
        "recorded. Open the link from your e-mail again to review the current plan.</p>",
    )


def render_invalid(detail: str) -> str:
    """The form could not be read: nothing was recorded."""
    return _page(
        "Decision not recorded",
        f'<p class="note bad">The form could not be used ({escape(detail)}). Nothing was recorded.</p>',
    )


def render_index(rows: list[tuple[ApprovalRecord, str, str]], now: datetime) -> str:
    """The local server's list of pending approvals: (approval, order id, fingerprint); no links, no secrets."""
    if not rows:
        return _page("Pending approvals", "<p>Nothing is waiting for a decision.</p>")
    body = "".join(
        f"<tr><td>{escape(order_id)}</td><td><code>{escape(fp)}</code></td>"
        f"<td>{escape(', '.join(a.approver_names()))}</td><td>{escape(time_left(a.expires_at, now))}</td></tr>"
        for a, order_id, fp in rows
    )
    return _page(
        "Pending approvals",
        "<p>Each approver opens the plan from their own link (printed by <code>start</code> as "
        "<code>APPROVAL_URL=</code>).</p><table><thead><tr><th>Order</th><th>Fingerprint</th><th>Asked</th>"
        f"<th>Time left</th></tr></thead><tbody>{body}</tbody></table>",
    )
