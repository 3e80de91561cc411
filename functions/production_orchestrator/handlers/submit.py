"""The submit entry (Lambda Function URL, ``AWS_IAM`` auth, payload format 2.0). Imports nothing of strands.

    POST {"request": "<customer e-mail>"[, "client_token": "<token>"]}, SigV4-signed -> Lambda verified the
    signature and names the caller in requestContext.authorizer.iam -> Submission(requested_by = that caller)
    -> StartExecution under the name of (caller, token or request) -> 202; a retried POST: the first run, 202

The module imports boto3 and the logger only; the event classes, the event models (pydantic) and the submit
step load with the first request.

Who asked comes from the authorizer, never from the body: a ``requested_by`` in the body is ignored; the
caller becomes a person through the submitter map (``PO_SUBMITTERS``), and a caller it does not name is
refused (403, ``SUBMITTER_UNKNOWN``), nothing written; so is a caller whose address cannot be established (an
Identity Center username that is no address and no username map names; under separation of duties, a bare
name): 403, ``SUBMITTER_UNMAPPED``. A request without an IAM caller (the URL misconfigured
to ``NONE``) is refused, nothing written.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from ..domain.errors import ClientTokenReusedError, SubmitterUnknownError, ValidationError
from .observability import logger, metrics
from .root import core, runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..services.runtime import Runtime
    from .events import SubmitRequest

_MAX_BODY = 64 * 1024


@cache
def root() -> Runtime:
    """Build once per cold start."""
    core().settings.require("state_machine_arn")
    return runtime("submissions", "starter")


def _reply(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json", "Cache-Control": "no-store"},
        "body": json.dumps(body, sort_keys=True),
        "isBase64Encoded": False,
    }


def _caller(event: LambdaFunctionUrlEvent) -> tuple[str, str]:
    """The IAM caller Lambda verified: (user ARN, caller id); empty when there is none."""
    try:
        iam = event.request_context.authorizer.iam
        return str(iam.user_arn or ""), str(iam.caller_id or "")
    except (KeyError, TypeError, AttributeError):
        return "", ""


def _body(event: LambdaFunctionUrlEvent) -> SubmitRequest:
    from .events import SubmitRequest, parse_event

    try:
        raw = event.decoded_body or ""
    except (ValueError, TypeError):  # not base64 (binascii.Error) or not UTF-8 (UnicodeDecodeError)
        raise ValidationError("the body must be UTF-8 JSON (base64-encoded only when isBase64Encoded is set)") from None
    if len(raw) > _MAX_BODY:
        raise ValidationError("the body is too large")
    try:
        data = json.loads(raw)
    except ValueError:
        raise ValidationError('the body must be JSON: {"request": "<customer e-mail>"}') from None
    body = parse_event(SubmitRequest, data)
    try:
        body.request.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON "\udc80"): no text a request could be hashed from
        raise ValidationError("the request must be UTF-8 text") from None
    return body


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """POST only; 403 without an IAM caller, 400 on a bad body, 409 on a client token of another request, else
    202 with the execution ARN (a retry: the first run's)."""
    from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent

    from ..services.runs.submit import Submit, submit
    from .events import SubmitOutput

    request = LambdaFunctionUrlEvent(event)
    try:
        method = request.request_context.http.method.upper()
    except (KeyError, TypeError, AttributeError):
        return _reply(400, {"error": "not a web request"})
    if method != "POST":
        return _reply(405, {"error": "POST a JSON body"})
    caller_arn, caller_id = _caller(request)
    if not caller_arn:
        logger.warning("submit without an IAM caller refused")
        return _reply(403, {"error": "the caller is not authenticated (the submit URL needs AWS_IAM auth)"})
    try:
        body = _body(request)
        rt = root()
        command = Submit(
            caller_arn=caller_arn,
            caller_id=caller_id,
            request=body.request,
            submitters=dict(core().settings.submitters),
            options={k: v for k, v in (("scenario", body.scenario), ("as_of", body.as_of)) if v},
            client_token=body.client_token,
            separation_of_duties=core().settings.separation_of_duties,
        )
        submitted = submit(rt, command)
    except SubmitterUnknownError as exc:
        logger.warning("submit by an unmapped caller refused", extra={"caller": caller_arn})
        return _reply(403, {"error": str(exc), "code": exc.code})
    except ClientTokenReusedError as exc:
        return _reply(409, {"error": str(exc), "code": exc.code})
    except ValidationError as exc:
        return _reply(400, {"error": str(exc), "code": "REQUEST_INVALID"})
    record = submitted.submission
    logger.info(
        "run submitted",
        extra={"execution_name": record.execution_name, "requested_by": record.requested_by, "caller": caller_arn},
    )
    return _reply(
        202,
        SubmitOutput(
            execution_arn=submitted.execution_arn,
            execution_name=record.execution_name,
            requested_by=record.requested_by,
        ).model_dump(),
    )
