"""``WaitForHumanDecision`` (``lambda:invoke.waitForTaskToken``): park the token, e-mail the links.

The raw task token goes into the approval record and nowhere else; each approver's link carries the
approval id and a secret of which only the SHA-256 is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from .observability import logger, metrics
from .root import Core, core

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..adapters.aws.sns_notifier import SnsApprovalNotifier


@dataclass(frozen=True)
class _Root:
    core: Core
    notifier: SnsApprovalNotifier


@cache
def root() -> _Root:
    """Build once per cold start (the module itself imports boto3 and the logger only)."""
    from ..adapters.aws.sns_notifier import SnsApprovalNotifier

    shared = core()
    settings = shared.settings.require("topic_arn", "approvers", "link_base_url")
    return _Root(core=shared, notifier=SnsApprovalNotifier(shared.client("sns"), str(settings.topic_arn)))


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Create the approval and notify every approver."""
    from ..services.asking.request_approval import request_approval
    from .events import RequestApprovalEvent, RequestApprovalOutput, parse_event

    request = parse_event(RequestApprovalEvent, event)
    logger.append_keys(checkpoint_id=request.checkpoint_id)
    r = root()
    settings = r.core.settings
    result = request_approval(
        r.core.store,
        r.core.approvals,
        r.notifier,
        checkpoint_id=request.checkpoint_id,
        proposal_hash=request.proposal_hash,
        task_token=request.task_token,
        policy=settings.policy(request.requested_by),
        link_base_url=str(settings.link_base_url),
        now=r.core.now(),
    )
    logger.append_keys(approval_id=result.approval_id)
    # A retry of this task finds the approval the first attempt created and sends only what did not go out.
    logger.info("approval links sent", extra={"approvers": result.notified, "expires_at": result.expires_at})
    return RequestApprovalOutput(
        approval_id=result.approval_id,
        checkpoint_id=result.checkpoint_id,
        expires_at=result.expires_at,
        notified=result.notified,
    ).model_dump()
