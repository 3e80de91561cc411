"""Reminders and escalation on AWS: one-time wake-ups (EventBridge Scheduler), armed when the workflow parks and
deleted when the decision arrives. Nothing polls.

    ArmReminders (before WaitForHumanDecision)
        -> one wake-up per reminder point inside the window, and one for the escalation (<checkpoint>-r<i>,
           <checkpoint>-esc; each fires once and deletes itself)
    a wake-up fires -> wake(checkpoint, point)
        the approval closed (decided, rejected, expired, superseded) or not written -> nothing
        its moment has not come for the approval (written after the wake-up was armed) -> armed again at the
            approval's own moment, once (<name>-again)
        escalation: services/asking/remind's (backups added once, audited; each backup's first link by SNS)
        reminder: each asked approver who has not voted, once, with a new link (services/asking/reminder_links.py)
    DisarmReminders (after WaitForHumanDecision) -> every wake-up of the checkpoint deleted

Exactly once per reminder, as locally: the claim key is the local ``remind``'s (``<point>|<approver>``), so a
retried Lambda, a wake-up armed twice, or the local ``remind`` on the same table send one reminder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.reminders import ReminderSchedule, parse_points
from ...domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, ValidationError
from ...domain.ports import ApprovalStore
from ...domain.presentation import shop_zone
from ...domain.records import parse_utc, utc_iso
from ..evidence import current_approval
from ..runtime import Runtime, need
from . import remind as local_remind
from .escalate import ReminderPass, RemindReport, escalate, send_missing_links
from .reminder_links import RemindWithLinks, remind_with_links

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


@dataclass(frozen=True)
class Arm:
    """The wake-ups of ``checkpoint_id``'s approval window (until ``expires_at``) under ``schedule``."""

    schedule: ReminderSchedule
    checkpoint_id: str
    expires_at: str


def arm(rt: Runtime, cmd: Arm) -> Armed:
    """One wake-up per reminder point (and the escalation) that falls inside the window ``now``..``expires_at``."""
    wakes, schedule, checkpoint_id, expires_at = (
        need(rt.wakes, "wake-up scheduler"),
        cmd.schedule,
        cmd.checkpoint_id,
        cmd.expires_at,
    )
    created = utc_iso(rt.clock())
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


@dataclass(frozen=True)
class Disarm:
    """The decision on ``checkpoint_id`` arrived: its wake-ups under ``schedule`` are no longer needed."""

    schedule: ReminderSchedule
    checkpoint_id: str


def disarm(rt: Runtime, cmd: Disarm) -> int:
    """Delete every wake-up of ``checkpoint_id`` that has not fired (the decision arrived); how many were left."""
    wakes = need(rt.wakes, "wake-up scheduler")
    left = 0
    for name in wake_names(cmd.checkpoint_id, cmd.schedule):
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


def _approval_of(approvals: ApprovalStore, checkpoint_id: str) -> ApprovalRecord | None:
    found = approvals.approvals_for(checkpoint_id)
    return current_approval(approvals, found[-1].approval_id) if found else None


@dataclass(frozen=True)
class Wake:
    """One wake-up of ``checkpoint_id``'s approval for ``point`` (a reminder point, or ``escalate``) under
    ``schedule``; links start ``link_base_url``; ``lease``: how long a claimed reminder is this sender's."""

    schedule: ReminderSchedule
    checkpoint_id: str
    point: str
    link_base_url: str
    lease: timedelta = local_remind.REMINDER_LEASE


def wake(rt: Runtime, cmd: Wake) -> Woken:
    """One wake-up of ``checkpoint_id``'s approval for ``point`` (see the module docstring)."""
    schedule, checkpoint_id, now = cmd.schedule, cmd.checkpoint_id, rt.clock()
    point = validate_point(cmd.point)  # a malformed point is refused before anything is read
    result = Woken()
    record = _approval_of(rt.approvals, checkpoint_id)
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
                need(rt.wakes, "wake-up scheduler").arm(
                    f"{name}-again", again, {"action": "wake", "checkpoint_id": checkpoint_id, "point": point}
                )
        result.rearmed_at = utc_iso(again)
    try:
        if point == ESCALATE:
            if moment is not None and moment <= now:
                _escalate(rt, cmd, record, result)
        else:
            result.reminded = remind_with_links(rt, RemindWithLinks(schedule, record, cmd.link_base_url, cmd.lease))
    except (ApprovalExpiredError, DecisionAlreadyClaimedError):
        result.status = "closed"  # decided, superseded or expired while this wake looked at it
        return result
    result.status = "early" if result.rearmed_at and not (result.reminded or result.escalated) else "done"
    return result


def _escalate(rt: Runtime, cmd: Wake, record: ApprovalRecord, result: Woken) -> None:
    """The local escalation (services/asking/escalate.py), with random links and no outbox (links go by SNS): backups
    added once in one transaction with their event; each backup's link then claimed, sent and marked once."""
    schedule, link_base_url = cmd.schedule, cmd.link_base_url
    run = ReminderPass(
        replace(rt, mint=None), schedule, rt.clock(), lambda _record: link_base_url, cmd.lease,
        shop_zone(rt.store.load_state()), False, RemindReport(),
    )  # fmt: skip
    held: dict[str, str] = {}
    if not record.escalated_at:
        record, held = escalate(run, record)
        result.escalated = tuple(sorted(held))
    if record.escalated_at and any(a not in record.notified for a in schedule.backups):
        send_missing_links(run, record, held)
        result.links_sent = tuple(approver for _, approver in run.report.links_sent)


def validate_point(point: str) -> str:
    """``point`` as a wake-up names it (a reminder point or ``escalate``); ``ValidationError`` otherwise."""
    if point == ESCALATE:
        return point
    checked = parse_points(point)
    if len(checked) != 1:
        raise ValidationError("a wake-up names one reminder point")
    return checked[0]
