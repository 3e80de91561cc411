"""The synthesized state machine, executed on a moto server with every Lambda invocation a fresh process.

approve -> PlanApplied (revision 1 -> 2, one application); reject -> PlanRejected (nothing changes);
stale domain state while parked -> the approve is refused on the page, a reject cancels it -> PlanRejected;
no decision -> DecisionExpired (a valid link then says so).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from infra.constants import (
    STATE_DECISION_EXPIRED,
    STATE_OUTCOME,
    STATE_PLAN_APPLIED,
    STATE_PLAN_REJECTED,
    STATE_RESUME,
    STATE_RUN_AGENT,
    STATE_WAIT_FOR_DECISION,
)
from tests.support.cdk_template import synthesize
from tests.support.moto_workflow import (
    EXPIRING_CONTEXT,
    LOCAL_CONTEXT,
    LocalAws,
    RunRecord,
    WorkflowRun,
    local_aws,
    run_case,
)

PARKED = [STATE_RUN_AGENT, STATE_WAIT_FOR_DECISION]


@pytest.fixture(scope="module")
def aws() -> Iterator[LocalAws]:
    with local_aws() as local:
        yield local


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(LOCAL_CONTEXT)


def _run(aws: LocalAws, template: dict[str, Any], case: str) -> WorkflowRun:
    return run_case(aws.deploy(template), case)


def _start_and_resume_ran_in_different_processes(run: WorkflowRun) -> None:
    pids = run.lambda_pids
    assert pids[STATE_RUN_AGENT] != pids[STATE_RESUME]
    assert len(set(pids.values())) == len(pids)


def test_approve_applies_the_reviewed_plan_once(aws: LocalAws, template: dict[str, Any]) -> None:
    deployment = aws.deploy(template)
    run = run_case(deployment, "approve")
    assert run.status == "SUCCEEDED"
    assert run.states == [*PARKED, STATE_RESUME, STATE_OUTCOME, STATE_PLAN_APPLIED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 2, 1)
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


def test_reject_changes_nothing(aws: LocalAws, template: dict[str, Any]) -> None:
    run = _run(aws, template, "reject")
    assert run.status == "SUCCEEDED"
    assert run.states == [*PARKED, STATE_RESUME, STATE_OUTCOME, STATE_PLAN_REJECTED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 1, 0)
    _start_and_resume_ran_in_different_processes(run)
    assert run.task_token_leaked is False


def test_stale_domain_state_while_parked_is_refused_then_cancelled(aws: LocalAws, template: dict[str, Any]) -> None:
    run = _run(aws, template, "stale")
    assert run.page_statuses == {"GET": 200, "POST approve": 409, "POST reject": 200}
    assert run.status == "SUCCEEDED"
    assert run.states == [*PARKED, STATE_RESUME, STATE_OUTCOME, STATE_PLAN_REJECTED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 1, 0)
    assert run.task_token_leaked is False


def test_no_decision_within_the_window_expires_and_never_approves(aws: LocalAws) -> None:
    run = _run(aws, synthesize(EXPIRING_CONTEXT), "expire")
    assert run.status == "SUCCEEDED"
    assert run.states == [*PARKED, STATE_DECISION_EXPIRED]
    assert (run.revision_before, run.revision_after, run.plan_applied_count) == (1, 1, 0)
    assert run.page_statuses == {"GET after expiry": 200}
    assert run.task_token_leaked is False


def test_the_leak_check_finds_a_token_in_any_captured_form() -> None:
    token = "AQB8AAAAKgAAAAMAAAAAAAAAAf+/token=="
    for text in (f"log {token} end", f"https://x/?t={quote(token, safe='')}", json.dumps({"t": token})):
        assert RunRecord([text]).contains(token)
    assert not RunRecord(["nothing here"]).contains(token)
