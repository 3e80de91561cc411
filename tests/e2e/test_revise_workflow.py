"""A revision through the synthesized state machine on a moto server, every Lambda invocation a fresh process.

submit -> RunAgentUntilApproval -> ArmReminders -> WaitForHumanDecision (version 1's link)
"Change the plan" (keep STANDARD-100), twice at once -> the decision function records one ask (version 1's
    approval superseded, the other POST refused) and wakes the workflow with revise: true
-> DisarmReminders -> DecisionOrRevision -> PlanRevisedVersion (the agent plans version 2 with the guidance)
-> ArmReminders (version 2's wake-ups) -> WaitForHumanDecision (a new task token, a new link)
version 1's link: approve refused (SUPERSEDED); version 2's link (the last of maxVersions 2): no "Change the plan",
a revision POST refused (VERSION_LIMIT, nothing written); approve -> ResumeVerifiedDecision
-> PlanApplied: exactly version 2 applied, once (revision 1 -> 2); version 1 still refused afterwards.

Each WaitForHumanDecision times out when its own version's approval expires (the run's wait_seconds), and the
execution's timeout outlasts version 2's expiry: a revised version left to expire ends in DecisionExpired,
recorded for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from infra.constants import (
    STATE_ARM_REMINDERS,
    STATE_DECISION_EXPIRED,
    STATE_DECISION_KIND,
    STATE_DISARM_REMINDERS,
    STATE_OUTCOME,
    STATE_PLAN_APPLIED,
    STATE_READ_OUTCOME,
    STATE_RESUME,
    STATE_REVISE,
    STATE_RUN_AGENT,
    STATE_SEND_MESSAGES,
    STATE_WAIT_FOR_DECISION,
)
from infra.settings import EXECUTION_GRACE_SECONDS
from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.domain.planning.proposal import load_proposal
from production_orchestrator.domain.records import parse_utc
from tests.support.cdk_template import placeholder, role_statements, state_machine_definition, synthesize
from tests.support.iam_calls import denied
from tests.support.moto_workflow import (
    LOCAL_CONTEXT,
    Deployment,
    LocalAws,
    Page,
    captured_texts,
    hidden_fields,
    local_aws,
)
from tests.support.together import together

KEPT = "STANDARD-100"  # the rush-order scenario's plan moves it to make room; the revision keeps it
PARKED = [STATE_ARM_REMINDERS, STATE_WAIT_FOR_DECISION, STATE_DISARM_REMINDERS, STATE_DECISION_KIND]


@pytest.fixture(scope="module")
def aws() -> Iterator[LocalAws]:
    with local_aws() as local:
        yield local


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize({**LOCAL_CONTEXT, "maxVersions": "2"})


def _revise(deployment: Deployment, link: str, **guidance: str) -> tuple[int, str]:
    form = {**hidden_fields(deployment.open(link).body), "decision": "revise", **guidance}
    page = deployment.open(link, "POST", form)
    return page.status, page.body


def _approve_replayed(deployment: Deployment, link: str, reviewed_hash: str) -> Page:
    """Version 1's approve form posted again (the page it was on, kept open in a tab, or a replay)."""
    return deployment.open(link, "POST", {"decision": "approve", "reviewed_hash": reviewed_hash})


def _tokens(deployment: Deployment, execution_arn: str) -> list[str]:
    return [
        str(json.loads(details["parameters"])["Payload"]["task_token"])
        for event in deployment.history(execution_arn)
        if (details := event.get("taskScheduledEventDetails")) and "waitForTaskToken" in details.get("resource", "")
    ]


def _waits(deployment: Deployment, execution_arn: str) -> list[tuple[dict[str, Any], int]]:
    """Each WaitForHumanDecision: the run it parked (``$.run`` as the state received it) and its scheduled timeout."""
    runs, timeouts = [], []
    for event in deployment.history(execution_arn):
        entered = event.get("stateEnteredEventDetails")
        if entered and entered["name"] == STATE_WAIT_FOR_DECISION:
            runs.append(json.loads(entered["input"])["run"])
        details = event.get("taskScheduledEventDetails")
        if details and "waitForTaskToken" in details.get("resource", ""):
            timeouts.append(int(details["timeoutInSeconds"]))
    return list(zip(runs, timeouts, strict=True))


def _approval_record(deployment: Deployment, approval_id: str) -> dict[str, Any]:
    items = deployment.dynamodb.scan(TableName=deployment.table_name)["Items"]
    records = [json.loads(i["record"]["S"]) for i in items if "record" in i]
    (found,) = [r for r in records if isinstance(r, dict) and r.get("approval_id") == approval_id and "policy" in r]
    return found


