"""``ResumeVerifiedDecision``: a fresh process re-reads everything, verifies, and resumes with the decision.

A refusal is raised as ``ResumeRefusedError`` (the state machine catches on the class name).

At import: the logger, the composition root and the model providers (strands), which every invocation
runs. The event models and the lifecycle load with the first invocation, so the import stays within 15 % of
``import strands`` (`make bench`); their cost moves to the first request, it does not vanish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Every invocation runs the agent: strands and the model providers load at import, in Lambda's init phase.
from ..agent import providers as _providers  # noqa: F401
from ..contracts import METRIC_PLAN_APPLIED, OUTCOME_APPLIED, OUTCOME_REJECTED
from .observability import count, count_refusal, logger, metrics
from .root import agent_root

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Resume one checkpoint with the decision its approval holds."""
    from ..domain.errors import ResumeRefusedError
    from ..services.deciding.resume_approval import ResumeDecided, resume_decided
    from .events import ResumeEvent, ResumeOutput, parse_event

    request = parse_event(ResumeEvent, event)
    logger.append_keys(checkpoint_id=request.checkpoint_id, approval_id=request.approval_id)
    if request.session_id:
        logger.append_keys(session_id=request.session_id)
    root = agent_root()
    try:
        command = ResumeDecided(
            checkpoint_id=request.checkpoint_id,
            approval_id=request.approval_id,
            binding=root.binding,
            interrupt_id=request.interrupt_id,
            session_id=request.session_id,
            allowed=root.core.settings.approvers or None,
        )
        result = resume_decided(root.runtime, command)
    except ResumeRefusedError as refusal:
        logger.warning("resume refused", extra={"code": refusal.code.value, "reason": refusal.human_message})
        count_refusal(refusal.code.value)
        raise
    if result.outcome == OUTCOME_APPLIED:
        count(METRIC_PLAN_APPLIED)
    logger.info(
        "resume finished",
        extra={"outcome": result.outcome, "revision": result.revision, "plan_applied_count": result.plan_applied_count},
    )
    return ResumeOutput(
        outcome=OUTCOME_APPLIED if result.outcome == OUTCOME_APPLIED else OUTCOME_REJECTED,
        checkpoint_id=request.checkpoint_id,
        state_revision=result.revision,
        plan_applied_count=result.plan_applied_count,
    ).model_dump()
