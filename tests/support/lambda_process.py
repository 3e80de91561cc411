"""One Lambda invocation in a fresh interpreter: ``python lambda_process.py HANDLER RESULT_FILE [no-strands]``.

Reads the event from stdin, calls the handler with a minimal context, and writes
``{"pid", "result", "calls"}`` or ``{"pid", "error": {"errorType", "errorMessage"}, "calls"}`` to RESULT_FILE
(stdout and stderr stay the function's log stream). ``calls`` lists every AWS API call the handler made as
``[signing name, operation, partition keys | list prefix]`` (tests/support/iam_calls.py turns them into IAM actions).
``no-strands`` makes any import of strands fail, as it would in the decision function's asset, which does
not ship it. ``PO_LOCAL_NOW`` (an ISO time, tests only) is the handlers' clock for this invocation, as the
in-process tests set ``handlers.root.utc_now``: a scheduled wake-up runs at its own moment, no test waits.
"""

from __future__ import annotations

import importlib
import importlib.abc
import json
import os
import sys
import uuid
from collections.abc import Sequence
from types import ModuleType
from typing import Any


class _NoStrands(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> None:
        if fullname == "strands" or fullname.startswith("strands."):
            raise ImportError(f"{fullname} is not in this function's asset")
        return None


class _Context:
    def __init__(self, function_name: str) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 512
        self.invoked_function_arn = os.environ.get("PO_LOCAL_FUNCTION_ARN", function_name)
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "local"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


def _partition_keys(operation: str, params: dict[str, Any]) -> list[str]:
    """The table partition keys a DynamoDB request touches (``pk`` of each item, key or query)."""
    found: list[Any] = []
    if operation in ("GetItem", "UpdateItem", "DeleteItem"):
        found.append(params.get("Key", {}).get("pk"))
    elif operation == "PutItem":
        found.append(params.get("Item", {}).get("pk"))
    elif operation == "Query":
        found.append(params.get("ExpressionAttributeValues", {}).get(":pk"))
    elif operation == "BatchGetItem":
        found.extend(k.get("pk") for table in params.get("RequestItems", {}).values() for k in table["Keys"])
    elif operation in ("TransactWriteItems", "TransactGetItems"):
        for item in params.get("TransactItems", []):
            ((kind, body),) = item.items()
            found.append(f"{kind}:" + str((body.get("Item") or body.get("Key") or {}).get("pk", {}).get("S")))
        return [str(f) for f in found]
    return [str(v.get("S")) for v in found if isinstance(v, dict)]


def _record_calls(calls: list[list[Any]]) -> None:
    from botocore.client import BaseClient  # type: ignore[import-untyped]

    original = BaseClient._make_api_call

    def recording(client: Any, operation: str, params: dict[str, Any]) -> Any:
        signing = client.meta.service_model.signing_name
        if signing == "dynamodb":
            scope = _partition_keys(operation, params)
        elif operation == "ListObjectsV2":
            scope = [str(params.get("Prefix", ""))]  # what s3:prefix conditions see
        elif signing == "ses" and operation == "SendEmail":
            scope = [str(params.get("FromEmailAddress", ""))]  # what ses:FromAddress conditions see
        else:
            scope = []
        calls.append([signing, operation, scope])
        return original(client, operation, params)

    BaseClient._make_api_call = recording


def main(argv: list[str]) -> int:
    handler_path, result_file = argv[1], argv[2]
    if len(argv) > 3 and argv[3] == "no-strands":
        sys.meta_path.insert(0, _NoStrands())
    event = json.load(sys.stdin)
    if os.environ.get("PO_LOCAL_NOW"):
        from datetime import datetime

        from production_orchestrator.handlers import root

        moment = datetime.fromisoformat(os.environ["PO_LOCAL_NOW"].replace("Z", "+00:00"))
        root.utc_now = lambda: moment
    calls: list[list[Any]] = []
    _record_calls(calls)
    outcome: dict[str, Any] = {"pid": os.getpid(), "calls": calls}
    try:
        module_name, function_name = handler_path.rsplit(".", 1)
        handler = getattr(importlib.import_module(module_name), function_name)
        outcome["result"] = handler(event, _Context(os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "local")))
    except Exception as exc:  # the Lambda runtime reports every exception the same way
        outcome["error"] = {"errorType": type(exc).__name__, "errorMessage": str(exc)}
    with open(result_file, "w", encoding="utf-8") as out:
        json.dump(outcome, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