def _every_call_was_granted(deployment: Deployment) -> None:
    for invocation in deployment.invocations():
        statements = role_statements(deployment.template, invocation.handler_module)
        assert denied(statements, invocation.calls) == [], invocation.handler_module


def test_a_revision_keeping_an_order_parks_again_and_applies_exactly_version_2(
    aws: LocalAws, template: dict[str, Any]
) -> None:
    deployment = aws.deploy(template)
    store = deployment.store
    execution_arn = str(deployment.submit_scenario("rush-order")["execution_arn"])
    first = deployment.wait_for_message()
    (v1_checkpoint,) = [json.loads(raw)["checkpoint_id"] for raw in store.list_checkpoints()]
    v1 = store.get_decision(v1_checkpoint)
    assert v1 is None
    v1_hash = str(json.loads(store.get_checkpoint(v1_checkpoint) or "{}")["proposal_hash"])
    moved_before = {c.order_id for c in load_proposal(store.get_proposal(v1_hash) or b"", v1_hash).schedule_changes}
    assert KEPT in moved_before  # version 1 moves the order the approver wants kept

    # Two "Change the plan" POSTs at once (a double click): one ask is recorded, the other is refused.
    results = together([lambda: _revise(deployment, first.link, keep=KEPT)] * 2)
    statuses = sorted(r[0] for r in results if isinstance(r, tuple))
    assert statuses == [200, 409], results
    refused = next(r[1] for r in results if isinstance(r, tuple) and r[0] == 409)
    assert "version 2" in refused
    accepted = next(r[1] for r in results if isinstance(r, tuple) and r[0] == 200)
    assert "Version 2 of the plan is being made" in accepted

    second = deployment.wait_for_message()  # version 2 parked: its approver gets a new link
    assert second.link != first.link
    checkpoints = {json.loads(raw)["checkpoint_id"]: json.loads(raw) for raw in store.list_checkpoints()}
    (v2_checkpoint,) = [c for c in checkpoints if c != v1_checkpoint]
    v2_hash = str(checkpoints[v2_checkpoint]["proposal_hash"])
    v2 = load_proposal(store.get_proposal(v2_hash) or b"", v2_hash)
    assert v2.version == 2 and v2.revision is not None
    assert (v2.revision.supersedes, v2.revision.given_by, v2.revision.guidance.keep) == (
        v1_hash,
        "approver@example.com",
        (KEPT,),
    )
    assert KEPT not in {c.order_id for c in v2.schedule_changes}  # the kept order does not move
    states = deployment.states(execution_arn)
    first_park = [STATE_RUN_AGENT, STATE_READ_OUTCOME, *PARKED]
    assert states == [*first_park, STATE_REVISE, STATE_ARM_REMINDERS, STATE_WAIT_FOR_DECISION]
    tokens = _tokens(deployment, execution_arn)
    assert len(tokens) == 2 and tokens[0] != tokens[1]  # parked again on a new task token
    # Reminders re-armed for version 2 (version 1's were disarmed when the workflow woke).
    assert {s.name.rsplit("-", 1)[0] for s in deployment.schedules()} == {v2_checkpoint}

    # Version 1 is closed: superseded, naming version 2's approval; its link can no longer approve.
    v1_approval_id = first.link.split("a=", 1)[1].split("&", 1)[0]
    v1_record = _approval_record(deployment, v1_approval_id)
    assert v1_record["status"] == "superseded" and v1_record["successor_hash"] == v2_hash
    v2_approval_id = second.link.split("a=", 1)[1].split("&", 1)[0]
    assert v1_record["superseded_by"] == v2_approval_id and v2_approval_id != v1_approval_id
    refused_v1 = _approve_replayed(deployment, first.link, v1_hash)
    assert refused_v1.status == 409 and "version 1 of this plan" in refused_v1.body
    assert v2_approval_id in refused_v1.body  # SUPERSEDED names the version that replaced it

    # Each version waits exactly until its own approval expires, and the execution outlives version 2's expiry
    # with the grace for its resume (the template's timeout holds maxVersions windows).
    waits = _waits(deployment, execution_arn)
    assert [run["checkpoint_id"] for run, _ in waits] == [v1_checkpoint, v2_checkpoint]
    for run, timeout in waits:
        assert timeout == run["wait_seconds"] and 600 - 30 <= timeout <= 600  # the 10m window, less the run's time
    started_at = deployment.sfn.describe_execution(executionArn=execution_arn)["startDate"]
    deadline = started_at + timedelta(
        seconds=state_machine_definition(deployment.template, placeholder)["TimeoutSeconds"]
    )
    assert deadline >= parse_utc(waits[1][0]["expires_at"]) + timedelta(seconds=EXECUTION_GRACE_SECONDS)

    # Version 2 is the last maxVersions 2 allows: its page offers no revision and a revision POST writes nothing.
    v2_page = deployment.open(second.link)
    assert 'value="revise"' not in v2_page.body and "Version 2 is the last this plan may have" in v2_page.body
    before = (store.list_checkpoints(), _approval_record(deployment, v2_approval_id), len(store.audit_events()))
    form = {**hidden_fields(v2_page.body), "decision": "revise", "note": "once more"}
    last = deployment.open(second.link, "POST", form)
    assert last.status == 409 and "VERSION_LIMIT" in last.body, last.body
    assert (store.list_checkpoints(), _approval_record(deployment, v2_approval_id), len(store.audit_events())) == before
    assert len(_tokens(deployment, execution_arn)) == 2  # the workflow was not woken

    page, approved = deployment.decide(second.link, approve=True)
    assert (page.status, approved.status) == (200, 200)
    assert deployment.wait_for_status(execution_arn) == "SUCCEEDED"
    assert deployment.states(execution_arn) == [
        STATE_RUN_AGENT,
        STATE_READ_OUTCOME,
        *PARKED,
        STATE_REVISE,
        *PARKED,
        STATE_RESUME,
        STATE_OUTCOME,
        STATE_SEND_MESSAGES,
        STATE_PLAN_APPLIED,
    ]
    state = store.load_state()
    assert state is not None and state.revision == 2
    assert (store.application_count(v2_hash), store.application_count(v1_hash), store.application_count()) == (1, 0, 1)
    after = _approve_replayed(deployment, first.link, v1_hash)
    assert after.status == 409 and state.revision == (store.load_state() or state).revision
    events = [e.event_type for e in store.audit_events()]
    assert (events.count("revision_asked"), events.count("plan_revised"), events.count("plan_applied")) == (1, 1, 1)
    assert not captured_texts(deployment).contains(tokens[0]) and not captured_texts(deployment).contains(tokens[1])
    _every_call_was_granted(deployment)


