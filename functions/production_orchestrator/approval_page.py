"""The approval pages as HTML strings: confirmation, outcome and the one neutral page.

Pure rendering from domain objects (no strands, no boto3), so the decision Lambda and a local server can
both serve it. Every dynamic value is HTML-escaped. Mail scanners fetch links with GET and HEAD, so the
confirmation page only shows the plan; the form's POST (echoing the hash the human saw) decides.
"""

from __future__ import annotations

from html import escape

from .domain.planning import ProposalContent
from .domain.records import Checkpoint
from .presentation import describe_blockers, describe_plan, fingerprint

# Sent with every page: nothing cached, nothing leaked through a Referer header, no framing, no scripts.
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
    ),
}
CONTENT_TYPE = "text/html; charset=utf-8"

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.45}"
    "code{font-size:.95em}.fp{font-size:1.3em;letter-spacing:.05em}"
    "button{font-size:1rem;padding:.5rem 1.2rem;margin-right:1rem}textarea{width:100%}"
)
NEUTRAL_MESSAGE = (
    "This approval link cannot be used. It may be unknown, it may have expired, or a decision may "
    "already have been recorded. Nothing was changed."
)


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="robots" content="noindex"><title>{escape(title)}</title><style>{_STYLE}</style></head>'
        f"<body><h1>{escape(title)}</h1>{body}</body></html>"
    )


def _items(lines: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def render_confirmation(
    checkpoint: Checkpoint, proposal: ProposalContent, *, approval_id: str, secret: str, approver: str
) -> str:
    """The plan, its fingerprint, provider and expiry, and the form whose POST decides."""
    order = proposal.target_order
    drafts = "".join(
        f"<li><b>{escape(d.audience)}</b> to {escape(d.to)}: {escape(d.subject)}<br>{escape(d.body)}</li>"
        for d in proposal.communication_drafts
    )
    hidden = "".join(
        f'<input type="hidden" name="{name}" value="{escape(value)}">'
        for name, value in (("a", approval_id), ("s", secret), ("reviewed_hash", checkpoint.proposal_hash))
    )
    body = (
        f"<p>Order <b>{escape(order.order_id)}</b> from {escape(order.customer)}: {order.quantity} x "
        f"{escape(order.product_code)}, priority {order.priority}, needed {escape(order.requested_day)}.</p>"
        f"<h2>What blocks it</h2>{_items(describe_blockers(proposal))}"
        f"<h2>The plan</h2>{_items(describe_plan(proposal))}"
        f"<h2>Drafted messages (not sent)</h2><ul>{drafts}</ul>"
        f'<p>Proposal fingerprint: <span class="fp"><code>{escape(fingerprint(checkpoint.proposal_hash))}</code>'
        f"</span><br>Full hash: <code>{escape(checkpoint.proposal_hash)}</code><br>"
        f"Proposed by: {escape(checkpoint.provider_binding.describe())}<br>"
        f"Decide before: {escape(checkpoint.expires_at)}<br>Deciding as: {escape(approver)}</p>"
        f'<form method="post" action="">{hidden}'
        '<p><label for="reason">Reason (optional, shown to the agent and kept in the audit trail)</label><br>'
        '<textarea id="reason" name="reason" rows="3" maxlength="2000"></textarea></p>'
        '<button type="submit" name="decision" value="approve">Approve this exact plan</button>'
        '<button type="submit" name="decision" value="reject">Reject</button></form>'
    )
    return _page("A production plan needs your decision", body)


def render_neutral() -> str:
    """The one page for unknown, expired, used and undeliverable links alike."""
    return _page("Approval link not usable", f"<p>{escape(NEUTRAL_MESSAGE)}</p>")


def render_recorded(*, approved: bool, approver: str, proposal_hash: str) -> str:
    """The decision was recorded and the workflow woken."""
    verdict = "approved" if approved else "rejected"
    return _page(
        f"Plan {verdict}",
        f"<p>Your decision ({verdict}, by {escape(approver)}) on proposal "
        f"<code>{escape(fingerprint(proposal_hash))}</code> was recorded. The plan is verified again "
        "before anything is applied. You can close this page.</p>",
    )


def render_hash_mismatch() -> str:
    """The form named another proposal than the pending one: nothing was recorded."""
    return _page(
        "Decision not recorded",
        "<p>The plan you reviewed is not the plan waiting for a decision. Nothing was recorded. "
        "Open the link from your e-mail again to review the current plan.</p>",
    )


def render_invalid(detail: str) -> str:
    """The form could not be read: nothing was recorded."""
    return _page(
        "Decision not recorded", f"<p>The form could not be used ({escape(detail)}). Nothing was recorded.</p>"
    )
