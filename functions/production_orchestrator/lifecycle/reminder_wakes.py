"""Reminders and escalation on AWS: one-time wake-ups (EventBridge Scheduler), armed when the workflow parks and
deleted when the decision arrives. Nothing polls.

    ArmReminders (before WaitForHumanDecision)
        -> one wake-up per reminder point inside the window, and one for the escalation (<checkpoint>-r<i>,
           <checkpoint>-esc; each fires once and deletes itself)
    a wake-up fires -> wake(checkpoint, point)
        the approval closed (decided, rejected, expired, superseded) or not written -> nothing
        its moment has not come for the approval (written after the wake-up was armed) -> armed again at the
            approval's own moment, once (<name>-again)
        escalation: lifecycle/remind's (backups added once, audited; each backup's first link by SNS)
        reminder: the latest point that has come (domain/approval/reminders.py); each asked approver who has
            not voted: claim <point>|<approver> (conditional write, lease) -> relink (a new link, the old one
            stops working, audited: lifecycle/relink.py, as ``approvals relink``) -> the reminder holding the
            new link, by SNS as the first link went -> mark sent -> audit ``approval_reminded``
    DisarmReminders (after WaitForHumanDecision) -> every wake-up of the checkpoint deleted

Exactly once per reminder, as locally: the claim key is the local one (``<point>|<approver>`` on the approval),
so a retried Lambda, a wake-up armed twice, or the local ``remind`` on the same table send one reminder. A
wake that finds a reminder held by another sender fails (``ReminderHeldError``) so that Lambda's retry returns
once the lease has run out. The one at-least-once window is a crash after the publish and before the mark.
The link goes out fresh because only the hash of the first one is stored: the earlier link stops working,
which the reminder says.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..domain.approval.approvals import ApprovalRecord
from ..domain.approval.reminders import ReminderSchedule, parse_points
from ..domain.errors import (
    ApprovalActionRefusedError,
    ApprovalExpiredError,
    DecisionAlreadyClaimedError,
    ReminderHeldError,
    ValidationError,
)
from ..domain.ports import ApprovalMessage, ApprovalNotifier, ApprovalStore, ShopStore, WakeScheduler
from ..domain.presentation import shop_time, shop_zone, time_left
from ..domain.records import audit_event, parse_utc, utc_iso
from . import remind as local_remind
from .relink import relink
from .review import current_approval

ESCALATE = "escalate"
# The approval is written by WaitForHumanDecision just after the wake-ups are armed; a wake-up armed this much
# after its moment (computed from the arming time) finds the moment come for the approval too. Later ones
# are armed again at the approval's own moment.
ARM_LEAD = timedelta(seconds=60)


def wake_names(checkpoint_id: str, schedule: ReminderSchedule) -> dict[str, str]:
    """Wake-up name -> point (or ``escalate``) for one checkpoint; names fit EventBridge Scheduler's 64."""
    names = {f"{checkpoint_id}-r{index}": point for index, point in enumerate(schedule.points)}
    if schedule.backups and schedule.escalate_after is not None:
        names[f"{checkpoint_id}-esc"] = ESCALATE
    return names


def _moment(point: str, schedule: ReminderSchedule, created_at: str, expires_at: str) -> datetime | None:
    """When ``point`` comes for a window (the escalation: ``escalate_after`` in, if inside the window)."""
    if point != ESCALATE:
        return schedule.moment(point, created_at, expires_at)
    if schedule.escalate_after is None:
        return None
    at = parse_utc(created_at) + schedule.escalate_after
    return at if at < parse_utc(expires_at) else None


def _whole_second(at: datetime) -> datetime:
    """EventBridge Scheduler's ``at()`` counts whole seconds: round up, never early."""
    return datetime.fromtimestamp(math.ceil(at.timestamp()), tz=at.tzinfo)


@dataclass(frozen=True)
class Armed:
    """What arming created: wake-up name -> its moment (already there on a retry counts as armed)."""

    checkpoint_id: str
    wakes: dict[str, str] = field(default_factory=dict)


def arm(
    wakes: WakeScheduler, schedule: ReminderSchedule, *, checkpoint_id: str, expires_at: str, now: datetime
) -> Armed:
    """One wake-up per reminder point (and the escalation) that falls inside the window ``now``..``expires_at``."""
    created = utc_iso(now)
    end = parse_utc(expires_at)
    armed: dict[str, str] = {}
    for name, point in wake_names(checkpoint_id, schedule).items():
        moment = _moment(point, schedule, created, expires_at)
        if moment is None:
            continue  # never comes in this window (24 h before the end of a 2-hour window)
        # Never past the window, where the wake-up would find the approval expired.
        at = _whole_second(min(moment + ARM_LEAD, moment + (end - moment) / 2))
        wakes.arm(name, at, {"action": "wake", "checkpoint_id": checkpoint_id, "point": point})
        armed[name] = utc_iso(at)
    return Armed(checkpoint_id=checkpoint_id, wakes=armed)


