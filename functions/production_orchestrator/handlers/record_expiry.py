"""``DecisionExpired``: the wait timed out. Pending approvals become expired; nothing is ever approved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..contracts import METRIC_DECISION_EXPIRED
from .observability import count, logger, metrics
from .root import runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Expire the checkpoint's pending approvals and report the unchanged shop."""
    # Loaded by the invocation, not the module import (which stays at boto3 and the logger).
    from ..services.asking.expire import Expire, expire_approvals
    from .events import RecordExpiryEvent, RecordExpiryOutput, parse_event

    request = parse_event(RecordExpiryEvent, event)
    logger.append_keys(checkpoint_id=request.checkpoint_id)
    rt = runtime()
    expired = expire_approvals(rt, Expire(request.checkpoint_id))
    state = rt.store.load_state()
    logger.info("approval expired", extra={"approval_ids": expired})
    count(METRIC_DECISION_EXPIRED)
    return RecordExpiryOutput(
        checkpoint_id=request.checkpoint_id,
        expired_approvals=expired,
        state_revision=0 if state is None else state.revision,
        plan_applied_count=rt.store.application_count(),
    ).model_dump()
