"""Review: what a link holder sees. A valid, open link shows the verified plan (and what changed in the shop
since it was proposed); any other link gets nothing. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..domain.approvals import ApprovalRecord
from ..domain.canonical import sha256_hex
from ..domain.errors import IntegrityError, ResumeRefusedError
from ..domain.planning import ProposalContent
from ..domain.ports import ApprovalStore, ShopStore
from ..domain.records import Checkpoint, parse_utc
from ..domain.shop import ShopState
from ..domain.statediff import describe_changes
from .evidence import review


def current_approval(approvals: ApprovalStore, approval_id: str) -> ApprovalRecord | None:
    """The approval ``approval_id`` names, or the one that superseded it ("propose again" keeps links)."""
    approval = approvals.get_approval(approval_id)
    for _ in range(20):
        if approval is None or not approval.superseded_by:
            return approval
        approval = approvals.get_approval(approval.superseded_by)
    return None


def what_changed(store: ShopStore, checkpoint: Checkpoint) -> list[str] | None:
    """None while the shop is as it was when the plan was proposed; else each change since, in words."""
    current = store.load_state()
    if current is None or current.digest() == checkpoint.domain_digest:
        return None
    data = store.get_state_snapshot(checkpoint.domain_digest)
    if data is None or sha256_hex(data) != checkpoint.domain_digest:
        return ["The shop changed since this plan was proposed (the state it was proposed on is not on record)."]
    return describe_changes(ShopState.model_validate_json(data), current)


@dataclass(frozen=True)
class LinkView:
    """An open link: who holds it, the verified plan it is about, and what changed since (if anything)."""

    approval: ApprovalRecord
    approver: str
    checkpoint: Checkpoint
    proposal: ProposalContent
    changes: list[str] | None = None

    @property
    def may_approve(self) -> bool:
        """False for the requester under separation of duties: they may only reject."""
        return self.approval.refusal_for(self.approver, True) is None


def open_link(
    store: ShopStore, approvals: ApprovalStore, approval_id: str, secret: str, now: datetime
) -> LinkView | None:
    """The plan behind a valid, pending, unexpired link not yet used; None for any other link. Reads only."""
    approval = current_approval(approvals, approval_id)
    if approval is None:
        return None
    approver = approval.approver_for(secret)
    if approver is None or approval.status != "pending" or now >= parse_utc(approval.expires_at):
        return None
    if approval.has_voted(approver) or store.get_decision(approval.checkpoint_id) is not None:
        return None
    try:
        checkpoint, proposal = review(store, approval.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return None
    if checkpoint.proposal_hash != approval.proposal_hash:
        return None
    return LinkView(
        approval=approval,
        approver=approver,
        checkpoint=checkpoint,
        proposal=proposal,
        changes=what_changed(store, checkpoint),
    )


def open_stale(
    store: ShopStore, approvals: ApprovalStore, approval_id: str, secret: str, now: datetime
) -> LinkView | None:
    """A valid link whose plan was refused as stale (or is stale now): what may be proposed again. Reads only."""
    approval = current_approval(approvals, approval_id)
    if approval is None or approval.status == "expired" or now >= parse_utc(approval.expires_at):
        return None
    approver = approval.approver_for(secret)
    if approver is None or store.get_decision(approval.checkpoint_id) is not None:
        return None
    try:
        checkpoint, proposal = review(store, approval.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return None
    changes = what_changed(store, checkpoint)
    if changes is None:
        return None
    return LinkView(approval=approval, approver=approver, checkpoint=checkpoint, proposal=proposal, changes=changes)
