"""A revision through the synthesized state machine on a moto server, every Lambda invocation a fresh process.

submit -> RunAgentUntilApproval -> ArmReminders -> WaitForHumanDecision (version 1's link)
"Change the plan" (keep STANDARD-100), twice at once -> the decision function records one ask (version 1's
    approval superseded, the other POST refused) and wakes the workflow with revise: true
-> DisarmReminders -> DecisionOrRevision -> PlanRevisedVersion (the agent plans version 2 with the guidance)
-> ArmReminders (version 2's wake-ups) -> WaitForHumanDecision (a new task token, a new link)
version 1's link: approve refused (SUPERSEDED); version 2's link: approve -> ResumeVerifiedDecision
-> PlanApplied: exactly version 2 applied, once (revision 1 -> 2); version 1 still refused afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from infra.constants import (
    STATE_ARM_REMINDERS,
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
from production_orchestrator.domain.planning.proposal import load_proposal
from tests.support.cdk_template import role_statements, synthesize
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
    return synthesize(LOCAL_CONTEXT)


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
