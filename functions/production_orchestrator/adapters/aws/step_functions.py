"""Step Functions: wake the parked workflow with ``SendTaskSuccess`` (the output is a pointer, never the
decision), and start a submitted run with ``StartExecution``."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.errors import BackendError, IntegrityError, TaskTokenClosedError

# The workflow stopped waiting on this token: timed out, never existed, or was answered already.
CLOSED_TOKEN_CODES = frozenset({"TaskTimedOut", "InvalidToken", "TaskDoesNotExist"})


class StepFunctionsCallback:
    """``SendTaskSuccess`` through one Step Functions client."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        """Report success; a closed token raises :class:`TaskTokenClosedError`."""
        try:
            self._client.send_task_success(taskToken=task_token, output=json.dumps(output, sort_keys=True))
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            # Neither the exception text nor the request may be logged: both would carry the token.
            if code in CLOSED_TOKEN_CODES:
                raise TaskTokenClosedError(f"the workflow no longer waits for this decision ({code})") from None
            raise BackendError(f"states SendTaskSuccess failed: {code or 'unknown error'}") from None
        except BotoCoreError as exc:
            raise BackendError(f"states SendTaskSuccess failed: {type(exc).__name__}") from None


class StepFunctionsStarter:
    """``StartExecution`` of one state machine."""

    def __init__(self, client: Any, state_machine_arn: str) -> None:
        self._client = client
        self._state_machine_arn = state_machine_arn

    def start(self, execution_name: str, execution_input: dict[str, Any]) -> str:
        """Start ``execution_name`` with ``execution_input``; its ARN. A name in use is an ``IntegrityError``."""
        try:
            response = self._client.start_execution(
                stateMachineArn=self._state_machine_arn,
                name=execution_name,
                input=json.dumps(execution_input, sort_keys=True),
            )
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code == "ExecutionAlreadyExists":
                raise IntegrityError(f"an execution named {execution_name} exists already") from None
            raise BackendError(f"states StartExecution failed: {code or 'unknown error'}") from None
        except BotoCoreError as exc:
            raise BackendError(f"states StartExecution failed: {type(exc).__name__}") from None
        return str(response["executionArn"])

    def execution_arn(self, execution_name: str) -> str:
        """The execution's ARN, from the state machine's: ``...:stateMachine:NAME`` -> ``...:execution:NAME:EXEC``."""
        prefix, _, machine = self._state_machine_arn.rpartition(":stateMachine:")
        return f"{prefix}:execution:{machine}:{execution_name}"
