"""The decision endpoint (Lambda Function URL, payload format 2.0). Imports nothing of strands.

    GET/HEAD ?a=&s=  -> confirmation page (plan, fingerprint, provider, who is asked, time left) or the
                        neutral page; reads only
    POST ?a=&s= form -> authorize, MAC a receipt (KMS), record the vote (conditional write); once decided
                        SendTaskSuccess({checkpoint_id, approval_id}) -> what happens next; unknown,
                        expired, used or undeliverable: neutral page
    POST decision=revise + guidance -> the same identity rules; the ask recorded on the approval (it closes,
                        superseded) -> SendTaskSuccess({..., revise: true}): the workflow plans the next version

The pages and their routing live in approval_web/ (endpoint.py, pages.py), shared with `serve`.

Mail scanners prefetch links with GET and HEAD, which is why only a POST can decide. The query string
and the form carry the link secret: the event is never logged.

The module imports boto3 and the logger only; the page code, the stores and the event models load with the
first request that needs them (a payload that is not a web request, or an unsupported method, never does).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from ..contracts import METRIC_DECISION_RECORDED
from .observability import count, logger, metrics
from .root import core, runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..approval_web.endpoint import DecisionEndpoint, PageResponse

_FORM_TYPE = "application/x-www-form-urlencoded"
_MAX_BODY = 16 * 1024
_METHODS = "GET, HEAD, POST"


@cache
def root() -> DecisionEndpoint:
    """Build once per cold start. Without ``PO_RECEIPT_KEY_ID`` decisions carry no receipt (logged)."""
    from ..approval_web.endpoint import DecisionEndpoint
    from ..approval_web.revision_form import WorkflowRevise
    from ..services.deciding.authorize import identities

    rt = runtime("callback")
    if rt.receipt_key is None:
        logger.warning("no receipt key configured: decisions are recorded without receipts")
    allowed = core().settings.approvers or None
    # "Change the plan" records the ask and wakes the workflow, which plans the next version (no agent here).
    return DecisionEndpoint(rt=rt, allowed_approvers=allowed, reviser=WorkflowRevise(rt, identities(allowed)))


def _response(page: PageResponse | None, *, head: bool = False, status: int = 0, body: str = "") -> dict[str, Any]:
    from ..approval_web.pages import CONTENT_TYPE, SECURITY_HEADERS

    headers = {"Content-Type": CONTENT_TYPE, **SECURITY_HEADERS}
    code, html = (page.status, page.body) if page else (status, body)
    return {"statusCode": code, "headers": headers, "body": "" if head else html, "isBase64Encoded": False}


def _invalid(status: int, why: str) -> dict[str, Any]:
    from ..approval_web.pages import render_invalid

    return _response(None, status=status, body=render_invalid(why))


def _method(event: Any) -> str | None:
    """The HTTP method of a Function URL request (payload 2.0), or None for any other payload."""
    try:
        method = event["requestContext"]["http"]["method"]
    except (KeyError, TypeError, IndexError):
        return None
    return method.upper() if isinstance(method, str) else None


def _query(event: Mapping[str, Any]) -> dict[str, str]:
    from ..domain.errors import ValidationError
    from .events import LinkQuery, parse_event

    try:
        query = parse_event(LinkQuery, event.get("queryStringParameters") or {})
    except ValidationError:
        query = LinkQuery()
    return {"a": query.a, "s": query.s}


def _body(event: Mapping[str, Any]) -> str:
    """The form body as text; anything that is not small, valid base64 (when so marked) and UTF-8 is refused."""
    from ..domain.errors import ValidationError

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


def _form(event: Mapping[str, Any]) -> dict[str, str]:
    from ..domain.errors import ValidationError
    from .events import DecisionForm, parse_event

    headers = event.get("headers") or {}
    content_type = next((str(v) for k, v in headers.items() if str(k).lower() == "content-type"), "")
    if content_type.split(";")[0].strip().lower() != _FORM_TYPE:
        raise ValidationError("expected a form post")
    try:
        pairs = parse_qsl(_body(event), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise ValidationError("the form is not readable text") from None
    form = parse_event(DecisionForm, dict(pairs))
    return {k: v for k, v in form.model_dump().items() if isinstance(v, str)}


def _post(event: Mapping[str, Any]) -> dict[str, Any]:
    from ..domain.errors import ValidationError

    try:
        form = _form(event)
    except ValidationError:
        # Undecodable, oversized, of another type or incomplete: 400 and the neutral page, nothing read.
        from ..approval_web.pages import render_neutral

        logger.info("form not usable")
        return _response(None, status=400, body=render_neutral())
    page = root().post(_query(event), form)
    logger.info("decision post handled", extra={"outcome": page.label})
    if page.label == "recorded":
        count(METRIC_DECISION_RECORDED)
    return _response(page)


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Route by method: GET/HEAD show, POST decides, anything else 405."""
    method = _method(event)
    if method is None:
        # Not a Function URL request (a direct invoke with another payload): nothing to route, nothing read.
        return _invalid(400, "not a web request")
    if method in ("GET", "HEAD"):
        page = root().show(_query(event))
        logger.info("link opened", extra={"method": method, "outcome": page.label})
        return _response(page, head=method == "HEAD")
    if method == "POST":
        return _post(event)
    response = _invalid(405, "unsupported method")
    response["headers"]["Allow"] = _METHODS
    return response
