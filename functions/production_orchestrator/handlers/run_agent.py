"""``RunAgentUntilApproval``: run the agent until it asks for approval; session in S3, the rest in DynamoDB.

At import: the logger, the composition root and the model providers (strands), which every invocation
runs. The event models, the lifecycle and the planner load with the first invocation, so the import stays
within 15 % of ``import strands`` (`make bench`); their cost moves to the first request, it does not vanish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Every invocation runs the agent: strands and the model providers load at import, in Lambda's init phase.
from ..agent import providers as _providers  # noqa: F401
from ..contracts import METRIC_PROPOSAL_CREATED, METRIC_REQUEST_NEEDS_FACTS
from .observability import count, logger, metrics
from .root import agent_root

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from ..domain.records import Checkpoint
    from ..services.runs.plan_request import PlanRequest
    from .events import RunAgentEvent
    from .root import AgentRoot


def plan_request(request: RunAgentEvent, root: AgentRoot, submitted: str | None = None) -> PlanRequest:
    """What this execution plans: its e-mail (the submission record's, else inline or in S3) on the table's
    shop, or a reference scenario."""
    from ..adapters.aws.s3_requests import read_request
    from ..services.runs.plan_request import PlanRequest, on_current_shop

    settings = root.core.settings
    text = submitted if submitted is not None else request.request
    if submitted is None and request.request_s3_key is not None:
        text = read_request(root.core.client("s3"), str(settings.session_bucket), request.request_s3_key)
    if text is None or request.scenario:
        return PlanRequest.of_scenario(request.scenario or settings.scenario, text=text, planning_day=request.as_of)
    return on_current_shop(root.runtime, text, request.as_of)


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Start one run and return the ids the workflow passes on; a request that cannot be read returns its hold
    (it waits as *needs facts*, the operator alerted), so nothing raises and nothing is retried."""
    from ..domain.errors import NeedsFactsError
    from ..services.runs.start import StartRun, start_run
    from ..services.runs.submit import RequesterOf, requester_of
    from .events import NeedsFactsOutput, RunAgentEvent, parse_event

    request = parse_event(RunAgentEvent, event)
    root = agent_root("operator")
    settings = root.core.settings.require("approvers")
    if request.revise is not None:
        return _revised(request, root)
    # Before anything runs or is written: who asked, from the submission record of this very execution.
    requested_by, submission = requester_of(
        root.runtime,
        RequesterOf(request.execution_name, request.requested_by, settings.separation_of_duties),
    )
    logger.append_keys(execution_name=request.execution_name, requested_by=requested_by)
    # Checked before the agent runs: a run nobody may approve (separation of duties without a requester, a
    # quorum larger than the approver list) costs no model call and leaves nothing behind.
    settings.policy(requested_by)
    # A submitted run plans the record's text, never what the execution input says.
    planned = plan_request(request, root, submission.request if submission else None)
    try:
        result = start_run(root.runtime, StartRun(planned, root.binding, settings.approval_window, seed=False))
    except NeedsFactsError as held:
        logger.info("request waits as needs facts", extra={"held_id": held.held_id, "missing": list(held.problems)})
        count(METRIC_REQUEST_NEEDS_FACTS)
        return NeedsFactsOutput(held_id=held.held_id, missing=held.problems, requested_by=requested_by).model_dump()
    cp = result.checkpoint
    logger.append_keys(checkpoint_id=cp.checkpoint_id, session_id=cp.session_id)
    logger.info(
        "approval requested",
        extra={"proposal_hash": cp.proposal_hash, "expires_at": cp.expires_at, "provider": root.binding.describe()},
    )
    count(METRIC_PROPOSAL_CREATED)
    return _output(root, cp, requested_by)


def _output(root: AgentRoot, cp: Checkpoint, requested_by: str, supersedes: str = "") -> dict[str, Any]:
    from ..domain.records import seconds_until
    from .events import RunAgentOutput

    return RunAgentOutput(
        session_id=cp.session_id,
        checkpoint_id=cp.checkpoint_id,
        interrupt_id=cp.interrupt_id,
        proposal_hash=cp.proposal_hash,
        expires_at=cp.expires_at,
        # WaitForHumanDecision times out on this (TimeoutSecondsPath): when this version's approval expires.
        wait_seconds=seconds_until(cp.expires_at, root.runtime.clock()),
        requested_by=requested_by,
        supersedes_approval_id=supersedes,
    ).model_dump()


def _revised(request: RunAgentEvent, root: AgentRoot) -> dict[str, Any]:
    """PlanRevisedVersion: the next version of the plan a revision was asked on, its window counted from now; the
    requester stays the one the first version's approval recorded."""
    from ..services.runs.revise import PlanRevision, plan_revision

    pointer = request.revise
    assert pointer is not None
    command = PlanRevision(pointer.checkpoint_id, pointer.approval_id, root.binding, root.core.settings.approval_window)
    result, answered = plan_revision(root.runtime, command)
    cp = result.checkpoint
    logger.append_keys(checkpoint_id=cp.checkpoint_id, session_id=cp.session_id, revises=answered.approval_id)
    logger.info(
        "revised version planned",
        extra={"proposal_hash": cp.proposal_hash, "version": result.proposal.version, "expires_at": cp.expires_at},
    )
    count(METRIC_PROPOSAL_CREATED)
    return _output(root, cp, answered.requester, answered.approval_id)
