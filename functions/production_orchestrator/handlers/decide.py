"""The decision endpoint (Lambda Function URL, payload format 2.0). Imports nothing of strands.

    GET/HEAD ?a=&s=  -> confirmation page (plan, fingerprint, provider, who is asked, time left) or the
                        neutral page; reads only
    POST ?a=&s= form -> authorize, MAC a receipt (KMS), record the vote (conditional write); once decided
                        SendTaskSuccess({checkpoint_id, approval_id}) -> what happens next; unknown,
                        expired, used or undeliverable: neutral page

The pages and their routing live in approval_web/ (endpoint.py, pages.py), shared with `serve`.

Mail scanners prefetch links with GET and HEAD, which is why only a POST can decide. The query string
and the form carry the link secret: the event is never logged.
"""

from __future__ import annotations

import base64
import binascii
from functools import cache
from typing import Any
from urllib.parse import parse_qsl

from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent
from aws_lambda_powertools.utilities.typing import LambdaContext

from ..adapters.aws.step_functions import StepFunctionsCallback
from ..approval_web.endpoint import DecisionEndpoint, PageResponse
from ..approval_web.pages import CONTENT_TYPE, SECURITY_HEADERS, render_invalid, render_neutral
from ..contracts import METRIC_DECISION_RECORDED
from ..domain.errors import ValidationError
from .events import DecisionForm, LinkQuery, parse_event
from .observability import count, logger, metrics, tracer
from .root import core, receipt_key

_FORM_TYPE = "application/x-www-form-urlencoded"
_MAX_BODY = 16 * 1024


@cache
def root() -> DecisionEndpoint:
    """Build once per cold start. Without ``PO_RECEIPT_KEY_ID`` decisions carry no receipt (logged)."""
    shared = core()
    settings = shared.settings
    mac_key = receipt_key(shared)
    if mac_key is None:
        logger.warning("no receipt key configured: decisions are recorded without receipts")
    return DecisionEndpoint(
        store=shared.store,
        approvals=shared.approvals,
        callback=StepFunctionsCallback(shared.task_callback_client()),
        clock=shared.now,
        mac_key=mac_key,
        allowed_approvers=settings.approvers or None,
    )


def _response(page: PageResponse | None, *, head: bool = False, status: int = 0, body: str = "") -> dict[str, Any]:
    headers = {"Content-Type": CONTENT_TYPE, **SECURITY_HEADERS}
    code, html = (page.status, page.body) if page else (status, body)
    return {"statusCode": code, "headers": headers, "body": "" if head else html, "isBase64Encoded": False}


def _query(event: LambdaFunctionUrlEvent) -> dict[str, str]:
    try:
        query = parse_event(LinkQuery, event.query_string_parameters or {})
    except ValidationError:
        query = LinkQuery()
    return {"a": query.a, "s": query.s}


def _body(event: LambdaFunctionUrlEvent) -> str:
    """The form body as text; anything that is not small, valid base64 (when so marked) and UTF-8 is refused."""
    raw = event.get("body") or ""
    if not isinstance(raw, str) or len(raw) > _MAX_BODY * 2:
        raise ValidationError("the form is too large")
    try:
        data = base64.b64decode(raw, validate=True) if event.get("isBase64Encoded") else raw.encode("utf-8")
        body = data.decode("utf-8")
    except (binascii.Error, ValueError):
        raise ValidationError("the form is not readable text") from None
    if len(data) > _MAX_BODY:
        raise ValidationError("the form is too large")
    return body


def _form(event: LambdaFunctionUrlEvent) -> dict[str, str]:
    content_type = (event.headers or {}).get("content-type", "")
    if content_type.split(";")[0].strip().lower() != _FORM_TYPE:
        raise ValidationError("expected a form post")
    try:
        pairs = parse_qsl(_body(event), keep_blank_values=True, strict_parsing=False, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise ValidationError("the form is not readable text") from None
    form = parse_event(DecisionForm, dict(pairs))
    return {k: v for k, v in form.model_dump().items() if isinstance(v, str)}


@logger.inject_lambda_context(log_event=False, clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Route by method: GET/HEAD show, POST decides, anything else 405."""
    request = LambdaFunctionUrlEvent(event)
    try:
        method = request.request_context.http.method.upper()
    except (KeyError, TypeError, AttributeError):
        # Not a Function URL request (a direct invoke with another payload): nothing to route, nothing read.
        return _response(None, status=400, body=render_invalid("not a web request"))
    endpoint = root()
    if method in ("GET", "HEAD"):
        page = endpoint.show(_query(request))
        logger.info("link opened", extra={"method": method, "outcome": page.label})
        return _response(page, head=method == "HEAD")
    if method == "POST":
        try:
            form = _form(request)
        except ValidationError:
            # Undecodable, oversized, of another type or incomplete: 400 and the neutral page, nothing read.
            logger.info("form not usable")
            return _response(None, status=400, body=render_neutral())
        page = endpoint.post(_query(request), form)
        logger.info("decision post handled", extra={"outcome": page.label})
        if page.label == "recorded":
            count(METRIC_DECISION_RECORDED)
        return _response(page)
    response = _response(None, status=405, body=render_invalid("unsupported method"))
    response["headers"]["Allow"] = "GET, HEAD, POST"
    return response
