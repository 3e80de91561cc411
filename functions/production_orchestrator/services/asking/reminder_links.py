"""A reminder that carries a new link (AWS): the first link's secret is stored only as a hash, so the reminder
issues a new one through the relink rule (services/asking/relink.py, as ``approvals relink``): the old link stops
working, ``approval_relinked`` is audited, and the message goes out as the first did (SNS, per approver).

    the latest point that has come (domain/approval/reminders.py)
    each asked approver who has not voted and has not had it:
        claim <point>|<approver> (conditional write, lease; the local ``remind``'s key)
        -> relink (a new secret, the old one revoked, audited) -> the reminder with the new link -> mark sent
        -> audit ``approval_reminded``

Another sender holding a claim (a racing wake-up, one that died holding it): ``ReminderHeldError`` once the
others are sent, so the caller's retry comes back after the lease. The one at-least-once window is a crash after
the publish and before the mark.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.reminders import ReminderSchedule
from ...domain.errors import ApprovalActionRefusedError, DecisionAlreadyClaimedError, ReminderHeldError
from ...domain.ports import ApprovalMessage, ApprovalNotifier
from ...domain.presentation import shop_time, shop_zone, time_left
from ...domain.records import audit_event
from ..runtime import Runtime, need
from .relink import Relink, relink


class _AsReminder:
    """Turns the message relink sends (the first message again, with the new link) into a reminder."""

    def __init__(self, inner: ApprovalNotifier, record: ApprovalRecord, zone: str, now: datetime) -> None:
        self._inner, self._record, self._zone, self._now = inner, record, zone, now

    def notify(self, message: ApprovalMessage) -> None:
        expires = self._record.expires_at
        header = [
            "Reminder: this plan still waits for your decision.",
            f"Time left: {time_left(expires, self._now)} (until {shop_time(expires, self._zone)}).",
            "This message holds a new link for you: the link in the earlier message no longer works.",
            "If nobody decides in time, the plan expires and nothing changes.",
            "",
            "",
        ]
        self._inner.notify(
            ApprovalMessage(
                approval_id=message.approval_id,
                approver=message.approver,
                subject=f"Reminder: {message.subject}",
                body="\n".join(header) + message.body,
                link=message.link,
            )
        )


@dataclass(frozen=True)
class RemindWithLinks:
    """The reminder due for ``record`` under ``schedule``, each with a new link (links start ``link_base_url``;
    ``lease``: how long a claimed reminder is this sender's)."""

    schedule: ReminderSchedule
    record: ApprovalRecord
    link_base_url: str
    lease: timedelta


def remind_with_links(rt: Runtime, cmd: RemindWithLinks) -> list[tuple[str, str]]:
    """The latest point that has come, to each asked approver of ``record`` who has not voted and has not had it:
    (point, approver) of each reminder this call sent. ``ReminderHeldError`` after the others were sent when
    another sender holds one; ``DecisionAlreadyClaimedError``/``ApprovalExpiredError`` when the approval closed."""
    store, approvals, now, record, lease = rt.store, rt.approvals, rt.clock(), cmd.record, cmd.lease
    notifier = need(rt.notifier, "approval notifier")
    sent: list[tuple[str, str]] = []
    due = cmd.schedule.due_point(record.created_at, record.expires_at, now)
    if due is None:
        return sent
    zone = shop_zone(store.load_state())
    held_elsewhere: list[str] = []
    for approver in record.policy.approvers:
        key = f"{due}|{approver}"
        if record.has_voted(approver) or approver not in record.notified:
            continue
        mark = record.reminder(key)
        if mark is not None and mark.sent_at:
            continue
        token = secrets.token_hex(16)
        record = approvals.record_reminder_claim(record.approval_id, key, token, now=now, lease=lease)
        mark = record.reminder(key)
        if mark is None or mark.sent_at:
            continue
        if mark.claim != token:
            held_elsewhere.append(approver)  # a racing wake, or one that died holding it
            continue
        try:
            # A random link, as the AWS request path sends them (the message goes out as the first did).
            as_reminder = replace(rt, notifier=_AsReminder(notifier, record, zone, now), mint=None)
            relink(as_reminder, Relink(record.approval_id, approver, cmd.link_base_url))
        except ApprovalActionRefusedError as exc:
            if exc.code in ("EXPIRED", "APPROVAL_CLOSED"):
                raise DecisionAlreadyClaimedError(str(exc)) from None
            raise
        record = approvals.record_reminder_sent(record.approval_id, key, token, now=now)
        store.append_audit(
            audit_event(
                "approval_reminded",
                now,
                checkpoint_id=record.checkpoint_id,
                proposal_hash=record.proposal_hash,
                approval_id=record.approval_id,
                approver=approver,
                point=due,
            )
        )
        sent.append((due, approver))
    if held_elsewhere:
        raise ReminderHeldError(
            f"reminder {due} of approval {record.approval_id} is held by another sender for "
            f"{len(held_elsewhere)} approver(s): retry after the lease"
        )
    return sent
