"""What happens next, for a link whose approval takes no (more) votes from its holder: how it ended, or who acts
now (the other approvers, a fresh resume process, the workflow planning a revised version)."""

from __future__ import annotations

from datetime import datetime

from ..domain.approval.authority import superseded_refusal, was_revised
from ..domain.presentation import shop_time
from ..services.deciding.review import LinkView

_OUTCOMES = {
    "applied": ("ok", "The plan was verified again against the stored evidence and applied, once."),
    "rejected": ("ok", "The agent was told the reason and changed nothing. The shop stays as it was."),
    "not_applied": (
        "bad",
        "The approval was recorded, but the plan did not apply and will not: nothing in the shop changed. "
        "A new run can propose a plan on the current shop.",
    ),
}


def what_next(view: LinkView, resumed: bool, now: datetime) -> tuple[str, str]:
    """How it ended, or what happens next, from the approval and the resume's record: (a note's class, its text)."""
    approval, record = view.approval, view.outcome
    if approval.state(now) == "expired":
        closed = shop_time(approval.closed_at or approval.expires_at, view.timezone)
        return "bad", f"The window closed on {closed}: nothing was approved and nothing changed."
    if was_revised(approval):  # AWS: this link stays version N's; version N+1 comes with new links
        said = superseded_refusal(approval).message
        return "note", f"{said[:1].upper()}{said[1:]}."
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
