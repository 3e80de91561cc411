"""The reads every service shares: the shop, the sealed checkpoint, the plan, the approval (no strands).

``load_checkpoint`` is the only way a step reads a checkpoint: the id is checked before it addresses
anything, the seal is checked before any field is trusted, and a problem is a ``ResumeRefusedError``.
"""

from __future__ import annotations

from datetime import datetime

from ..domain.approval.approvals import ApprovalRecord
from ..domain.approval.verification import Refusal, read_checkpoint
from ..domain.canonical import sha256_hex
from ..domain.errors import RefusalCode, ResumeRefusedError, ShopError
from ..domain.planning.application import Verdict, judge
from ..domain.planning.proposal import ProposalContent, load_proposal
from ..domain.planning.still_holds import judged_today
from ..domain.ports import ApprovalStore, ShopStore
from ..domain.records import CHECKPOINT_ID_PATTERN, Checkpoint, parse_utc, require_id
from ..domain.shop.changes import describe_changes
from ..domain.shop.model import ShopState


def current_state(store: ShopStore) -> ShopState:
    """The shop as stored now; a data dir or table without one is a ``ShopError``."""
    state = store.load_state()
    if state is None:
        raise ShopError("this data dir holds no shop yet; run start first")
    return state


def load_checkpoint(store: ShopStore, checkpoint_id: str) -> Checkpoint:
    """The sealed checkpoint ``checkpoint_id``; ``ResumeRefusedError(CHECKPOINT_INVALID)`` otherwise."""
    require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
    checkpoint = read_checkpoint(store.get_checkpoint(checkpoint_id), checkpoint_id)
    if isinstance(checkpoint, Refusal):
        raise checkpoint.error()
    return checkpoint


def review(store: ShopStore, checkpoint_id: str) -> tuple[Checkpoint, ProposalContent]:
    """The checkpoint and its verified proposal: exactly what a human reviews."""
    checkpoint = load_checkpoint(store, checkpoint_id)
    data = store.get_proposal(checkpoint.proposal_hash)
    if data is None:
        raise ResumeRefusedError(RefusalCode.PROPOSAL_INTEGRITY, f"proposal {checkpoint.proposal_hash} is missing")
    return checkpoint, load_proposal(data, checkpoint.proposal_hash)


def proposed_on(store: ShopStore, checkpoint: Checkpoint) -> ShopState | None:
    """The shop the plan was proposed on, as start kept it (None when not on record or not intact)."""
    data = store.get_state_snapshot(checkpoint.domain_digest)
    if data is None or sha256_hex(data) != checkpoint.domain_digest:
        return None
    return ShopState.model_validate_json(data)


def freshness(
    store: ShopStore, checkpoint: Checkpoint, proposal: ProposalContent, now: datetime | None = None
) -> Verdict:
    """The one staleness rule (:func:`domain.planning.application.judge`) on the shop as stored now, on ``now``'s
    day in the shop (None: time is not judged, only what changed).

    Every path that decides or shows "stale" asks here: the page, the CLI resume, resume-approval, the resume
    Lambda (through the resume gate, which judges with the same function), status and review.
    """
    current = current_state(store)
    today = None if now is None else judged_today(current, parse_utc(checkpoint.created_at), now)
    verdict = judge(current, proposal, today=today)
    if verdict.stale and not verdict.by_time:  # the snapshot only names what changed
        return judge(current, proposal, proposed_on(store, checkpoint), today)
    return verdict


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


def what_changed(store: ShopStore, checkpoint: Checkpoint, now: datetime | None = None) -> list[str] | None:
    """None while the plan still applies on the shop on ``now`` (the one staleness rule, ``evidence.freshness``);
    else what no longer holds (the order, rule or promise, or the day that passed), each as a sentence, then
    each change of the shop since the plan was made."""
    current = store.load_state()
    if current is None:
        return None
    _, proposal = review(store, checkpoint.checkpoint_id)
    verdict = freshness(store, checkpoint, proposal, now)
    if not verdict.stale:
        return None
    lines = [f"{reason[:1].upper()}{reason[1:]}{'' if reason.endswith('.') else '.'}" for reason in verdict.reasons]
    before = proposed_on(store, checkpoint)  # then each change in the shop since, in words
    return lines + [line for line in describe_changes(before, current) if line not in lines] if before else lines
