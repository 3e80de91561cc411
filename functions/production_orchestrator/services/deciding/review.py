"""Review: what a link holder sees. A valid link (its secret matches one of the approval's approvers) shows the
approval in whatever state it is: open (the verified plan, and what changed in the shop since it was
proposed), or closed (who decided what, when, on which plan, and how it ended). Only an invalid link gets
nothing. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ...domain.approval.approvals import ApprovalRecord
from ...domain.errors import IntegrityError, ResumeRefusedError
from ...domain.planning.proposal import ProposalContent, load_proposal
from ...domain.ports import ShopStore
from ...domain.records import Checkpoint, DecisionRecord
from ...domain.shop.model import ShopState
from ..evidence import current_approval, proposed_on, review, what_changed
from ..runtime import Runtime


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
    previous: ProposalContent | None = None  # the version this one revised (for its timeline beside this one)

    @property
    def may_approve(self) -> bool:
        """False for the requester under separation of duties: they may only reject."""
        return self.approval.policy.refusal_for(self.approver, True) is None

    def is_open(self, now: datetime) -> bool:
        """The approval still takes votes."""
        return self.approval.is_open(now)


@dataclass(frozen=True)
class Link:
    """What an approver's link names: the approval and the link secret (never logged)."""

    approval_id: str
    secret: str = field(repr=False)


def previous_version(store: ShopStore, proposal: ProposalContent) -> ProposalContent | None:
    """The version ``proposal`` revised, verified on read (None for a first plan, or when it cannot be read)."""
    if proposal.revision is None:
        return None
    data = store.get_proposal(proposal.revision.supersedes)
    try:
        return None if data is None else load_proposal(data, proposal.revision.supersedes)
    except IntegrityError:
        return None


def open_link(rt: Runtime, link: Link) -> LinkView | None:
    """The approval behind a valid link, whatever its state, with its verified plan; None for any other link."""
    return link_view(rt, link, rt.clock())


def link_view(rt: Runtime, link: Link, now: datetime) -> LinkView | None:
    """:func:`open_link` at ``now`` (a decision reads the link and authorizes at one moment)."""
    store = rt.store
    approval = current_approval(rt.approvals, link.approval_id)
    if approval is not None and approval.approver_for(link.secret) is None and approval.approval_id != link.approval_id:
        # A version revised through the workflow (AWS) gave its successor new links: the old link shows the version
        # it was sent for, closed and naming the one that replaced it.
        approval = rt.approvals.get_approval(link.approval_id)
    if approval is None:
        return None
    approver = approval.approver_for(link.secret)
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
        changes=what_changed(store, checkpoint, now) if approval.is_open(now) else None,
        outcome=store.get_decision(approval.checkpoint_id),
        # The shop's time zone, once the shop model carries one; UTC until then.
        timezone=str(getattr(state, "timezone", "") or "UTC"),
        base=proposed_on(store, checkpoint),
        previous=previous_version(store, proposal),
    )
