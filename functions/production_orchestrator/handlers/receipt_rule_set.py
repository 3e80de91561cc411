"""The stack's custom resource for inbound mail: the region's active SES receipt rule set, shared by the shops.

    CloudFormation Create/Update -> SharedReceiptRuleSet.ensure() -> Data.RuleSetName (the shop's rule goes in it)
    CloudFormation Delete (after the shop's rule is gone) -> release(): ours and empty -> deactivated, deleted

The response goes to CloudFormation's pre-signed ``ResponseURL`` (a Lambda-backed custom resource without the
provider framework); a failure is reported as FAILED with its message, so a stack never waits an hour for it.
"""

from __future__ import annotations

import json
import urllib.request
from typing import TYPE_CHECKING, Any

import boto3  # type: ignore[import-untyped]

from ..adapters.aws.boto_config import BOTO_CONFIG
from ..adapters.aws.receipt_rule_sets import SharedReceiptRuleSet
from .observability import logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext


def respond(event: dict[str, Any], ses: Any) -> dict[str, Any]:
    """The custom resource's response body for ``event`` (never raises: an error is a FAILED response)."""
    rule_sets = SharedReceiptRuleSet(ses)
    body: dict[str, Any] = {
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
    }
    try:
        if event["RequestType"] == "Delete":
            used = str(event.get("PhysicalResourceId") or "")
            rule_sets.release(used)
            name = used
        else:
            name = rule_sets.ensure()
        body.update({"Status": "SUCCESS", "PhysicalResourceId": name, "Data": {"RuleSetName": name}})
    except Exception as exc:
        logger.exception("receipt rule set request failed", extra={"request_type": event.get("RequestType")})
        body.update(
            {
                "Status": "FAILED",
                "Reason": f"{type(exc).__name__}: {exc}"[:400],
                "PhysicalResourceId": str(event.get("PhysicalResourceId") or "none"),
            }
        )
    return body


def send(url: str, body: dict[str, Any]) -> None:
    """PUT the response to CloudFormation's pre-signed S3 URL (empty content type, as S3 signed it)."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="PUT", headers={"Content-Type": ""})
    with urllib.request.urlopen(request, timeout=30) as reply:
        reply.read()


@logger.inject_lambda_context(log_event=False, clear_state=True)
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    """Answer one CloudFormation custom resource request."""
    body = respond(event, boto3.client("ses", config=BOTO_CONFIG))
    logger.info("receipt rule set", extra={"status": body["Status"], "rule_set": body["PhysicalResourceId"]})
    send(str(event["ResponseURL"]), body)