def test_a_revised_version_left_undecided_expires_when_its_approval_says(
    aws: LocalAws, template: dict[str, Any]
) -> None:
    """Version 2's window is made shorter than the synthesized one (its run alone gets PO_APPROVAL_WINDOW=8s):
    its wait ends when its own approval expires, not a fixed window after the state starts, and DecisionExpired
    records the expiry of version 2. No sleep: the test waits for the execution to end."""
    deployment = aws.deploy(template)
    store = deployment.store
    execution_arn = str(deployment.submit_scenario("rush-order")["execution_arn"])
    first = deployment.wait_for_message()
    aws.router.environment_next(deployment.function_name("run_agent"), {"PO_APPROVAL_WINDOW": "8s"})
    assert _revise(deployment, first.link, keep=KEPT)[0] == 200
    assert deployment.wait_for_status(execution_arn) == "SUCCEEDED"
    assert deployment.states(execution_arn) == [
        STATE_RUN_AGENT,
        STATE_READ_OUTCOME,
        *PARKED,
        STATE_REVISE,
        STATE_ARM_REMINDERS,
        STATE_WAIT_FOR_DECISION,
        STATE_DECISION_EXPIRED,
    ]
    (_, first_timeout), (v2_run, v2_timeout) = _waits(deployment, execution_arn)
    assert first_timeout > 500 and v2_timeout == v2_run["wait_seconds"] <= 8
    (v2_approval,) = [a for a in DynamoApprovalStore(deployment.dynamodb, deployment.table_name).list_approvals()
                      if a.checkpoint_id == v2_run["checkpoint_id"]]  # fmt: skip
    v2 = _approval_record(deployment, v2_approval.approval_id)
    assert v2["status"] == "expired" and v2["version"] == 2
    # The expiry the approvers were shown is the one the workflow kept: 8 s after version 2 was planned.
    checkpoint = json.loads(store.get_checkpoint(v2_run["checkpoint_id"]) or "{}")
    assert v2["expires_at"] == v2_run["expires_at"] == checkpoint["expires_at"]
    assert (parse_utc(checkpoint["expires_at"]) - parse_utc(checkpoint["created_at"])).total_seconds() == 8
    expired = [e for e in store.audit_events() if e.event_type == "approval_expired"]
    assert [e.checkpoint_id for e in expired] == [v2_run["checkpoint_id"]]
    assert store.application_count() == 0
