"""Remind: nudge the approvers an open approval still waits for, and add the backup approvers when it has waited
too long. Safe to run at any moment, as often as wanted (cron every minute, or ``serve`` while it runs).

    for each open approval:
      escalation due, not done  -> ONE transaction: backups (each a fresh link) added to who is asked, the
                                   event ``approval_escalated`` and (outbox) each e-mail backup's request
      an asked approver whose link never went out (a crash, a backup without e-mail):
           outbox + e-mail: the request queued (one transaction, once per link)
           else: claim link|<approver> (lease) -> their link to the notifier -> marked sent and notified
      the latest reminder point that has come -> each asked approver who has not voted:
           outbox + e-mail: ONE transaction: reminder marked, ``approval_reminded``, the reminder queued
           else: claim <point>|<approver> (lease) -> send -> ONE transaction: marked sent, ``approval_reminded``

Exactly once like the outbox: racing runs serialize on the approval's conditional write; a run that dies after
a claim leaves it to the next once the lease has passed. The one at-least-once window is a crash after a send
to the notifier and before its mark. A reminder carries the approver's link when it can be rebuilt (a link
minted with the shop's key: links.py): the same link as the first message, nothing revoked. A link that cannot
be rebuilt (random, AWS) is not replaced by a reminder: it points at the first message and ``approvals relink``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.reminders import ReminderSchedule
from ...domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError
from ...domain.messages.approval_mail import approval_reminder
from ...domain.ports import ApprovalMessage
from ...domain.presentation import fingerprint, shop_time, shop_zone, time_left
from ..evidence import review
from ..runtime import Runtime
from .escalate import ReminderPass, RemindReport, escalate, send_missing_links
from .request_approval import approval_link

__all__ = ["REMINDER_LEASE", "Remind", "RemindReport", "remind", "reminder_message"]

REMINDER_LEASE = timedelta(minutes=2)


def reminder_message(
    record: ApprovalRecord, approver: str, order_id: str, zone: str, now: datetime, link: str = ""
) -> ApprovalMessage:
    """A reminder: which plan, how long is left, and the approver's link when it can be rebuilt."""
    fp = fingerprint(record.proposal_hash)
    how = (
        ["Open your link to review and decide (the same link as the first message):", link]
        if link
        else [
            f'Open the link in the message "Approve plan for order {order_id}? [{fp}]" to review and decide.',
            "Lost it? Ask the operator for a new one (production-orchestrator approvals relink).",
        ]
    )
    body = "\n".join(
        [
            f"A production plan for order {order_id} still waits for your decision.",
            "",
            f"Time left: {time_left(record.expires_at, now)} (until {shop_time(record.expires_at, zone)}).",
            f"Proposal fingerprint: {fp}",
            "",
            *how,
            "If nobody decides in time, the plan expires and nothing changes.",
        ]
    )
    subject = f"Reminder: plan for order {order_id} waits for your decision [{fp}]"
    return ApprovalMessage(approval_id=record.approval_id, approver=approver, subject=subject, body=body, link=link)


@dataclass(frozen=True)
class Remind:
    """One reminder pass under ``schedule``; ``link_base``: where an approval's links start; ``outbox``: e-mail
    approvers' messages are queued for ``outbox send`` rather than given to the notifier."""

    schedule: ReminderSchedule
    link_base: Callable[[ApprovalRecord], str]
    lease: timedelta = REMINDER_LEASE
    outbox: bool = False


def remind(rt: Runtime, cmd: Remind) -> RemindReport:
    """One pass over every open approval (see the module docstring). Idempotent: a second pass at the same
    moment sends nothing. Links are minted and rebuilt with ``rt.mint`` (the shop's key locally)."""
    now = rt.clock()
    run = ReminderPass(
        rt, cmd.schedule, now, cmd.link_base, cmd.lease, shop_zone(rt.store.load_state()), cmd.outbox, RemindReport()
    )
    for record in rt.approvals.list_approvals():
        if not record.is_open(now):
            continue
        try:
            _one(run, record)
        except (ApprovalExpiredError, DecisionAlreadyClaimedError):
            continue  # decided, superseded or expired while this pass looked at it: nothing more to remind
    return run.report


def _one(run: ReminderPass, record: ApprovalRecord) -> None:
    held: dict[str, str] = {}
    if run.schedule.escalates(record.created_at, run.now) and not record.escalated_at:
        record, held = escalate(run, record)
    if any(a not in record.notified for a in record.policy.approvers):
        record = send_missing_links(run, record, held)
    point = run.schedule.due_point(record.created_at, record.expires_at, run.now)
    if point is None:
        return
    order_id = review(run.store, record.checkpoint_id)[0].target_order_id
    for approver in record.policy.approvers:
        if record.has_voted(approver) or approver not in record.notified:
            continue
        mark = record.reminder(f"{point}|{approver}")
        if mark is not None and mark.sent_at:
            continue
        if run.mails(approver):
            record = _queue_reminder(run, record, point, approver)
        else:
            record = _notify_reminder(run, record, point, approver, order_id)


def _queue_reminder(run: ReminderPass, record: ApprovalRecord, point: str, approver: str) -> ApprovalRecord:
    """Mark, audit and queue one reminder in one transaction: exactly once without a lease."""
    mail = approval_reminder(record.approval_id, approver, point, run.now)
    after, changed = run.store.change_approval(
        record.approval_id,
        lambda before: before.reminder_queued(f"{point}|{approver}", approver, run.now),
        lambda after: run.event("approval_reminded", after, approver=approver, point=point, via="outbox"),
        mail=[mail],
    )
    if changed:
        run.report.reminded.append((after.approval_id, point, approver))
    return after


def _notify_reminder(
    run: ReminderPass, record: ApprovalRecord, point: str, approver: str, order_id: str
) -> ApprovalRecord:
    """Claim, send (with the link when it can be rebuilt), then mark and audit in one transaction."""
    key, token = f"{point}|{approver}", secrets.token_hex(16)
    record = run.approvals.record_reminder_claim(record.approval_id, key, token, now=run.now, lease=run.lease)
    mark = record.reminder(key)
    if mark is None or mark.claim != token or mark.sent_at:
        return record  # another run holds it or sent it
    link = record.link_of(approver)
    secret = run.mint.reissue(link) if link is not None else None
    url = approval_link(run.link_base(record), record.approval_id, secret) if secret else ""
    run.notifier.notify(reminder_message(record, approver, order_id, run.zone, run.now, url))
    after, changed = run.store.change_approval(
        record.approval_id,
        lambda before: before.reminder_sent(key, token, run.now),
        lambda after: run.event("approval_reminded", after, approver=approver, point=point),
    )
    if changed:
        run.report.reminded.append((after.approval_id, point, approver))
    return after
