"""Remind: nudge the approvers an open approval still waits for, and add the backup approvers when it has waited
too long. Safe to run at any moment, as often as wanted (cron every minute, or ``serve`` while it runs).

    for each open approval:
      escalation due, not done  -> backups (each a fresh link secret) added to who is asked, once; audited
      a backup whose link did not go out (crash) -> a fresh secret, then their link   (as request_approval)
      the latest reminder point that has come -> each asked approver who has not voted:
           claim <point>|<approver> (conditional write, lease) -> send -> mark sent; audited

Exactly once per reminder like the outbox: racing runs serialize on the claim, and a run that dies after the
claim leaves it to the next once the lease has passed. The one at-least-once window is a crash after the
send and before the mark. A reminder carries no link (no secret is kept to put in one): it names the plan
and points at the first message, or at ``approvals relink``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..domain.approval.approvals import ApprovalRecord, ApproverLink, hash_link_secret
from ..domain.approval.reminders import ReminderSchedule
from ..domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError
from ..domain.ports import ApprovalMessage, ApprovalNotifier, ApprovalStore, ShopStore
from ..domain.presentation import fingerprint, shop_time, shop_zone, time_left
from ..domain.records import audit_event, utc_iso
from .evidence import review
from .request_approval import approval_link, message_for

REMINDER_LEASE = timedelta(minutes=2)


@dataclass
class RemindReport:
    """What one run did: reminders sent (approval, point, approver), backups added, backup links sent."""

    reminded: list[tuple[str, str, str]] = field(default_factory=list)
    escalated: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    links_sent: list[tuple[str, str]] = field(default_factory=list)


def _audit(store: ShopStore, kind: str, record: ApprovalRecord, now: datetime, **detail: Any) -> None:
    store.append_audit(
        audit_event(
            kind,
            now,
            checkpoint_id=record.checkpoint_id,
            proposal_hash=record.proposal_hash,
            approval_id=record.approval_id,
            **detail,
        )
    )


def _escalate(
    store: ShopStore, approvals: ApprovalStore, record: ApprovalRecord, schedule: ReminderSchedule, now: datetime
) -> tuple[ApprovalRecord, dict[str, str]]:
    """Add the backups once; the secrets of the links this run stored (none when another run won)."""
    fresh = {b: secrets.token_urlsafe(32) for b in schedule.backups if b not in record.policy.approvers}
    links = tuple(ApproverLink(approver=b, secret_hash=hash_link_secret(s)) for b, s in fresh.items())
    after = approvals.record_escalation(record.approval_id, links, now=now)
    mine = {b: s for b, s in fresh.items() if after.approver_for(s) == b}  # the links this run stored
    if mine or (not fresh and after.escalated_at == utc_iso(now)):  # a racing run audits its own, not ours
        _audit(store, "approval_escalated", after, now, added=sorted(mine), asked=list(after.policy.approvers))
    return after, mine


def _send_backup_links(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    record: ApprovalRecord,
    secrets_now: dict[str, str],
    link_base: str,
    backups: tuple[str, ...],
) -> tuple[ApprovalRecord, list[str]]:
    """Each asked approver whose link never went out gets one (a fresh secret if this run does not hold it)."""
    sent: list[str] = []
    checkpoint, proposal = review(store, record.checkpoint_id)
    for approver in record.policy.approvers:
        if approver in record.notified or approver not in backups or record.status != "pending":
            continue
        secret = secrets_now.get(approver) or secrets.token_urlsafe(32)
        notifier.notify(
            message_for(
                checkpoint, proposal, record.approval_id, approver, approval_link(link_base, record.approval_id, secret)
            )
        )
        record = approvals.record_delivery(record.approval_id, record.task_token, approver, hash_link_secret(secret))
        sent.append(approver)
    return record, sent


def reminder_message(record: ApprovalRecord, approver: str, order_id: str, zone: str, now: datetime) -> ApprovalMessage:
    """A reminder: which plan, how long is left; no link (its secret is not kept anywhere)."""
    fp = fingerprint(record.proposal_hash)
    body = "\n".join(
        [
            f"A production plan for order {order_id} still waits for your decision.",
            "",
            f"Time left: {time_left(record.expires_at, now)} (until {shop_time(record.expires_at, zone)}).",
            f"Proposal fingerprint: {fp}",
            "",
            f'Open the link in the message "Approve plan for order {order_id}? [{fp}]" to review and decide.',
            "Lost it? Ask the operator for a new one (production-orchestrator approvals relink).",
            "If nobody decides in time, the plan expires and nothing changes.",
        ]
    )
    subject = f"Reminder: plan for order {order_id} waits for your decision [{fp}]"
    return ApprovalMessage(approval_id=record.approval_id, approver=approver, subject=subject, body=body)


def remind(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    schedule: ReminderSchedule,
    *,
    now: datetime,
    link_base: Callable[[ApprovalRecord], str],
    lease: timedelta = REMINDER_LEASE,
) -> RemindReport:
    """One pass over every open approval (see the module docstring). Idempotent: a second pass at the same
    moment sends nothing."""
    report = RemindReport()
    zone = shop_zone(store.load_state())
    for record in approvals.list_approvals():
        if not record.is_open(now):
            continue
        try:
            _one(store, approvals, notifier, schedule, record, now, link_base, lease, zone, report)
        except (ApprovalExpiredError, DecisionAlreadyClaimedError):
            continue  # decided, superseded or expired while this pass looked at it: nothing more to remind
    return report


def _one(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    schedule: ReminderSchedule,
    record: ApprovalRecord,
    now: datetime,
    link_base: Callable[[ApprovalRecord], str],
    lease: timedelta,
    zone: str,
    report: RemindReport,
) -> None:
    held: dict[str, str] = {}
    if schedule.escalates(record.created_at, now) and not record.escalated_at:
        record, held = _escalate(store, approvals, record, schedule, now)
        if held:
            report.escalated.append((record.approval_id, tuple(sorted(held))))
    if record.escalated_at and any(a not in record.notified for a in schedule.backups):
        record, sent = _send_backup_links(store, approvals, notifier, record, held, link_base(record), schedule.backups)
        report.links_sent += [(record.approval_id, a) for a in sent]
    point = schedule.due_point(record.created_at, record.expires_at, now)
    if point is None:
        return
    order_id = review(store, record.checkpoint_id)[0].target_order_id
    for approver in record.policy.approvers:
        key = f"{point}|{approver}"
        if record.has_voted(approver) or approver not in record.notified:
            continue
        mark = record.reminder(key)
        if mark is not None and mark.sent_at:
            continue
        token = secrets.token_hex(16)
        record = approvals.record_reminder_claim(record.approval_id, key, token, now=now, lease=lease)
        mark = record.reminder(key)
        if mark is None or mark.claim != token or mark.sent_at:
            continue  # another run holds it or sent it
        notifier.notify(reminder_message(record, approver, order_id, zone, now))
        record = approvals.record_reminder_sent(record.approval_id, key, token, now=now)
        _audit(store, "approval_reminded", record, now, approver=approver, point=point)
        report.reminded.append((record.approval_id, point, approver))
