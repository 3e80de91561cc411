"""Status: every approval as an operator sees it, and how long the open ones have waited. Reads only."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from ..domain.approval.authority import was_revised
from ..domain.approval.verification import Refusal, read_checkpoint
from ..domain.errors import IntegrityError, ResumeRefusedError
from ..domain.planning.proposal import load_proposal
from ..domain.planning.versions import version_changes
from ..domain.ports import ApprovalStore, ShopStore
from ..domain.presentation import shop_zone
from ..domain.records import Checkpoint, parse_utc
from .evidence import current_state, review, what_changed
from .runtime import Runtime


@dataclass(frozen=True)
class CheckpointStatus:
    """One approval as an operator sees it."""

    checkpoint_id: str
    status: (
        str  # pending | stale | decided | resuming | approved | rejected | expired | superseded | no_approval | invalid
    )
    proposal_hash: str
    target_order_id: str
    created_at: str
    expires_at: str
    approver: str
    # A pending plan that would no longer apply on the shop (the one staleness rule): reject or propose again.
    stale: bool = False
    # A pending plan the shop moved under: each change since it was proposed (status "stale").
    changes: tuple[str, ...] = ()
    # Every vote recorded on the governing approval, in order: {approver, approved, at, reason}.
    votes: tuple[dict[str, Any], ...] = ()
    # The plan's version (1: the request's first plan), the proposal it supersedes, who revised it and what
    # changed since the version before (moves, purchases, overtime, facts, the on-time verdict).
    version: int = 1
    supersedes: str = ""
    revised_by: str = ""
    version_changes: tuple[str, ...] = ()
    # The version that replaced this one, when a revision did: {version, proposal_hash, approval_id}.
    superseded_by: dict[str, Any] | None = None


def plan_version(rt: Runtime, checkpoint: Checkpoint) -> dict[str, Any]:
    """The version fields of :class:`CheckpointStatus` for ``checkpoint`` (empty for an unrevised first plan
    whose proposal cannot be read: the resume gate names that)."""
    try:
        _, proposal = review(rt.store, checkpoint.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return {}
    found = rt.approvals.approvals_for(checkpoint.checkpoint_id)
    replaced = found[-1] if found and was_revised(found[-1]) else None
    fields: dict[str, Any] = {"version": proposal.version}
    if replaced is not None:
        fields["superseded_by"] = {
            "version": replaced.successor_version,
            "proposal_hash": replaced.successor_hash,
            "approval_id": replaced.superseded_by,  # "" while the workflow plans it (AWS)
            "not_planned": replaced.revision_asked.not_planned if replaced.revision_asked else "",
        }
    revision = proposal.revision
    if revision is None:
        return fields
    before = rt.store.get_proposal(revision.supersedes)
    changes = version_changes(load_proposal(before, revision.supersedes), proposal) if before is not None else []
    fields.update(supersedes=revision.supersedes, revised_by=revision.given_by, version_changes=tuple(changes))
    return fields


def _claimed(raw: str, field: str) -> str:
    try:
        return str(json.loads(raw).get(field, ""))
    except (ValueError, AttributeError):
        return ""


def stored_checkpoints(rt: Runtime) -> list[tuple[str, Checkpoint | Refusal]]:
    """Every stored checkpoint (the id it claims, and what the one seal-checking reader made of it)."""
    return _read(rt.store.list_checkpoints())


def open_checkpoints(rt: Runtime) -> list[tuple[str, Checkpoint | Refusal]]:
    """The checkpoints of the runs that may still be open now (the store's index of open runs, a superset: judge
    each), as :func:`stored_checkpoints` reads them."""
    return _read(rt.store.open_checkpoints(rt.clock()))


def _read(raws: list[str]) -> list[tuple[str, Checkpoint | Refusal]]:
    return [(_claimed(raw, "checkpoint_id"), read_checkpoint(raw, _claimed(raw, "checkpoint_id"))) for raw in raws]


@dataclass(frozen=True)
class StatusQuery:
    """Which runs ``status`` shows: the latest ``limit`` (None or 0: all) created on or after ``since`` (an ISO day or
    timestamp; None: any). Only the runs shown are judged (decision, approvals, staleness)."""

    limit: int | None = 100
    since: str | None = None


def _chosen(rt: Runtime, query: StatusQuery) -> tuple[list[tuple[str, Checkpoint | Refusal]], int]:
    """The runs ``query`` picks, oldest first, and how many runs are stored."""
    picked, total = rt.store.recent_checkpoints(query.limit, query.since)
    return _read(picked), total


def checkpoint_status(rt: Runtime, checkpoint: Checkpoint, now: datetime) -> tuple[str, str]:
    """The approval's status (pending, decided, resuming, approved, rejected, expired, superseded) and who
    decided.

    Until a resume claims it, the approval record says what happened: ``decided`` (the
    quorum approved, the resume has not run yet), ``rejected``, ``superseded`` (replaced by "propose again"),
    ``expired``, or ``no_approval`` for a checkpoint no approval governs (never approvable).
    """
    record = rt.store.get_decision(checkpoint.checkpoint_id)
    if record is None:
        window = "expired" if now >= parse_utc(checkpoint.expires_at) else "pending"
        found = rt.approvals.approvals_for(checkpoint.checkpoint_id)
        if not found:
            return "no_approval", ""
        governing = found[-1]
        return (window if governing.status == "pending" else governing.status), governing.decided_by
    label = "approved" if record.decision.approved else "rejected"
    if not record.is_complete():
        label = "resuming"  # claimed, outcome not yet recorded (in progress, or died: re-run it)
    return label, record.decision.approver


def _changes(store: ShopStore, checkpoint: Checkpoint, now: datetime) -> list[str]:
    """What makes a pending plan stale under the one staleness rule, in words ([] while it still applies)."""
    try:
        return what_changed(store, checkpoint, now) or []
    except (ResumeRefusedError, IntegrityError):
        return []  # the resume gate names that (PROPOSAL_INTEGRITY); it is not a freshness question


def _votes(approvals: ApprovalStore, checkpoint_id: str) -> tuple[dict[str, Any], ...]:
    found = approvals.approvals_for(checkpoint_id)
    if not found:
        return ()
    return tuple(
        {
            "approver": v.decision.approver,
            "approved": v.decision.approved,
            "at": v.decision.decided_at,
            "reason": v.decision.reason,
        }
        for v in found[-1].votes
    )


def status(rt: Runtime, query: StatusQuery | None = None) -> dict[str, Any]:
    """The shop's revision and digest, plan applications, and the approvals ``query`` picks (default: the latest
    100) with their status; ``runs_total`` counts every stored run."""
    store, approvals, now = rt.store, rt.approvals, rt.clock()
    state = current_state(store)
    rows: list[CheckpointStatus] = []
    chosen, total = _chosen(rt, query or StatusQuery())
    for claimed_id, checkpoint in chosen:
        if isinstance(checkpoint, Refusal):
            rows.append(CheckpointStatus(claimed_id or "?", "invalid", "", "", "", "", ""))
            continue
        label, approver = checkpoint_status(rt, checkpoint, now)
        changes = _changes(store, checkpoint, now) if label == "pending" else []
        rows.append(
            CheckpointStatus(
                checkpoint_id=checkpoint.checkpoint_id,
                proposal_hash=checkpoint.proposal_hash,
                target_order_id=checkpoint.target_order_id,
                created_at=checkpoint.created_at,
                expires_at=checkpoint.expires_at,
                approver=approver,
                stale=bool(changes),
                status="stale" if changes else label,
                changes=tuple(changes),
                votes=_votes(approvals, checkpoint.checkpoint_id),
                **plan_version(rt, checkpoint),
            )
        )
    return {
        "timezone": shop_zone(state),
        "scenario": state.name,
        "shop": state.name,
        "revision": state.revision,
        "domain_digest": state.digest(),
        "plan_applied_count": store.application_count(),
        "approvals": [asdict(row) for row in rows],
        "runs_total": total,
        # Requests held for a person (needs facts; a possible duplicate of the run named), one indexed read.
        "held": [
            {
                "held_id": h.held_id,
                "kind": h.kind,
                "sender": h.sender,
                "about": h.about,
                "duplicate_of": h.duplicate_of,
                "missing": list(h.missing),
                "why": h.why,
            }
            for h in store.held_requests()
            if h.is_open
        ],
        # The applied plans' messages by delivery status (outbox list shows each one).
        "messages": dict(sorted(Counter(m.status for m in store.outbox_messages() if m.is_plan).items())),
    }


def pending_approval_ages(rt: Runtime) -> list[int]:
    """Seconds each approval that still waits for a person (pending, window open) has waited, oldest first.

    Step Functions has no metric for how long a callback task has been parked; this is what the operator's
    "oldest pending approval" alarm is fed from.
    """
    now = rt.clock()
    ages: list[int] = []
    for _, checkpoint in open_checkpoints(rt):
        if isinstance(checkpoint, Refusal):
            continue  # an unreadable checkpoint is the resume gate's to report, not this gauge's
        for approval in rt.approvals.approvals_for(checkpoint.checkpoint_id):
            if approval.status == "pending" and now < parse_utc(approval.expires_at):
                ages.append(max(0, int((now - parse_utc(approval.created_at)).total_seconds())))
    return sorted(ages, reverse=True)
