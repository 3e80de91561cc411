"""``WaitForHumanDecision`` (``lambda:invoke.waitForTaskToken``): park the token, e-mail the links.

The raw task token goes into the approval record and nowhere else; each approver's link carries the
approval id and a secret of which only the SHA-256 is stored.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from .observability import logger, metrics
from .root import core, runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..services.runtime import Runtime


@cache
def root() -> Runtime:
    """Build once per cold start (the module itself imports boto3 and the logger only)."""
    core().settings.require("topic_arn", "approvers", "link_base_url")
    return runtime("notifier")


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Create the approval and notify every approver."""
    from ..services.asking.request_approval import RequestApproval, request_approval
    from .events import RequestApprovalEvent, RequestApprovalOutput, parse_event

    request = parse_event(RequestApprovalEvent, event)
    logger.append_keys(checkpoint_id=request.checkpoint_id)
    rt, settings = root(), core().settings
    command = RequestApproval(
        checkpoint_id=request.checkpoint_id,
        proposal_hash=request.proposal_hash,
        task_token=request.task_token,
        policy=settings.policy(request.requested_by),
        link_base_url=str(settings.link_base_url),
        supersedes=request.supersedes_approval_id,
    )
    result = request_approval(rt, command)
    logger.append_keys(approval_id=result.approval_id)
    # A retry of this task finds the approval the first attempt created and sends only what did not go out.
    logger.info("approval links sent", extra={"approvers": result.notified, "expires_at": result.expires_at})
    return RequestApprovalOutput(
        approval_id=result.approval_id,
        checkpoint_id=result.checkpoint_id,
        expires_at=result.expires_at,
        notified=result.notified,
    ).model_dump()
