"""Review: what a link holder sees. A valid link (its secret matches one of the approval's approvers) shows the
approval in whatever state it is: open (the verified plan, and what changed in the shop since it was
proposed), or closed (who decided what, when, on which plan, and how it ended). Only an invalid link gets
nothing. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..domain.approval.approvals import ApprovalRecord
from ..domain.errors import IntegrityError, ResumeRefusedError
from ..domain.planning.proposal import ProposalContent
from ..domain.ports import ApprovalStore, ShopStore
from ..domain.records import Checkpoint, DecisionRecord
from ..domain.shop.changes import describe_changes
from ..domain.shop.model import ShopState
from .evidence import freshness, proposed_on, review

_MAX_CHAIN = 50


def current_approval(approvals: ApprovalStore, approval_id: str) -> ApprovalRecord | None:
    """The approval ``approval_id`` names, or the newest one that replaced it ("propose again" keeps links)."""
    approval = approvals.get_approval(approval_id)
    for _ in range(_MAX_CHAIN):
        if approval is None or not approval.superseded_by:
            return approval
        successor = approvals.get_approval(approval.superseded_by)
        if successor is None:
            return approval  # the successor was never written: the closed approval is what there is
        approval = successor
    return None


def what_changed(store: ShopStore, checkpoint: Checkpoint) -> list[str] | None:
    """None while the plan still applies on the shop (the one staleness rule, ``evidence.freshness``); else
    what changed inside its footprint, or the rule it would break, each as a sentence."""
    current = store.load_state()
    if current is None:
        return None
    _, proposal = review(store, checkpoint.checkpoint_id)
    verdict = freshness(store, checkpoint, proposal)
    if not verdict.stale:
        return None
    lines = [f"{reason[:1].upper()}{reason[1:]}{'' if reason.endswith('.') else '.'}" for reason in verdict.reasons]
    before = proposed_on(store, checkpoint)  # then each change in the shop since, in words
    return lines + [line for line in describe_changes(before, current) if line not in lines] if before else lines


@dataclass(frozen=True)
class LinkView:
    """A valid link: who holds it, the approval as it stands, the verified plan it is about, what changed in
    the shop since (for an open approval) and the resume's record (once a decision was claimed)."""

    approval: ApprovalRecord
    approver: str
    checkpoint: Checkpoint
    proposal: ProposalContent
    changes: list[str] | None = None
    outcome: DecisionRecord | None = None
    timezone: str = "UTC"
    base: ShopState | None = None  # the shop the plan was proposed on (for the before/after timeline)

    @property
    def may_approve(self) -> bool:
        """False for the requester under separation of duties: they may only reject."""
        return self.approval.policy.refusal_for(self.approver, True) is None

    def is_open(self, now: datetime) -> bool:
        """The approval still takes votes."""
        return self.approval.is_open(now)


def open_link(
    store: ShopStore, approvals: ApprovalStore, approval_id: str, secret: str, now: datetime
) -> LinkView | None:
    """The approval behind a valid link, whatever its state, with its verified plan; None for any other link."""
    approval = current_approval(approvals, approval_id)
    if approval is None:
        return None
    approver = approval.approver_for(secret)
    if approver is None:
        return None
    try:
        checkpoint, proposal = review(store, approval.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return None
    if checkpoint.proposal_hash != approval.proposal_hash:
        return None
    state = store.load_state()
    return LinkView(
        approval=approval,
        approver=approver,
        checkpoint=checkpoint,
        proposal=proposal,
        changes=what_changed(store, checkpoint) if approval.is_open(now) else None,
        outcome=store.get_decision(approval.checkpoint_id),
        # The shop's time zone, once the shop model carries one; UTC until then.
        timezone=str(getattr(state, "timezone", "") or "UTC"),
        base=proposed_on(store, checkpoint),
    )
