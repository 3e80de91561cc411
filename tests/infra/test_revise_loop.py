"""The revision loop in the synthesized state machine: a decision that is a revision ask (revise: true, sent
only by the decision function) goes to PlanRevisedVersion, which plans the next version and parks again on
ArmReminders -> WaitForHumanDecision; anything else goes to the resume, as before."""

from __future__ import annotations

from typing import Any

import pytest

from infra.constants import (
    STATE_ARM_REMINDERS,
    STATE_DECISION_KIND,
    STATE_DISARM_REMINDERS,
    STATE_RESUME,
    STATE_REVISE,
    STATE_REVISION_NOT_PLANNED,
    STATE_WAIT_FOR_DECISION,
)
from tests.support.cdk_template import placeholder, resources_of_type, state_machine_definition, synthesize

CONTEXT = {"approvalWindow": "2h", "approverEmails": "approver@example.com", "senderEmail": "orders@shop.example.com"}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(CONTEXT)


@pytest.fixture(scope="module")
def states(template: dict[str, Any]) -> dict[str, Any]:
    return dict(state_machine_definition(template, placeholder)["States"])


def _function_id(template: dict[str, Any], module: str) -> str:
    (found,) = [
        logical_id
        for logical_id, resource in resources_of_type(template, "AWS::Lambda::Function").items()
        if resource["Properties"].get("Handler") == f"production_orchestrator.handlers.{module}.handler"
    ]
    return found


def test_a_revision_ask_loops_back_to_the_agent_and_parks(states: dict[str, Any], template: dict[str, Any]) -> None:
    assert states[STATE_DISARM_REMINDERS]["Next"] == STATE_DECISION_KIND
    # A failed disarm is noted and the decision still routed: a reminder never stands in the way.
    assert {c["Next"] for c in states[STATE_DISARM_REMINDERS]["Catch"]} == {STATE_DECISION_KIND}
    kind = states[STATE_DECISION_KIND]
    assert kind["Type"] == "Choice" and kind["Default"] == STATE_RESUME
    (revise,) = kind["Choices"]
    assert revise["Next"] == STATE_REVISE
    assert (revise["Variable"], revise["BooleanEquals"]) == ("$.decision.revise", True)  # wake.pointer always says
    task = states[STATE_REVISE]
    assert task["Next"] == STATE_ARM_REMINDERS  # the loop: reminders re-armed, then a new task token
    assert states[STATE_ARM_REMINDERS]["Next"] == STATE_WAIT_FOR_DECISION
    assert task["Resource"] == placeholder(_function_id(template, "run_agent"), "Arn")
    payload = task["Parameters"]
    assert payload["revise"] == {
        "checkpoint_id.$": "$.decision.checkpoint_id",
        "approval_id.$": "$.decision.approval_id",
    }
    assert "input" not in payload  # the execution input never reaches the revision (it cannot ask for one)
    assert task["ResultPath"] == "$.run"  # the next version's ids replace the first's for every later state


def test_a_revision_that_cannot_be_planned_ends_in_a_state_that_says_so(states: dict[str, Any]) -> None:
    (catch,) = states[STATE_REVISE]["Catch"]
    assert catch["ErrorEquals"] == ["States.ALL"] and catch["Next"] == STATE_REVISION_NOT_PLANNED
    failed = states[STATE_REVISION_NOT_PLANNED]
    assert failed["Type"] == "Fail" and failed["ErrorPath"] == "$.error.Error"


def test_the_parked_version_names_the_approval_it_replaces(states: dict[str, Any]) -> None:
    payload = states[STATE_WAIT_FOR_DECISION]["Parameters"]["Payload"]
    assert payload["supersedes_approval_id.$"] == "$.run.supersedes_approval_id"


def test_without_reminders_the_loop_parks_on_the_wait_itself() -> None:
    states = state_machine_definition(synthesize({**CONTEXT, "remindAt": "off"}), placeholder)["States"]
    assert STATE_ARM_REMINDERS not in states
    assert states[STATE_WAIT_FOR_DECISION]["Next"] == STATE_DECISION_KIND
    assert states[STATE_REVISE]["Next"] == STATE_WAIT_FOR_DECISION
