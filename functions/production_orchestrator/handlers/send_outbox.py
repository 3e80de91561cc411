"""``SendApprovedMessages``: the applied plan's queued messages go out through Amazon SES. No strands.

    queued --claim--> SES SendEmail (configuration set, verified sender) --mark sent (SES MessageId)
    some still queued (throttled, SES down, another sender holds one) -> DeliveryIncompleteError: the state
        machine retries with backoff; when its retries run out -> MessagesNotSent (Fail) -> alarm
    one refused for good (marked failed)                          -> DeliveryFailedError -> MessagesNotSent
    one edited in storage (not the approved plan's draft, or its status not the audit trail's: a sent one
        edited back to queued; not sent)                          -> DeliveryFailedError -> MessagesNotSent

A message marked sent is never sent again, so a retry of this state (or of the whole invocation) sends
only what is still queued.

The module imports boto3 and the logger only; the transport, the delivery step and the event models (pydantic)
load with the first event, so a cold start pays for them once, when there is something to send.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from ..domain.errors import DeliveryFailedError, DeliveryIncompleteError
from .observability import logger, metrics
from .root import core, runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..services.runtime import Runtime


@cache
def root() -> Runtime:
    """Build once per cold start; without ``PO_SENDER_EMAIL`` nothing can be sent (a configuration error)."""
    from ..adapters.aws.ses_sender import SesTransport

    shared = core()
    settings = shared.settings.require("sender_email")
    transport = SesTransport(shared.client("sesv2"), str(settings.sender_email), settings.ses_configuration_set or "")
    return replace(runtime(), transport=transport)


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Send what is queued for the plan; raise so the workflow retries, or alarms, when any is left."""
    from ..services.outbox.deliver import Deliver, deliver
    from .events import SendOutboxEvent, SendOutboxOutput, parse_event

    request = parse_event(SendOutboxEvent, event)
    logger.append_keys(checkpoint_id=request.checkpoint_id, proposal_hash=request.proposal_hash)
    report = deliver(root(), Deliver(proposal_hash=request.proposal_hash))
    logger.info("messages delivered", extra=report.counts())
    # Pending first: a retry may still deliver them; a failed one waits for a person either way.
    if report.pending:
        raise DeliveryIncompleteError(f"{len(report.pending)} message(s) of {request.proposal_hash} are still queued")
    if report.refused:
        # Edited in storage after the plan applied: never sent; a person must look (``audit verify`` names it).
        logger.error("messages differ from the approved plan", extra={"problems": [p for _, p in report.refused]})
        raise DeliveryFailedError(
            f"{len(report.refused)} message(s) of {request.proposal_hash} differ from the approved plan or from "
            "its audit trail: not sent"
        )
    if report.failed:
        logger.error("messages refused for good", extra={"messages": [m.key for m in report.failed]})
        raise DeliveryFailedError(f"{len(report.failed)} message(s) of {request.proposal_hash} were refused for good")
    return SendOutboxOutput(
        checkpoint_id=request.checkpoint_id,
        proposal_hash=request.proposal_hash,
        sent=len(report.sent),
        already_sent=len(report.already_sent),
        transport_ids=[m.transport_id for m in report.sent + report.already_sent],
    ).model_dump()
