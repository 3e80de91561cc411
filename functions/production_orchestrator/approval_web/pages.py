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

from datetime import datetime
from html import escape

from ..domain.approval.approvals import ApprovalRecord
from ..domain.approval.authority import was_revised
from ..domain.approval.revising import revision_failed
from ..domain.planning.proposal import ProposalContent
from ..domain.planning.timeline import build_timeline
from ..domain.planning.versions import version_changes
from ..domain.presentation import (
    MESSAGES_ON_APPROVAL,
    describe_allocations,
    describe_at_risk,
    describe_blockers,
    describe_given,
    describe_held,
    describe_procurement,
    describe_schedule,
    fingerprint,
    shop_time,
    time_left,
)
from ..domain.records import Checkpoint
from ..services.deciding.review import LinkView
from .layout import CONTENT_TYPE, NEUTRAL_MESSAGE, SECURITY_HEADERS, items, note, page
from .next_step import what_next
from .summary import render_card
from .timeline import render_timeline

__all__ = ["CONTENT_TYPE", "NEUTRAL_MESSAGE", "SECURITY_HEADERS"]


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
        '<section class="note bad" role="alert"><h2>This plan no longer holds on the current shop</h2>'
        f"{items(changes)}<p>Approving it would be refused. {then}</p></section>"
    )


def _allocations(proposal: ProposalContent) -> str:
    return f"<section><h2>Allocations by machine and day</h2>{items(describe_allocations(proposal))}</section>"


