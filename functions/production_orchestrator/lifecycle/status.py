"""Status: every approval as an operator sees it, and how long the open ones have waited. Reads only."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from ..domain.ports import ApprovalStore, ShopStore
from ..domain.records import Checkpoint, parse_utc
from ..domain.verification import Refusal, read_checkpoint
from .evidence import current_state


@dataclass(frozen=True)
class CheckpointStatus:
    """One approval as an operator sees it."""

    checkpoint_id: str
    status: str  # pending | resuming | approved | rejected | expired | invalid
    proposal_hash: str
    target_order_id: str
    created_at: str
    expires_at: str
    approver: str


def stored_checkpoints(store: ShopStore) -> list[tuple[str, Checkpoint | Refusal]]:
    """Every stored checkpoint (the id it claims, and what the one seal-checking reader made of it)."""
    found: list[tuple[str, Checkpoint | Refusal]] = []
    for raw in store.list_checkpoints():
        try:
            claimed_id = str(json.loads(raw).get("checkpoint_id", ""))
        except (ValueError, AttributeError):
            claimed_id = ""
        found.append((claimed_id, read_checkpoint(raw, claimed_id)))
    return found


def _label(store: ShopStore, checkpoint: Checkpoint, now: datetime) -> tuple[str, str]:
    record = store.get_decision(checkpoint.checkpoint_id)
    if record is None:
        return ("expired" if now >= parse_utc(checkpoint.expires_at) else "pending"), ""
    label = "approved" if record.decision.approved else "rejected"
    if not record.is_complete():
        label = "resuming"  # claimed, outcome not yet recorded (in progress, or died: re-run it)
    return label, record.decision.approver


def status(store: ShopStore, now: datetime) -> dict[str, Any]:
    """The shop's revision and digest, plan applications, and every approval with its status."""
    state = current_state(store)
    rows: list[CheckpointStatus] = []
    for claimed_id, checkpoint in stored_checkpoints(store):
        if isinstance(checkpoint, Refusal):
            rows.append(CheckpointStatus(claimed_id or "?", "invalid", "", "", "", "", ""))
            continue
        label, approver = _label(store, checkpoint, now)
        rows.append(
            CheckpointStatus(
                checkpoint_id=checkpoint.checkpoint_id,
                status=label,
                proposal_hash=checkpoint.proposal_hash,
                target_order_id=checkpoint.target_order_id,
                created_at=checkpoint.created_at,
                expires_at=checkpoint.expires_at,
                approver=approver,
            )
        )
    return {
        "scenario": state.scenario,
        "revision": state.revision,
        "domain_digest": state.digest(),
        "plan_applied_count": store.application_count(),
        "approvals": [asdict(row) for row in rows],
    }


def pending_approval_ages(store: ShopStore, approvals: ApprovalStore, now: datetime) -> list[int]:
    """Seconds each approval that still waits for a person (pending, window open) has waited, oldest first.

    Step Functions has no metric for how long a callback task has been parked; this is what the operator's
    "oldest pending approval" alarm is fed from.
    """
    ages: list[int] = []
    for _, checkpoint in stored_checkpoints(store):
        if isinstance(checkpoint, Refusal):
            continue  # an unreadable checkpoint is the resume gate's to report, not this gauge's
        for approval in approvals.approvals_for(checkpoint.checkpoint_id):
            if approval.status == "pending" and now < parse_utc(approval.expires_at):
                ages.append(max(0, int((now - parse_utc(approval.created_at)).total_seconds())))
    return sorted(ages, reverse=True)


# What a checkpoint's approval says, for checkpoints no resume has claimed yet (the claim says more).
_UNCLAIMED = {"decided": "decided", "rejected": "rejected", "superseded": "superseded", "expired": "expired"}


def label_by_approval(report: dict[str, Any], approvals: ApprovalStore) -> None:
    """Relabel ``report``'s pending and expired rows by their approval: decided (waiting for its resume),
    rejected, superseded or expired; ``no_approval`` for a checkpoint no approval governs (never approvable)."""
    for row in report["approvals"]:
        if row["status"] not in ("pending", "expired"):
            continue
        found = approvals.approvals_for(row["checkpoint_id"])
        if not found:
            row["status"] = "no_approval"
            continue
        row["status"] = _UNCLAIMED.get(found[-1].status, row["status"])
        row["approver"] = row["approver"] or found[-1].decided_by
