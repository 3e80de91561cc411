"""The synthesized state machine, executed on a moto server with every Lambda invocation a fresh process.

approve -> SendApprovedMessages (SES, each message once) -> PlanApplied (revision 1 -> 2, one application);
reject -> PlanRejected (nothing changes, nothing sent); stale domain state while parked -> the approve is
refused on the page, a reject cancels it -> PlanRejected; no decision -> DecisionExpired (a valid link then
says so).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from infra.constants import (
    STATE_ALREADY_PENDING,
    STATE_APPROVAL_NOT_REQUESTED,
    STATE_ARM_REMINDERS,
    STATE_DECISION_EXPIRED,
    STATE_DECISION_KIND,
    STATE_DISARM_REMINDERS,
    STATE_MESSAGES_NOT_SENT,
    STATE_NO_SHOP,
    STATE_OUTCOME,
    STATE_PLAN_APPLIED,
    STATE_PLAN_REJECTED,
    STATE_READ_OUTCOME,
    STATE_REQUESTER_UNVERIFIED,
    STATE_RESUME,
    STATE_RUN_AGENT,
    STATE_SEND_MESSAGES,
    STATE_WAIT_FOR_DECISION,
)
from production_orchestrator.domain.errors import (
    DeliveryFailedError,
    RequesterUnverifiedError,
    ShopError,
)
from production_orchestrator.domain.scenarios import scenario
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.cdk_template import role_statements, synthesize
from tests.support.iam_calls import denied
from tests.support.moto_workflow import (
    EXPIRING_CONTEXT,
    LOCAL_CONTEXT,
    SUBMITTER,
    Deployment,
    LocalAws,
    RunRecord,
    WorkflowRun,
    local_aws,
    run_case,
)
from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLE_REQUESTS, EXAMPLES
from tests.support.runtimes import runtime_of

# Reminders are on by default (halfway of the 10-minute window): armed before parking, disarmed after.
PARKED = [STATE_RUN_AGENT, STATE_READ_OUTCOME, STATE_ARM_REMINDERS, STATE_WAIT_FOR_DECISION]
# DecisionOrRevision: a decision goes on to the resume, a revision ask back to the agent (test_revise_workflow.py).
DECIDED = [*PARKED, STATE_DISARM_REMINDERS, STATE_DECISION_KIND, STATE_RESUME, STATE_OUTCOME]


@pytest.fixture(scope="module")
def aws() -> Iterator[LocalAws]:
    with local_aws() as local:
        yield local


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(LOCAL_CONTEXT)


def _run(aws: LocalAws, template: dict[str, Any], case: str) -> WorkflowRun:
    deployment = aws.deploy(template)
    run = run_case(deployment, case)
    _every_call_was_granted(deployment)
    return run


def _every_call_was_granted(deployment: Deployment) -> None:
    """What each handler really called is within its function's role in the template (least privilege is
    asserted exactly by tests/infra/test_deployment.py; this proves the roles are enough)."""
    invocations = deployment.invocations()
    assert invocations
    for invocation in invocations:
        statements = role_statements(deployment.template, invocation.handler_module)
        assert denied(statements, invocation.calls) == [], invocation.handler_module


def _start_and_resume_ran_in_different_processes(run: WorkflowRun) -> None:
    pids = run.lambda_pids
    assert pids[STATE_RUN_AGENT] != pids[STATE_RESUME]
    assert len(set(pids.values())) == len(pids)


def test_approve_applies_the_reviewed_plan_once(aws: LocalAws, template: dict[str, Any]) -> None:
    deployment = aws.deploy(template)
    run = run_case(deployment, "approve")
    # The scheduled reporter reads the (now decided) approvals with its read-only role.
    reported = aws.router.invoke(deployment.function_name("report_pending_age"), {})
    assert reported.error is None and reported.result == {"pending": 0, "oldest_pending_age_seconds": 0}
    _every_call_was_granted(deployment)
    assert run.status == "SUCCEEDED"
    assert run.states == [*DECIDED, STATE_SEND_MESSAGES, STATE_PLAN_APPLIED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 2, 1)
    assert run.requested_by == SUBMITTER  # from the signed submission, carried to the approval record
    # The plan's three messages reached SES once each, and every one is marked sent with SES's id.
    queued = deployment.store.outbox_messages(run.proposal_hash)
    assert sorted(run.ses_outbox_keys) == sorted(m.key for m in queued) and len(queued) == 3
    assert {m.status for m in queued} == {"sent"} and all(m.transport_id.startswith("ses:") for m in queued)
    assert run.page_statuses == {"GET": 200, "POST": 200}
    _start_and_resume_ran_in_different_processes(run)
    assert run.task_token_leaked is False
    # The stack's KMS HMAC key MACed the decision, and the resume verified that receipt before applying.
    items = deployment.dynamodb.scan(TableName=deployment.table_name)["Items"]
    votes = [
        vote
        for item in items
        if "record" in item and item.get("votes")
        for vote in json.loads(item["record"]["S"])["votes"]
    ]
    assert len(votes) == 1 and votes[0]["receipt"]["mac"]


def test_messages_ses_refuses_end_in_messages_not_sent_never_in_silence(aws: LocalAws) -> None:
    template = synthesize({**LOCAL_CONTEXT, "senderEmail": "unverified@shop.example.com"})
    deployment = aws.deploy(template, verify_sender=False)
    run = run_case(deployment, "approve")
    assert run.status == "FAILED" and run.error == DeliveryFailedError.__name__
    assert run.states == [*DECIDED, STATE_SEND_MESSAGES, STATE_MESSAGES_NOT_SENT]
    assert (run.revision_after, run.plan_applied_count) == (2, 1)  # the plan applied; its messages did not go
    assert run.ses_outbox_keys == []
    failed = deployment.store.outbox_messages(run.proposal_hash)
    assert [m.status for m in failed] == ["failed"] * 3 and all("MessageRejected" in m.last_error for m in failed)


def test_an_approval_request_that_fails_ends_in_approval_not_requested_with_the_reason(aws: LocalAws) -> None:
    """The notify function cannot publish (here: a topic that does not exist, as after a wrong manual change):
    retried as a Lambda error is, then caught into ApprovalNotRequested with the error's class and message; the
    execution FAILED, which the failed-executions alarm counts."""
    deployment = aws.deploy(synthesize(LOCAL_CONTEXT))
    import_shop(
        runtime_of(deployment.store), ImportShop(read_shop(json.loads((EXAMPLES / "print-shop.json").read_text())))
    )
    gone = deployment.dynamodb.meta.region_name
    topic = f"arn:aws:sns:{gone}:123456789012:no-such-topic"
    aws.router.environment_next(deployment.function_name("request_approval"), {"PO_TOPIC_ARN": topic})
    submitted = deployment.submit(EXAMPLE_REQUESTS["request-totes"].read_text())
    execution_arn = str(submitted["execution_arn"])
    assert deployment.wait_for_status(execution_arn) == "FAILED"
    assert deployment.states(execution_arn)[-2:] == [STATE_WAIT_FOR_DECISION, STATE_APPROVAL_NOT_REQUESTED]
    (failed,) = [
        e["executionFailedEventDetails"]
        for e in deployment.history(execution_arn)
        if "executionFailedEventDetails" in e
    ]
    assert failed["error"] and failed["error"] != "States.Runtime", failed
    assert "topic" in failed.get("cause", "").lower() or "NotFound" in failed.get("cause", ""), failed


def test_a_hand_typed_start_execution_is_refused_without_a_verified_requester(aws: LocalAws) -> None:
    deployment = aws.deploy(synthesize(LOCAL_CONTEXT))
    execution_arn = deployment.start({"requested_by": "someone@shop.example"})
    assert deployment.wait_for_status(execution_arn) == "FAILED"
    assert deployment.states(execution_arn) == [STATE_RUN_AGENT, STATE_REQUESTER_UNVERIFIED]
    assert deployment.store.load_state() is None  # nothing ran, nothing was seeded
    (run_agent,) = [i for i in deployment.invocations() if i.handler_module == "run_agent"]
    assert run_agent.error is not None and run_agent.error["errorType"] == RequesterUnverifiedError.__name__


def test_a_run_on_a_fresh_table_ends_in_no_shop_to_plan_on_with_the_reason(aws: LocalAws) -> None:
    # Deploy, then submit before importing a shop: the first thing a new operator may well do.
    deployment = aws.deploy(synthesize(LOCAL_CONTEXT))
    submitted = deployment.submit(scenario("rush-order").customer_email)
    execution_arn = str(submitted["execution_arn"])
    assert deployment.wait_for_status(execution_arn) == "FAILED"
    assert deployment.states(execution_arn) == [STATE_RUN_AGENT, STATE_NO_SHOP]
    (failed,) = [
        e["executionFailedEventDetails"]
        for e in deployment.history(execution_arn)
        if "executionFailedEventDetails" in e
    ]
    assert failed["error"] == ShopError.__name__
    assert "import one" in json.loads(failed["cause"])["errorMessage"]
    assert deployment.store.load_state() is None  # nothing was planned or written


def test_the_same_email_twice_starts_one_run_and_the_second_execution_says_so(aws: LocalAws) -> None:
    # SES may deliver an e-mail twice, and customers re-send: the second execution ends in a named Succeed state
    # (no alarm), nothing of a second run written, the first run still waiting.
    deployment = aws.deploy(synthesize(LOCAL_CONTEXT))
    import_shop(
        runtime_of(deployment.store), ImportShop(read_shop(json.loads((EXAMPLES / "print-shop.json").read_text())))
    )
    totes = EXAMPLE_REQUESTS["request-totes"].read_text()
    first = str(deployment.submit(totes, as_of=EXAMPLE_DAY)["execution_arn"])
    deployment.wait_for_message()
    checkpoints = deployment.store.list_checkpoints()
    events = len(deployment.store.audit_events())
    # A retried POST of the same submit is the first run (issue 29); a second submit on purpose (its own client
    # token, as a re-sent e-mail handed in again) is a second execution, which the run's duplicate rule answers.
    assert str(deployment.submit(totes, as_of=EXAMPLE_DAY)["execution_arn"]) == first
    second = str(deployment.submit(totes, as_of=EXAMPLE_DAY, client_token="resent-1")["execution_arn"])
    assert deployment.wait_for_status(second) == "SUCCEEDED"
    assert deployment.states(second) == [STATE_RUN_AGENT, STATE_ALREADY_PENDING]
    assert deployment.store.list_checkpoints() == checkpoints and len(deployment.store.audit_events()) == events
    assert deployment.states(first) == PARKED  # still waiting for its human
    (checkpoint,) = [json.loads(raw)["checkpoint_id"] for raw in checkpoints]
    output = next(e for e in deployment.history(second) if "executionSucceededEventDetails" in e)
    assert (
        checkpoint in output["executionSucceededEventDetails"]["output"]
    )  # the earlier run's ids are what the execution answers


def test_reject_changes_nothing(aws: LocalAws, template: dict[str, Any]) -> None:
    run = _run(aws, template, "reject")
    assert run.status == "SUCCEEDED"
    assert run.states == [*DECIDED, STATE_PLAN_REJECTED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 1, 0)
    assert run.ses_outbox_keys == []
    _start_and_resume_ran_in_different_processes(run)
    assert run.task_token_leaked is False


def test_stale_domain_state_while_parked_is_refused_then_cancelled(aws: LocalAws, template: dict[str, Any]) -> None:
    run = _run(aws, template, "stale")
    assert run.page_statuses == {"GET": 200, "POST approve": 409, "POST reject": 200}
    assert run.status == "SUCCEEDED"
    assert run.states == [*DECIDED, STATE_PLAN_REJECTED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 1, 0)
    assert run.task_token_leaked is False


def test_no_decision_within_the_window_expires_and_never_approves(aws: LocalAws) -> None:
    run = _run(aws, synthesize(EXPIRING_CONTEXT), "expire")
    assert run.status == "SUCCEEDED"
    assert run.states == [*PARKED, STATE_DECISION_EXPIRED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 1, 0)
    assert run.page_statuses == {"GET after expiry": 200}
    assert run.task_token_leaked is False


@pytest.mark.parametrize("point", ["after_decision_claim", "after_apply_before_session_sync"])
def test_a_resume_killed_mid_decision_is_finished_by_the_workflow_retry(aws: LocalAws, point: str) -> None:
    """No person acts: the killed resume's claim blocks until its lease (3 s here) runs out; the state
    machine retries after the lease, the retry takes the claim over and applies exactly once."""
    deployment = aws.deploy(synthesize({**LOCAL_CONTEXT, "decisionLease": "3s"}))
    resume = deployment.function_name("resume_agent")
    aws.router.crash_next(resume, point)
    run = run_case(deployment, "approve")
    assert run.status == "SUCCEEDED", run.error
    assert run.states == [*DECIDED, STATE_SEND_MESSAGES, STATE_PLAN_APPLIED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 2, 1)
    resumes = [i for i in deployment.invocations() if i.function_name == resume]
    assert [i.error["errorType"] if i.error else None for i in resumes] == ["Runtime.ExitError", None]
    assert resumes[1].result["outcome"] == "applied"
    events = [e.event_type for e in deployment.store.audit_events()]
    assert events.count("decision_claim_taken_over") == 1
    assert events.count("plan_applied") == 1
    _every_call_was_granted(deployment)


def test_the_leak_check_finds_a_token_in_any_captured_form() -> None:
    token = "AQB8AAAAKgAAAAMAAAAAAAAAAf+/token=="
    for text in (f"log {token} end", f"https://x/?t={quote(token, safe='')}", json.dumps({"t": token})):
        assert RunRecord([text]).contains(token)
    assert not RunRecord(["nothing here"]).contains(token)