def _at_risk(proposal: ProposalContent) -> str:
    if not proposal.at_risk:
        return "<section><h2>At risk</h2><p>Nothing: every order keeps its due date.</p></section>"
    return (
        '<section class="risk" role="alert"><h2>At risk: these orders miss their due date</h2>'
        f"{items(describe_at_risk(proposal))}</section>"
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
    held = describe_held(proposal)
    return [
        f"<p>Order <b>{escape(order.id)}</b> for {escape(order.customer)}: {order.quantity} &times; "
        f"{escape(order.product)}, priority {order.priority}, due {escape(order.due)}; "
        f"planned from {escape(proposal.planning_day)}.</p>",
        *(
            [f"<section><h2>Facts a person gave, not the e-mail</h2>{items(describe_given(proposal))}</section>"]
            if proposal.given is not None
            else []
        ),
        _at_risk(proposal),
        f"<section><h2>Why it is blocked</h2>{items(describe_blockers(proposal))}</section>",
        f"<section><h2>Schedule changes</h2>{items(describe_schedule(proposal))}</section>",
        _allocations(proposal),
        f"<section><h2>Procurement</h2>{items(buying)}</section>",
        *([f"<section><h2>Planned around other pending plans</h2>{items(held)}</section>"] if held else []),
        "<section><details><summary>The customer's e-mail</summary>"
        f"<pre>{escape(proposal.request_text)}</pre></details></section>",
        f"<section><h2>Messages this plan sends</h2><p>{escape(MESSAGES_ON_APPROVAL)}</p><ul>{drafts}</ul></section>",
    ]


def _field(name: str, label: str, kind: str = "text", hint: str = "") -> str:
    extra = f' placeholder="{escape(hint)}"' if hint else ""
    return f'<label for="rv-{name}">{label}</label><input id="rv-{name}" name="{name}" type="{kind}"{extra}>'


def _revise_form(view: LinkView, hidden: str) -> str:
    """ "Change the plan": guidance for the agent to plan again with (a new version, decided afresh)."""
    first, version = view.proposal.planning_day, view.approval.version
    if view.approval.policy.is_last_version(version):
        return f'<p class="small">Version {version} is the last this plan may have: approve or reject it.</p>'
    return (
        '<details class="change"><summary>Change the plan</summary>'
        f'<form method="post" action="">{hidden}<input type="hidden" name="decision" value="revise">'
        '<p class="small">The agent plans this request again with what you ask. The result is a new version; '
        "this one can then no longer be approved, and every approver decides on the new one.</p>"
        + _field("keep", "Keep these orders where they are (ids, comma-separated)", hint="STANDARD-100")
        + _field("overtime", "Overtime (MACHINE:DAY:MINUTES, comma-separated)", hint=f"EMB-01:{first}:120")
        + _field("quantity", "Quantity", "number")
        + _field("due", "Due day", "date")
        + _field("product", "Product code")
        + '<label for="rv-note">Note to the agent</label>'
        '<textarea id="rv-note" name="note" rows="2" maxlength="1000"></textarea>'
        '<button type="submit" class="again">Plan it again with this</button></form></details>'
    )


def _versions(view: LinkView) -> str:
    """The version this one revised, beside it: what changed, and its own before/after timeline."""
    previous, revision = view.previous, view.proposal.revision
    if previous is None or revision is None:
        return ""
    changed = items(version_changes(previous, view.proposal))
    asked = items(revision.guidance.words())
    return (
        f"<section><h2>Version {revision.version}: changed by {escape(revision.given_by)}</h2>"
        f"<p>Asked:</p>{asked}<p>What changed since version {revision.version - 1}:</p>{changed}</section>"
        f"<section><h2>Version {revision.version - 1} (replaced by this one)</h2>"
        f"{render_timeline(build_timeline(view.base, previous))}</section>"
    )


def _forms(view: LinkView, *, can_repropose: bool, reason: str, can_revise: bool = False) -> str:
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
    label = "Reason for rejecting (required, kept in the audit trail)"
    parts.append(
        f'<form method="post" action="">{hidden}<input type="hidden" name="decision" value="reject">'
        f'<label for="reason">{label}</label>'
        f'<textarea id="reason" name="reason" rows="2" maxlength="2000" required>{escape(reason)}</textarea>'
        '<button type="submit" class="reject">Reject</button></form>'
        '<p class="small">Opening this page changed nothing. Only these buttons record a decision.</p>'
    )
    if can_revise:  # below Approve and Reject: the first screen still holds both
        parts.append(_revise_form(view, hidden))
    return "".join(parts)


def _deadline(view: LinkView, now: datetime) -> str:
    expires = view.approval.expires_at
    return f"{time_left(expires, now)}, until {shop_time(expires, view.timezone)}"


def render_confirmation(
    view: LinkView,
    *,
    now: datetime,
    can_repropose: bool = False,
    message: str = "",
    reason: str = "",
    can_revise: bool = False,
) -> str:
    """An open approval: a summary card with the forms whose POST decides (the first screen of a phone), then
    the schedule before and after, why, the details, its fingerprint, provider, who is asked and the time
    left. ``message``: why the last POST recorded nothing; ``reason``: what was typed, kept."""
    stale = _changes(view.changes, can_repropose) if view.changes else ""
    forms = _forms(view, can_repropose=can_repropose, reason=reason, can_revise=can_revise and not view.changes)
    parts = [
        note(f"Your decision was not recorded: {message}" if message else ""),
        render_card(
            view.proposal, view.checkpoint.proposal_hash, deadline=_deadline(view, now), forms=forms, extra=stale
        ),
        render_timeline(build_timeline(view.base, view.proposal)),
        _versions(view),
        *_plan(view),
        _facts(view, now),
    ]
    return page("A production plan needs your decision", "".join(parts))


_TITLES = {
    "decided": "Plan approved",
    "rejected": "Plan rejected",
    "expired": "Approval expired",
    "superseded": "Plan replaced by a new proposal",
    "pending": "Approval recorded, waiting for more",
}


def _votes(view: LinkView) -> str:
    lines = []
    for vote in view.approval.votes:
        decision = vote.decision
        verb = "approved" if decision.approved else "rejected"
        why = f": {decision.reason}" if decision.reason else ""
        lines.append(f"{decision.approver} {verb} on {shop_time(decision.decided_at, view.timezone)}{why}")
    return f"<section><h2>Decisions recorded</h2>{items(lines or ['None.'])}</section>"


def _queued(queued: list[str]) -> str:
    if not queued:
        return ""
    return (
        f"<section><h2>Queued to send</h2>{items(queued)}<p>Each is delivered once, by the outbox sender.</p></section>"
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
    klass, text = what_next(view, resumed, now)
    closed = f" on {shop_time(approval.closed_at, view.timezone)}" if approval.closed_at else ""
    parts = [
        note(f"Your decision was not recorded: {problem}" if problem else ""),
        note(notice, "ok"),
        f'<p>Proposal <span class="fp">{escape(fingerprint(approval.proposal_hash))}</span>, '
        f"{escape(status)}{escape(closed)}"
        f"{escape(' by ' + approval.decided_by) if approval.decided_by and status != 'expired' else ''}.</p>",
        f'<p class="note {klass}"><b>What happens next:</b> {escape(text)}</p>',
        _queued(queued or []),
        _votes(view),
        _facts(view, now),
        "<p>You can close this page.</p>",
    ]
    ended = "could not be planned" if revision_failed(approval) else "replaces it"
    title = f"Plan revised: version {approval.successor_version} {ended}" if was_revised(approval) else ""
    return page(title or _TITLES.get(status, "Approval"), "".join(parts))


def render_revised(*, proposal_hash: str, version: int) -> str:
    """A revised version was planned (or, without ``proposal_hash``, is being planned by the workflow: AWS)."""
    made = f'Version {version}: <span class="fp">{escape(fingerprint(proposal_hash))}</span>.' if proposal_hash else ""
    local = "Open your link again: it now shows the new version, and every approver decides on it afresh."
    aws = f"Each approver gets a new link by e-mail when version {version} is ready, and decides on it afresh."
    return page(
        f"Version {version} of the plan {'was' if proposal_hash else 'is being'} made",
        f'<p>The agent plans the request again with your guidance. {made}</p><p class="note ok"><b>What happens '
        f"next:</b> the earlier version can no longer be approved. {local if proposal_hash else aws}</p>",
    )


def render_reproposed(*, proposal_hash: str) -> str:
    """A new plan was proposed on the current shop; the old approval is closed."""
    return page(
        "A new plan was proposed",
        f'<p>The agent planned again on the current shop. New proposal: <span class="fp">'
        f"{escape(fingerprint(proposal_hash))}</span>.</p>"
        '<p class="note ok"><b>What happens next:</b> the earlier plan is closed. Open your link again: it now '
        "shows the new plan, and every approver decides on it afresh.</p>",
    )


def render_neutral() -> str:
    """The one page for links that are not valid (unknown approval, wrong secret, malformed)."""
    return page("Approval link not usable", f"<p>{escape(NEUTRAL_MESSAGE)}</p>")


def render_invalid(detail: str) -> str:
    """The request could not be read: nothing was recorded."""
    return page(
        "Decision not recorded",
        f'<p class="note bad">The form could not be used ({escape(detail)}). Nothing was recorded.</p>',
    )


def render_for_file(view: LinkView, *, now: datetime, status: str) -> str:
    """The page ``show --html`` writes for a person at the laptop: the same summary, timeline and details,
    with ``status`` where the forms would be (a file cannot decide; the link or ``resume`` does)."""
    where = (
        '<p class="note">This copy cannot decide. Approve or reject from your approval link, or with '
        "<code>production-orchestrator resume</code>.</p>"
    )
    stale = _changes(view.changes, False) if view.changes else ""
    parts = [
        note(f"Status: {status}", "ok" if status.startswith(("pending", "approved")) else "bad"),
        render_card(
            view.proposal, view.checkpoint.proposal_hash, deadline=_deadline(view, now), forms=where, extra=stale
        ),
        render_timeline(build_timeline(view.base, view.proposal)),
        _versions(view),
        *_plan(view),
        _facts(view, now),
    ]
    return page("A production plan and its approval", "".join(parts))
