"""Wakes the parked workflow with ``SendTaskSuccess``; the output is a pointer, never the decision."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.errors import BackendError, TaskTokenClosedError

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
