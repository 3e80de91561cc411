"""Expire: the workflow stopped waiting (timeout). What it never acted on becomes expired; nothing is approved.

    pending                                   -> expired
    decided | rejected, and no resume claimed -> expired   (the vote came, the workflow never resumed it; woken or
                                                            not: a resend that heard TaskTimedOut after an earlier
                                                            try took it for a wake, but the workflow timed out)
    revision asked, no version planned        -> expired
    decided | rejected, a resume claimed it   -> unchanged (the decision was acted on)

So the approval record, the page and ``status`` say what the workflow did: it ended expired.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...domain.errors import DecisionAlreadyClaimedError
from ...domain.records import audit_event
from ..runtime import Runtime


@dataclass(frozen=True)
class Expire:
    """The workflow stopped waiting for ``checkpoint_id``'s decision."""

    checkpoint_id: str


def expire_approvals(rt: Runtime, cmd: Expire) -> list[str]:
    """Expire every approval of ``checkpoint_id`` the workflow never acted on; return their ids. Never approves."""
    store, approvals, now, checkpoint_id = rt.store, rt.approvals, rt.clock(), cmd.checkpoint_id
    acted_on = store.get_decision(checkpoint_id) is not None
    expired: list[str] = []
    for approval in approvals.approvals_for(checkpoint_id):
        if approval.status == "expired" or (approval.status != "pending" and acted_on):
            continue
        try:
            after = approvals.expire_approval(approval.approval_id, now=now, include_closed=not acted_on)
        except DecisionAlreadyClaimedError:
            continue  # superseded, or decided in the last moment and acted on: that stands
        if after.status != "expired":
            continue
        store.append_audit(
            audit_event(
                "approval_expired",
                now,
                checkpoint_id=checkpoint_id,
                proposal_hash=approval.proposal_hash,
                approval_id=approval.approval_id,
                was=approval.status,
            )
        )
        expired.append(approval.approval_id)
    return expired
