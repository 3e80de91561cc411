"""Reminders and escalation (services/asking/reminder_wakes.py), three entries on one strands-free function:

    {"action": "arm", "checkpoint_id", "expires_at"}    ArmReminders: the wake-ups of a parking workflow
    {"action": "wake", "checkpoint_id", "point"}        an EventBridge Scheduler wake-up (its input)
    {"action": "disarm", "checkpoint_id"}               DisarmReminders: the decision arrived

Reminder points, the escalation delay and the backups come from the stack (``PO_REMIND_AT``,
``PO_ESCALATE_AFTER``, ``PO_BACKUP_APPROVERS``); the wake-ups target this function itself (the invoked ARN)
through the scheduler role (``PO_REMINDER_ROLE_ARN``) in the stack's group (``PO_REMINDER_GROUP``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from .observability import logger, metrics
from .root import Core, core

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..adapters.aws.sns_notifier import SnsApprovalNotifier
    from .reminder_models import ReminderSettings


@dataclass(frozen=True)
class _Root:
    core: Core
    settings: ReminderSettings
    notifier: SnsApprovalNotifier


@cache
def root() -> _Root:
    """Build once per cold start."""
    from ..adapters.aws.sns_notifier import SnsApprovalNotifier
    from .reminder_models import load_reminder_settings

    shared = core()
    settings = shared.settings.require("topic_arn", "link_base_url")
    return _Root(
        core=shared,
        settings=load_reminder_settings(os.environ),
        notifier=SnsApprovalNotifier(shared.client("sns"), str(settings.topic_arn)),
    )


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Arm, fire or disarm the wake-ups of one checkpoint's approval."""
    from ..adapters.aws.scheduler import SchedulerWakes
    from ..services.asking import reminder_wakes
    from .events import parse_event
    from .reminder_models import ArmEvent, DisarmEvent, ReminderEvent

    request = parse_event(ReminderEvent, {"event": event}).event
    logger.append_keys(checkpoint_id=request.checkpoint_id, action=request.action)
    r = root()
    wakes = SchedulerWakes(
        r.core.client("scheduler"),
        group=r.settings.group,
        target_arn=context.invoked_function_arn,
        role_arn=r.settings.role_arn,
    )
    schedule = r.settings.schedule
    if isinstance(request, ArmEvent):
        armed = reminder_wakes.arm(
            wakes, schedule, checkpoint_id=request.checkpoint_id, expires_at=request.expires_at, now=r.core.now()
        )
        logger.info("reminders armed", extra={"wakes": armed.wakes})
        return {"checkpoint_id": request.checkpoint_id, "armed": armed.wakes}
    if isinstance(request, DisarmEvent):
        left = reminder_wakes.disarm(wakes, schedule, checkpoint_id=request.checkpoint_id)
        logger.info("reminders disarmed", extra={"deleted": left})
        return {"checkpoint_id": request.checkpoint_id, "disarmed": left}
    woken = reminder_wakes.wake(
        r.core.store,
        r.core.approvals,
        r.notifier,
        wakes,
        schedule,
        checkpoint_id=request.checkpoint_id,
        point=request.point,
        link_base_url=str(r.core.settings.link_base_url),
        now=r.core.now(),
    )
    logger.append_keys(approval_id=woken.approval_id)
    reminded = [{"point": point, "approver": approver} for point, approver in woken.reminded]
    logger.info(
        "reminder wake-up",
        extra={
            "status": woken.status,
            "reminded": reminded,
            "escalated": list(woken.escalated),
            "links_sent": list(woken.links_sent),
            "rearmed_at": woken.rearmed_at,
        },
    )
    return {
        "checkpoint_id": request.checkpoint_id,
        "approval_id": woken.approval_id,
        "status": woken.status,
        "reminded": reminded,
        "escalated": list(woken.escalated),
        "links_sent": list(woken.links_sent),
        "rearmed_at": woken.rearmed_at,
    }
