"""The reminder function's settings and events (handlers/remind.py), loaded with its first event."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from .. import contracts
from ..domain.approval.reminders import DEFAULT_POINTS, ReminderSchedule, parse_points
from ..domain.errors import ConfigurationError, ValidationError
from ..domain.identity import normalize_identity
from ..domain.records import CheckpointId, Timestamp
from .settings import duration_setting, email_list_setting

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
        return duration_setting(value)

    @field_validator("backup_approvers", mode="before")
    @classmethod
    def _backups(cls, value: Any) -> Any:
        return tuple(normalize_identity(email) for email in email_list_setting(value))

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
