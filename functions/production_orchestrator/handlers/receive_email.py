"""Customer e-mails received by SES start runs (the receipt rule's Lambda action, Event invocation). Imports
nothing of strands.

    SES (rule for the inbound address, scan on) -> S3 inbound/<message id> -> this function
        -> verdicts and recipient checked -> the stored message read and its sender checked
        -> Submission(requested_by = inbound:<address>, customer = the sender) -> StartExecution
        (services/runs/submit.py)

A refusal (an unauthenticated sender, spam, another recipient, a message too large or unreadable, an approver's
own address) is logged with its code and counted (``InboundRefused``), writes nothing and returns normally, so
the delivery is not retried. A missing object or a failing AWS call raises, so Lambda retries the delivery;
the retry finds the record it wrote and the execution it started (one run per message).

The module imports boto3 and the logger only; the checks, the event models (pydantic) and the submit step load
with the first event.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..contracts import METRIC_INBOUND_REFUSED, METRIC_INBOUND_SUBMITTED
from ..domain.errors import InboundRefusalCode, InboundRefusedError, ValidationError
from .observability import count, count_refusal, logger, metrics
from .root import Core, core, runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..domain.intake.inbound_mail import ReceivedMail
    from ..services.runtime import Runtime


@dataclass(frozen=True)
class _Root:
    core: Core
    runtime: Runtime
    inbound_address: str
    bucket: str


@cache
def root() -> _Root:
    """Build once per cold start."""
    shared = core()
    settings = shared.settings.require("state_machine_arn", "inbound_address", "session_bucket")
    return _Root(
        core=shared,
        runtime=runtime("submissions", "starter"),
        inbound_address=str(settings.inbound_address),
        bucket=str(settings.session_bucket),
    )


def _refused(refusal: InboundRefusedError, message_id: str = "") -> dict[str, Any]:
    logger.warning(
        "received e-mail refused",
        extra={"code": refusal.code.value, "reason": refusal.human_message, "ses_message_id": message_id},
    )
    count_refusal(refusal.code.value, METRIC_INBOUND_REFUSED)
    return {"outcome": "refused", "code": refusal.code.value, "message": refusal.human_message}


def _stored_message(r: _Root, mail: ReceivedMail) -> str:
    from ..adapters.aws.s3_requests import read_received

    try:
        return read_received(r.core.client("s3"), r.bucket, mail.message_id)
    except ValidationError as exc:  # larger than any request may be (a missing object raises: retried)
        raise InboundRefusedError(InboundRefusalCode.MESSAGE_TOO_LARGE, str(exc)) from None


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Start one run for an authenticated customer e-mail, or refuse it (returning normally either way)."""
    from ..domain.intake.inbound_mail import accept_message, check_receipt
    from ..services.runs.submit import SubmitReceived, submit_received
    from .events import ReceivedEmailEvent, parse_event

    try:
        mail = parse_event(ReceivedEmailEvent, event).received()
    except ValidationError as exc:
        return _refused(InboundRefusedError(InboundRefusalCode.EVENT_INVALID, str(exc)))
    r = root()
    try:
        check_receipt(mail, r.inbound_address)
        accepted = accept_message(
            mail,
            _stored_message(r, mail),
            inbound_address=r.inbound_address,
            approvers=r.core.settings.approvers,
        )
    except InboundRefusedError as exc:
        return _refused(exc, mail.message_id)
    submitted = submit_received(r.runtime, SubmitReceived(accepted, mail.message_id))
    record = submitted.submission
    logger.info(
        "run started from a received e-mail",
        extra={
            "ses_message_id": mail.message_id,
            "execution_name": record.execution_name,
            "requested_by": record.requested_by,
            "customer": record.customer,
        },
    )
    count(METRIC_INBOUND_SUBMITTED)
    return {
        "outcome": "started",
        "execution_arn": submitted.execution_arn,
        "execution_name": record.execution_name,
        "requested_by": record.requested_by,
        "customer": record.customer,
    }
