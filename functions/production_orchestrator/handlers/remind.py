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
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from .observability import logger, metrics
from .root import core, runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..services.runtime import Runtime
    from .reminder_models import ReminderSettings


@dataclass(frozen=True)
class _Root:
    runtime: Runtime
    settings: ReminderSettings


@cache
def root() -> _Root:
    """Build once per cold start."""
    from .reminder_models import load_reminder_settings

    core().settings.require("topic_arn", "link_base_url")
    return _Root(runtime=runtime("notifier"), settings=load_reminder_settings(os.environ))


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
    # The wake-ups target this function itself: known from the invocation, so set per invocation.
    wakes = SchedulerWakes(
        core().client("scheduler"),
        group=r.settings.group,
        target_arn=context.invoked_function_arn,
        role_arn=r.settings.role_arn,
    )
    rt = replace(r.runtime, wakes=wakes)
    schedule = r.settings.schedule
    if isinstance(request, ArmEvent):
        armed = reminder_wakes.arm(rt, reminder_wakes.Arm(schedule, request.checkpoint_id, request.expires_at))
        logger.info("reminders armed", extra={"wakes": armed.wakes})
        return {"checkpoint_id": request.checkpoint_id, "armed": armed.wakes}
    if isinstance(request, DisarmEvent):
        left = reminder_wakes.disarm(rt, reminder_wakes.Disarm(schedule, request.checkpoint_id))
        logger.info("reminders disarmed", extra={"deleted": left})
        return {"checkpoint_id": request.checkpoint_id, "disarmed": left}
    link_base_url = str(core().settings.link_base_url)
    woken = reminder_wakes.wake(rt, reminder_wakes.Wake(schedule, request.checkpoint_id, request.point, link_base_url))
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
