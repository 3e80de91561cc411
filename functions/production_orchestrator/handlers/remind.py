"""Reminders and escalation (lifecycle/reminder_wakes.py), three entries on one strands-free function:

    {"action": "arm", "checkpoint_id", "expires_at"}    ArmReminders: the wake-ups of a parking workflow
    {"action": "wake", "checkpoint_id", "point"}        an EventBridge Scheduler wake-up (its input)
    {"action": "disarm", "checkpoint_id"}               DisarmReminders: the decision arrived

Reminder points, the escalation delay and the backups come from the stack (``PO_REMIND_AT``,
``PO_ESCALATE_AFTER``, ``PO_BACKUP_APPROVERS``); the wake-ups target this function itself (the invoked ARN)
through the scheduler role (``PO_REMINDER_ROLE_ARN``) in the stack's group (``PO_REMINDER_GROUP``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from .. import contracts
from ..domain.approval.reminders import DEFAULT_POINTS, ReminderSchedule, parse_points
from ..domain.durations import parse_duration
from ..domain.errors import ConfigurationError, ValidationError
from ..domain.identity import normalize_identity
from ..domain.records import CheckpointId, Timestamp
from .observability import logger, metrics
from .root import Core, core

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..adapters.aws.sns_notifier import SnsApprovalNotifier

_ROLE = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}\Z")
_GROUP = re.compile(r"^[0-9A-Za-z_.-]{1,64}\Z")


class ReminderSettings(BaseModel):
    """The reminder function's own settings (the shared ones are ``core().settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    remind_at: tuple[str, ...] = DEFAULT_POINTS
    escalate_after: timedelta | None = None
    backup_approvers: tuple[str, ...] = ()
    group: str
    role_arn: str

    @field_validator("group")
    @classmethod
    def _group(cls, value: str) -> str:
        if not _GROUP.fullmatch(value):
            raise ValueError("is not an EventBridge Scheduler group name")
        return value

    @field_validator("role_arn")
    @classmethod
    def _role(cls, value: str) -> str:
        if not _ROLE.fullmatch(value):
            raise ValueError("is not an IAM role ARN")
        return value

    @field_validator("remind_at", mode="before")
    @classmethod
    def _points(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value.strip().lower() == "off":
                return ()
            try:
                return parse_points(value)
            except ValidationError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("escalate_after", mode="before")
    @classmethod
    def _delay(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return parse_duration(value)
            except ValidationError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("backup_approvers", mode="before")
    @classmethod
    def _backups(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = tuple(part.strip() for part in value.split(",") if part.strip())
        for email in value:
            if not contracts.is_approver_email(email):
                raise ValueError("holds an entry that is not an e-mail address")
        return tuple(normalize_identity(email) for email in value)

    @property
    def schedule(self) -> ReminderSchedule:
        """The domain's schedule (backups count only with a delay, as locally)."""
        escalates = bool(self.backup_approvers) and self.escalate_after is not None
        return ReminderSchedule(
            points=self.remind_at,
            escalate_after=self.escalate_after if escalates else None,
            backups=self.backup_approvers if escalates else (),
        )


_ENV = {
    "remind_at": contracts.ENV_REMIND_AT,
    "escalate_after": contracts.ENV_ESCALATE_AFTER,
    "backup_approvers": contracts.ENV_BACKUP_APPROVERS,
    "group": contracts.ENV_REMINDER_GROUP,
    "role_arn": contracts.ENV_REMINDER_ROLE_ARN,
}


def load_reminder_settings(environ: Mapping[str, str]) -> ReminderSettings:
    """Read the reminder settings; a bad one is a ``ConfigurationError`` naming the variable, never its value."""
    raw = {name: environ[var] for name, var in _ENV.items() if environ.get(var, "").strip()}
    try:
        return ReminderSettings.model_validate(raw)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{_ENV.get(str(err['loc'][0]), err['loc'][0]) if err['loc'] else 'settings'} {err['msg']}"
            for err in exc.errors(include_input=False, include_url=False)
        )
        raise ConfigurationError(f"invalid configuration: {problems}") from None


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    checkpoint_id: CheckpointId


class ArmEvent(_Event):
    """ArmReminders: the run's checkpoint and when its window ends."""

    action: Literal["arm"]
    expires_at: Timestamp


class WakeEvent(_Event):
    """A wake-up's input (set by :class:`ArmEvent`'s arming)."""

    action: Literal["wake"]
    point: str = Field(min_length=1, max_length=40)


class DisarmEvent(_Event):
    """DisarmReminders: the decision arrived."""

    action: Literal["disarm"]


class ReminderEvent(BaseModel):
    """One of the three entries, told apart by ``action``."""

    model_config = ConfigDict(frozen=True)

    event: Annotated[ArmEvent | WakeEvent | DisarmEvent, Field(discriminator="action")]


@dataclass(frozen=True)
class _Root:
    core: Core
    settings: ReminderSettings
    notifier: SnsApprovalNotifier


@cache
def root() -> _Root:
    """Build once per cold start."""
    from ..adapters.aws.sns_notifier import SnsApprovalNotifier

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
    from ..lifecycle import reminder_wakes
    from .events import parse_event

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
