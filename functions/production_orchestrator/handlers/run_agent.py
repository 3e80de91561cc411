"""``RunAgentUntilApproval``: run the agent until it asks for approval; session in S3, the rest in DynamoDB."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from ..contracts import METRIC_PROPOSAL_CREATED
from ..lifecycle.start import start_run
from .events import RunAgentEvent, RunAgentOutput, parse_event
from .observability import count, logger, metrics, tracer
from .root import agent_root


@logger.inject_lambda_context(log_event=False, clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Start one run and return the ids the workflow passes on."""
    request = parse_event(RunAgentEvent, event)
    root = agent_root()
    settings = root.core.settings.require("approvers")
    # Checked before the agent runs: a run nobody may approve (separation of duties without a requester, a
    # quorum larger than the approver list) costs no model call and leaves nothing behind.
    settings.policy(request.requested_by)
    result = start_run(root.runtime, request.scenario or settings.scenario, root.binding, settings.approval_window)
    cp = result.checkpoint
    logger.append_keys(checkpoint_id=cp.checkpoint_id, session_id=cp.session_id)
    logger.info(
        "approval requested",
        extra={"proposal_hash": cp.proposal_hash, "expires_at": cp.expires_at, "provider": root.binding.describe()},
    )
    count(METRIC_PROPOSAL_CREATED)
    return RunAgentOutput(
        session_id=cp.session_id,
        checkpoint_id=cp.checkpoint_id,
        interrupt_id=cp.interrupt_id,
        proposal_hash=cp.proposal_hash,
        expires_at=cp.expires_at,
        requested_by=request.requested_by,
    ).model_dump()
