"""Scheduled (every few minutes): publish how long the oldest pending approval has waited.

Feeds the ``OldestPendingApprovalAgeSeconds`` alarm; 0 when nothing waits, so the alarm always has data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.metrics import MetricUnit

from ..contracts import METRIC_OLDEST_PENDING_APPROVAL_AGE
from .observability import logger, metrics
from .root import runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Publish the age of the oldest approval still waiting for a person."""
    # Loaded by the invocation, not the module import (which stays at boto3 and the logger).
    from ..services.status import pending_approval_ages

    ages = pending_approval_ages(runtime())
    oldest = ages[0] if ages else 0
    metrics.add_metric(name=METRIC_OLDEST_PENDING_APPROVAL_AGE, unit=MetricUnit.Seconds, value=oldest)
    logger.info("pending approvals", extra={"pending": len(ages), "oldest_age_seconds": oldest})
    return {"pending": len(ages), "oldest_pending_age_seconds": oldest}
