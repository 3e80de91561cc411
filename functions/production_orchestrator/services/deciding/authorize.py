"""Authorize: every path that can decide asks :func:`domain.approval.authority.authorize` through here, with the
approval record read from the store, the shop's freshness and the clock. Reads only; strands-free.

    page POST ----------> authorize(approval, Ask("link", ...))     -> CastVote | ResumeRecorded | refusal
    CLI resume ---------> authorize(approval, Ask("cli", ...))      -> CastVote | ResumeRecorded | refusal
    resume-approval, resume Lambda -> authorize(approval, Ask("workflow", ...)) -> ResumeRecorded | refusal
                                       + every vote's receipt verifies (RECEIPT_INVALID)

A refusal is raised as ``ResumeRefusedError`` with nothing written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ...domain.approval.approvals import ApprovalRecord, Vote
from ...domain.approval.authority import Ask, CastVote, ResumeRecorded, authorize
from ...domain.approval.policy import identity
from ...domain.approval.receipts import check_receipt, make_receipt
from ...domain.approval.verification import Refusal
from ...domain.errors import IntegrityError, RefusalCode, ResumeRefusedError
from ...domain.ports import MacKey
from ...domain.records import Checkpoint, Decision, audit_event, utc_iso
from ..evidence import freshness, load_checkpoint, review
from ..runtime import Runtime


def identities(names: Iterable[str] | None) -> frozenset[str] | None:
    """A configured approver list in the one comparable form (None: no list configured)."""
    return None if names is None else frozenset(identity(name) for name in names)


def governing_approval(rt: Runtime, checkpoint_id: str) -> ApprovalRecord | None:
    """The approval that governs ``checkpoint_id``: the one requested for it (the latest, should there be more)."""
    found = rt.approvals.approvals_for(checkpoint_id)
    return found[-1] if found else None


def stale_reasons(rt: Runtime, checkpoint: Checkpoint) -> tuple[str, ...]:
    """Why the plan may no longer apply on the shop as stored (the one rule: ``evidence.freshness``); empty
    while it still applies."""
    store = rt.store
    try:
        _, proposal = review(store, checkpoint.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return ()  # not a freshness question: the resume gate refuses the proposal itself (PROPOSAL_INTEGRITY)
    verdict = freshness(store, checkpoint, proposal, rt.clock())
    return verdict.reasons if verdict.stale else ()


def authorized(approval: ApprovalRecord | None, ask: Ask, now: datetime) -> CastVote | ResumeRecorded:
    """The policy's go, or its refusal raised."""
    verdict = authorize(approval, ask, now)
    if isinstance(verdict, Refusal):
        raise verdict.error()
    return verdict


def check_receipts(approval: ApprovalRecord, checkpoint: Checkpoint, mac_key: MacKey | None) -> None:
    """Every vote's receipt verifies under ``mac_key`` and describes its vote (``RECEIPT_INVALID``)."""
    if mac_key is None:
        return
    for vote in approval.votes:
        problem = check_receipt(vote.receipt, mac_key, checkpoint=checkpoint, decision=vote.decision)
        if problem is not None:
            raise ResumeRefusedError(RefusalCode.RECEIPT_INVALID, problem)


@dataclass(frozen=True)
class ReadDecision:
    """Which decision to read back: the one ``approval_id`` holds for ``checkpoint_id`` (``allowed``: the
    configuration's approver list, when it names one)."""

    checkpoint_id: str
    approval_id: str
    allowed: Iterable[str] | None = None


def recorded_decision(rt: Runtime, cmd: ReadDecision) -> Decision:
    """The decision ``approval_id`` holds for ``checkpoint_id``, if the policy lets it proceed and every
    receipt verifies; else ``ResumeRefusedError``. The resume-approval and resume Lambda path."""
    checkpoint_id, approval_id = cmd.checkpoint_id, cmd.approval_id
    approval = rt.approvals.get_approval(approval_id)
    if approval is None or approval.checkpoint_id != checkpoint_id:
        raise ResumeRefusedError(
            RefusalCode.CHECKPOINT_INVALID, f"approval {approval_id} is not an approval of checkpoint {checkpoint_id}"
        )
    checkpoint = load_checkpoint(rt.store, checkpoint_id)
    decision = approval.decision
    ask = Ask(
        "workflow",
        approved=bool(decision and decision.approved),
        reviewed_hash=decision.reviewed_hash if decision else "",
        allowed=identities(cmd.allowed),
    )
    check_receipts(approval, checkpoint, rt.receipt_key)  # a vote altered in storage is named as such, first
    go = authorized(approval, ask, rt.clock())
    assert isinstance(go, ResumeRecorded)  # a workflow ask never casts a vote
    return go.decision


@dataclass(frozen=True)
class RecordVote:
    """An authorized vote to record on ``approval`` (``via``: the path it came by, ``link`` or ``cli``)."""

    approval: ApprovalRecord
    checkpoint: Checkpoint
    decision: Decision
    via: str


def cast_vote(rt: Runtime, cmd: RecordVote) -> ApprovalRecord:
    """Record an authorized vote with its receipt (the store re-checks the record it writes on) and audit it."""
    approval, checkpoint, decision, now = cmd.approval, cmd.checkpoint, cmd.decision, rt.clock()
    mac_key = rt.receipt_key
    receipt = None if mac_key is None else make_receipt(checkpoint, decision, mac_key, approval_id=approval.approval_id)
    recorded = rt.approvals.record_approval_vote(
        approval.approval_id, Vote(decision=decision, receipt=receipt), now=now
    )
    rt.store.append_audit(
        audit_event(
            "approval_vote",
            now,
            session_id=checkpoint.session_id,
            checkpoint_id=checkpoint.checkpoint_id,
            proposal_hash=recorded.proposal_hash,
            approval_id=approval.approval_id,
            approver=decision.approver,
            approved=decision.approved,
            via=cmd.via,
            receipt=None if receipt is None else receipt.model_dump(mode="json"),
            status=recorded.status,
        )
    )
    return recorded


def new_decision(approved: bool, reviewed_hash: str, approver: str, reason: str, now: datetime) -> Decision:
    """The decision object a vote carries (and, once it decides, the interrupt response)."""
    return Decision(
        approved=approved,
        reviewed_hash=reviewed_hash,
        approver=identity(approver),
        reason=reason,
        decided_at=utc_iso(now),
    )
