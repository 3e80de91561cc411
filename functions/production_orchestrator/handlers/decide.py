"""The decision endpoint (Lambda Function URL, payload format 2.0). Imports nothing of strands.

    GET/HEAD ?a=&s=  -> confirmation page (plan, fingerprint, provider, expiry) or the neutral page; reads only
    POST form        -> record the decision once (conditional write) -> SendTaskSuccess({checkpoint_id,
                        approval_id}) -> outcome page; unknown, expired, used or undeliverable: neutral page

Mail scanners prefetch links with GET and HEAD, which is why only a POST can decide. The query string
and the form carry the link secret: the event is never logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qsl

from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent
from aws_lambda_powertools.utilities.typing import LambdaContext

from ..adapters.aws.step_functions import StepFunctionsCallback
from ..approval_page import (
    CONTENT_TYPE,
    SECURITY_HEADERS,
    render_confirmation,
    render_hash_mismatch,
    render_invalid,
    render_neutral,
    render_recorded,
)
from ..approval_service import decide, open_link
from ..domain.errors import ValidationError
from .core import Core, core
from .events import DecisionForm, LinkQuery, parse_event
from .observability import count, logger, metrics, tracer

_FORM_TYPE = "application/x-www-form-urlencoded"
_MAX_BODY = 16 * 1024


@dataclass(frozen=True)
class _Root:
    core: Core
    callback: StepFunctionsCallback


@cache
def root() -> _Root:
    """Build once per cold start."""
    shared = core()
    return _Root(core=shared, callback=StepFunctionsCallback(shared.client("stepfunctions")))


def _response(status: int, body: str, *, head: bool = False, extra: dict[str, str] | None = None) -> dict[str, Any]:
    headers = {"Content-Type": CONTENT_TYPE, **SECURITY_HEADERS, **(extra or {})}
    return {"statusCode": status, "headers": headers, "body": "" if head else body, "isBase64Encoded": False}


def _show(r: _Root, event: LambdaFunctionUrlEvent, *, head: bool) -> dict[str, Any]:
    try:
        query = parse_event(LinkQuery, event.query_string_parameters or {})
    except ValidationError:
        query = LinkQuery()
    view = open_link(r.core.store, r.core.approvals, query.a, query.s, r.core.now())
    if view is None:
        logger.info("link not usable", extra={"method": "HEAD" if head else "GET"})
        return _response(404, render_neutral(), head=head)
    logger.append_keys(approval_id=view.approval.approval_id, checkpoint_id=view.approval.checkpoint_id)
    logger.info("confirmation shown", extra={"approver": view.approver, "method": "HEAD" if head else "GET"})
    page = render_confirmation(
        view.checkpoint, view.proposal, approval_id=view.approval.approval_id, secret=query.s, approver=view.approver
    )
    return _response(200, page, head=head)


def _form(event: LambdaFunctionUrlEvent) -> DecisionForm:
    content_type = (event.headers or {}).get("content-type", "")
    if content_type.split(";")[0].strip().lower() != _FORM_TYPE:
        raise ValidationError("expected a form post")
    body = event.decoded_body or ""
    if len(body) > _MAX_BODY:
        raise ValidationError("the form is too large")
    return parse_event(DecisionForm, dict(parse_qsl(body, keep_blank_values=True)))


def _decide(r: _Root, event: LambdaFunctionUrlEvent) -> dict[str, Any]:
    try:
        form = _form(event)
    except ValidationError:
        logger.info("form not usable")
        return _response(400, render_invalid("the form is incomplete or malformed"))
    result = decide(
        r.core.store,
        r.core.approvals,
        r.callback,
        approval_id=form.a,
        secret=form.s,
        approve=form.decision == "approve",
        reviewed_hash=form.reviewed_hash,
        reason=form.reason,
        now=r.core.now(),
    )
    if result.approval_id:
        logger.append_keys(approval_id=result.approval_id)
    logger.info("decision post handled", extra={"status": result.status, "approver": result.approver})
    if result.status == "recorded" and result.decision is not None:
        count("DecisionRecorded")
        decision = result.decision
        return _response(
            200,
            render_recorded(
                approved=decision.approved, approver=decision.approver, proposal_hash=decision.reviewed_hash
            ),
        )
    if result.status == "hash_mismatch":
        return _response(409, render_hash_mismatch())
    if result.status == "invalid":
        return _response(400, render_invalid(result.detail))
    return _response(404, render_neutral())


@logger.inject_lambda_context(log_event=False, clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Route by method: GET/HEAD show, POST decides, anything else 405."""
    request = LambdaFunctionUrlEvent(event)
    method = request.request_context.http.method.upper()
    r = root()
    if method in ("GET", "HEAD"):
        return _show(r, request, head=method == "HEAD")
    if method == "POST":
        return _decide(r, request)
    return _response(405, render_invalid("unsupported method"), extra={"Allow": "GET, HEAD, POST"})
