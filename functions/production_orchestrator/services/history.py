"""History: who decided what, when and why, read from the audit trail (and the votes' reasons from the
approval records, which keep them). Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..domain.approval.approvals import ApprovalRecord
from ..domain.ports import ApprovalStore
from ..domain.records import AuditEvent
from .runtime import Runtime

# The events a decision's story is told by, and what each is called in the history.
DECISION_EVENTS = {
    "approval_requested": "requested",
    "revision_asked": "asked",  # AWS: a revision asked on the page, before the workflow plans it
    "revision_not_planned": "not planned",
    "plan_revised": "revised",
    "approval_created": "requested",
    "approval_vote": "vote",
    "decision_recorded": "decision",
    "decision_claim_taken_over": "takeover",
    "plan_applied": "applied",
    "plan_rejected": "rejected",
    "approval_expired": "expired",
    "approval_superseded": "superseded",
    "approval_relinked": "relinked",
    "approval_reminded": "reminded",
    "approval_escalated": "escalated",
    "approval_mail_sent": "e-mailed",
    "approval_mail_void": "not e-mailed",
}


@dataclass(frozen=True)
class HistoryEntry:
    """One step of a decision's story."""

    at: str
    event: str
    checkpoint_id: str
    approval_id: str = ""
    approver: str = ""
    decision: str = ""  # approve | reject | ""
    reason: str = ""
    note: str = ""


def _verdict(detail: dict[str, Any]) -> str:
    approved = detail.get("approved")
    return "" if approved is None else ("approve" if approved else "reject")


def _vote_reason(approvals: ApprovalStore, approval_id: str, approver: str, cache: dict[str, Any]) -> str:
    """The reason ``approver`` gave on ``approval_id`` (the audit event keeps only the verdict)."""
    if approval_id not in cache:
        cache[approval_id] = approvals.get_approval(approval_id)
    record: ApprovalRecord | None = cache[approval_id]
    for vote in record.votes if record else ():
        if vote.decision.approver == approver:
            return vote.decision.reason
    return ""


def _note(kind: str, detail: dict[str, Any]) -> str:
    if kind == "approval_requested":
        replaces = f"; replaces approval {detail['supersedes']}" if detail.get("supersedes") else ""
        return f"open until {detail.get('expires_at', '?')}{replaces}"
    if kind == "plan_revised":
        asked = "; ".join(str(line) for line in detail.get("guidance", ()))
        changed = "; ".join(str(line) for line in detail.get("changes", ()))
        return (
            f"version {detail.get('version', '?')} by {detail.get('revised_by', '?')}, replaces approval "
            f"{detail.get('supersedes', '?')}; asked: {asked}; changed: {changed}; open until "
            f"{detail.get('expires_at', '?')}"
        )
    if kind.startswith("revision_"):
        return _revision_note(kind, detail)
    if kind == "approval_vote":
        return f"approval {detail.get('status', '?')}"
    if kind == "decision_claim_taken_over":
        return f"attempt {detail.get('attempt', '?')} after pid {detail.get('previous_pid', '?')}"
    if kind == "approval_reminded":
        return f"reminder at {detail.get('point', '?')}"
    if kind == "approval_escalated":
        return f"backups added: {', '.join(detail.get('added', [])) or 'none new'}"
    if kind in ("approval_mail_sent", "approval_mail_void"):
        return f"{detail.get('mail', '?')}: {detail.get('transport_id') or detail.get('reason', '')}"
    if kind == "approval_superseded":  # trails written before "propose again" noted it on the new request
        return f"replaced by {detail.get('new_checkpoint_id', '?')}"
    return ""


def _revision_note(kind: str, detail: dict[str, Any]) -> str:
    """AWS: a revision asked on the page, and (when it came to that) why the workflow could not plan it."""
    if kind == "revision_not_planned":
        return f"version {detail.get('version', '?')} could not be planned: start the request again"
    asked = "; ".join(str(line) for line in detail.get("guidance", ()))
    return f"version {detail.get('version', '?')} asked of approval {detail.get('approval_id', '?')}: {asked}"


def _entry(event: AuditEvent, approvals: ApprovalStore, cache: dict[str, Any]) -> HistoryEntry:
    detail = event.detail
    approval_id = str(detail.get("approval_id", ""))
    approver = str(detail.get("approver") or detail.get("revised_by") or "")
    reason = str(detail.get("reason", ""))
    if event.event_type == "approval_vote" and not reason:
        reason = _vote_reason(approvals, approval_id, approver, cache)
    return HistoryEntry(
        at=event.at,
        event=DECISION_EVENTS[event.event_type],
        checkpoint_id=event.checkpoint_id,
        approval_id=approval_id,
        approver=approver,
        decision=_verdict(detail),
        reason=reason,
        note=_note(event.event_type, detail),
    )


@dataclass(frozen=True)
class HistoryQuery:
    """Which steps ``history`` tells: of one checkpoint (None: all), the latest ``limit`` (None or 0: all) at or
    after ``since`` (an ISO day or timestamp; None: any)."""

    checkpoint_id: str | None = None
    limit: int | None = None
    since: str | None = None


def history_page(rt: Runtime, query: HistoryQuery) -> tuple[list[HistoryEntry], int]:
    """The steps ``query`` picks, oldest first, and how many steps match it in all: the store's audit index reads
    the decision events asked for, not the whole trail."""
    cache: dict[str, Any] = {}
    events, total = rt.store.audit_events_of(
        DECISION_EVENTS, checkpoint_id=query.checkpoint_id, limit=query.limit, since=query.since
    )
    # The index names the type; the event read names it too (a row edited by hand tells its own story).
    picked = [e for e in events if e.event_type in DECISION_EVENTS and query.checkpoint_id in (None, e.checkpoint_id)]
    return [_entry(event, rt.approvals, cache) for event in picked], total


def history(rt: Runtime, checkpoint_id: str | None = None) -> list[HistoryEntry]:
    """Every request, vote, decision and outcome in the audit trail, oldest first (of one checkpoint, if given)."""
    return history_page(rt, HistoryQuery(checkpoint_id))[0]