def disarm(wakes: WakeScheduler, schedule: ReminderSchedule, *, checkpoint_id: str) -> int:
    """Delete every wake-up of ``checkpoint_id`` that has not fired (the decision arrived); how many were left."""
    left = 0
    for name in wake_names(checkpoint_id, schedule):
        left += wakes.disarm(name)
        left += wakes.disarm(f"{name}-again")
    return left


@dataclass
class Woken:
    """What one wake-up did (no link, no secret)."""

    approval_id: str = ""
    status: str = "none"  # none (no approval yet) | closed | early | done
    reminded: list[tuple[str, str]] = field(default_factory=list)  # (point, approver)
    escalated: tuple[str, ...] = ()
    links_sent: tuple[str, ...] = ()
    rearmed_at: str = ""


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


def _approval_of(approvals: ApprovalStore, checkpoint_id: str) -> ApprovalRecord | None:
    found = approvals.approvals_for(checkpoint_id)
    return current_approval(approvals, found[-1].approval_id) if found else None


def wake(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    wakes: WakeScheduler,
    schedule: ReminderSchedule,
    *,
    checkpoint_id: str,
    point: str,
    link_base_url: str,
    now: datetime,
    lease: timedelta = local_remind.REMINDER_LEASE,
) -> Woken:
    """One wake-up of ``checkpoint_id``'s approval for ``point`` (see the module docstring)."""
    point = validate_point(point)  # a malformed point is refused before anything is read
    result = Woken()
    record = _approval_of(approvals, checkpoint_id)
    if record is None:
        return result
    result.approval_id = record.approval_id
    if not record.is_open(now):
        result.status = "closed"
        return result
    moment = _moment(point, schedule, record.created_at, record.expires_at)
    if moment is not None and moment > now:
        # Armed from the arming time, this wake-up came before the approval's own moment: once more, then.
        again = _whole_second(moment)
        for name, named in wake_names(checkpoint_id, schedule).items():
            if named == point:
                wakes.arm(f"{name}-again", again, {"action": "wake", "checkpoint_id": checkpoint_id, "point": point})
        result.rearmed_at = utc_iso(again)
    try:
        if point == ESCALATE:
            if moment is not None and moment <= now:
                _escalate(store, approvals, notifier, schedule, record, now, link_base_url, result)
        else:
            _remind(store, approvals, notifier, schedule, record, now, link_base_url, lease, result)
    except (ApprovalExpiredError, DecisionAlreadyClaimedError):
        result.status = "closed"  # decided, superseded or expired while this wake looked at it
        return result
    result.status = "early" if result.rearmed_at and not (result.reminded or result.escalated) else "done"
    return result


def _escalate(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    schedule: ReminderSchedule,
    record: ApprovalRecord,
    now: datetime,
    link_base_url: str,
    result: Woken,
) -> None:
    """The local escalation, unchanged (lifecycle/remind.py): backups added once, audited, their links sent."""
    held: dict[str, str] = {}
    if not record.escalated_at:
        record, held = local_remind._escalate(store, approvals, record, schedule, now)
        result.escalated = tuple(sorted(held))
    if record.escalated_at and any(a not in record.notified for a in schedule.backups):
        record, sent = local_remind._send_backup_links(
            store, approvals, notifier, record, held, link_base_url, schedule.backups
        )
        result.links_sent = tuple(sent)


def _remind(
    store: ShopStore,
    approvals: ApprovalStore,
    notifier: ApprovalNotifier,
    schedule: ReminderSchedule,
    record: ApprovalRecord,
    now: datetime,
    link_base_url: str,
    lease: timedelta,
    result: Woken,
) -> None:
    due = schedule.due_point(record.created_at, record.expires_at, now)
    if due is None:
        return
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
            relink(
                store,
                approvals,
                _AsReminder(notifier, record, zone, now),
                approval_id=record.approval_id,
                approver=approver,
                link_base_url=link_base_url,
                now=now,
            )
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
        result.reminded.append((due, approver))
    if held_elsewhere:
        raise ReminderHeldError(
            f"reminder {due} of approval {record.approval_id} is held by another sender for "
            f"{len(held_elsewhere)} approver(s): retry after the lease"
        )


def validate_point(point: str) -> str:
    """``point`` as a wake-up names it (a reminder point or ``escalate``); ``ValidationError`` otherwise."""
    if point == ESCALATE:
        return point
    checked = parse_points(point)
    if len(checked) != 1:
        raise ValidationError("a wake-up names one reminder point")
    return checked[0]
