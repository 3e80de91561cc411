"""One-time wake-ups through EventBridge Scheduler: ``at()`` schedules in the stack's group that invoke the
reminder function once with their input, then delete themselves.

Scheduler invokes the function asynchronously with the stack's scheduler role (the only role allowed to
invoke it that way); the function's own retries (Lambda's asynchronous ones) cover an error in the handler,
the schedule's retry policy a failed invoke.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.errors import BackendError

# The invoke itself (throttled, the function briefly unavailable): retried for up to an hour.
RETRY_POLICY = {"MaximumRetryAttempts": 10, "MaximumEventAgeInSeconds": 3600}


def at_expression(at: datetime) -> str:
    """``at(yyyy-mm-ddThh:mm:ss)`` in UTC (the schedule's time zone is set to UTC)."""
    return f"at({at.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S')})"


def unqualified(function_arn: str) -> str:
    """A Lambda ARN without its version or alias (``...:function:NAME``)."""
    return ":".join(function_arn.split(":")[:7])


class SchedulerWakes:
    """Creates and deletes the wake-ups of ``group`` that invoke ``target_arn`` as ``role_arn``."""

    def __init__(self, client: Any, *, group: str, target_arn: str, role_arn: str) -> None:
        self._client = client
        self._group = group
        self._target_arn = unqualified(target_arn)
        self._role_arn = role_arn

    def arm(self, name: str, at: datetime, payload: dict[str, str]) -> bool:
        """Create the schedule ``name``; False when it exists already (a retried arming)."""
        try:
            self._client.create_schedule(
                Name=name,
                GroupName=self._group,
                ScheduleExpression=at_expression(at),
                ScheduleExpressionTimezone="UTC",
                FlexibleTimeWindow={"Mode": "OFF"},
                ActionAfterCompletion="DELETE",
                State="ENABLED",
                Description="production orchestrator: a reminder or escalation of one approval",
                Target={
                    "Arn": self._target_arn,
                    "RoleArn": self._role_arn,
                    "Input": json.dumps(payload, sort_keys=True),
                    "RetryPolicy": dict(RETRY_POLICY),
                },
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConflictException":
                return False
            raise BackendError(f"scheduler create_schedule {name} failed: {_code(exc)}") from None
        except BotoCoreError as exc:
            raise BackendError(f"scheduler create_schedule {name} failed: {type(exc).__name__}") from None
        return True

    def disarm(self, name: str) -> bool:
        """Delete the schedule ``name``; False when there is none (it fired and deleted itself)."""
        try:
            self._client.delete_schedule(Name=name, GroupName=self._group)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
                return False
            raise BackendError(f"scheduler delete_schedule {name} failed: {_code(exc)}") from None
        except BotoCoreError as exc:
            raise BackendError(f"scheduler delete_schedule {name} failed: {type(exc).__name__}") from None
        return True


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", "ClientError"))
