"""The revision loop in the synthesized state machine: a decision that is a revision ask (revise: true, sent
only by the decision function) goes to PlanRevisedVersion, which plans the next version and parks again on
ArmReminders -> WaitForHumanDecision; anything else goes to the resume, as before. Every version waits until its
own approval expires, and the execution's timeout holds every version maxVersions allows."""

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
from infra.constructs.agent_functions import RUN_AGENT_TIMEOUT_SECONDS
from infra.constructs.approval_workflow import revision_run_seconds
from infra.settings import (
    DEFAULTS,
    EXECUTION_GRACE_SECONDS,
    MAX_EXECUTION_SECONDS,
    REVISION_GRACE_SECONDS,
    Settings,
    execution_seconds,
)
from production_orchestrator.domain.errors import ConfigurationError
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


def _state_machine(template: dict[str, Any]) -> dict[str, Any]:
    return state_machine_definition(template, placeholder)


def test_every_version_waits_until_its_own_approval_expires(states: dict[str, Any]) -> None:
    wait = states[STATE_WAIT_FOR_DECISION]
    # The run (first or revised) returns the seconds from its clock to its expires_at: no fixed window counted
    # from when the state starts, so version 2 of a revision asked late still expires when its approval says.
    assert wait["TimeoutSecondsPath"] == "$.run.wait_seconds" and "TimeoutSeconds" not in wait
    assert states[STATE_REVISE]["ResultPath"] == "$.run"  # the revised run's wait_seconds replaces the first's
    (timeout,) = [c for c in wait["Catch"] if c["ErrorEquals"] == ["States.Timeout"]]
    assert timeout["Next"] == "DecisionExpired"  # record_expiry, for whichever version timed out
    assert states["DecisionExpired"]["Parameters"]["checkpoint_id.$"] == "$.run.checkpoint_id"


def test_the_execution_holds_every_version_max_versions_allows(template: dict[str, Any]) -> None:
    window = 2 * 3600
    assert (
        _state_machine(template)["TimeoutSeconds"] == 5 * window + 4 * REVISION_GRACE_SECONDS + EXECUTION_GRACE_SECONDS
    )
    two = synthesize({**CONTEXT, "maxVersions": "2"})
    assert _state_machine(two)["TimeoutSeconds"] == execution_seconds(window, 2) == 2 * window + 3 * 3600
    for fn in (_function_id(two, "run_agent"), _function_id(two, "request_approval"), _function_id(two, "decide")):
        env = two["Resources"][fn]["Properties"]["Environment"]["Variables"]
        assert env["PO_MAX_VERSIONS"] == "2"  # the rule's bound is the one the timeout was sized for


def test_a_revision_run_fits_in_the_time_the_execution_gives_it() -> None:
    # Two 900 s runs (a timeout retried once), the 60 s pause, throttles at their caps, service retries.
    assert revision_run_seconds(RUN_AGENT_TIMEOUT_SECONDS) == 2 * 900 + 60 + 515 + 126 <= REVISION_GRACE_SECONDS


@pytest.mark.parametrize(
    ("window", "versions", "fits"),
    [("364d", "1", True), ("72d", "5", True), ("73d", "5", False), ("364d", "2", False), ("24h", "20", True)],
)
def test_windows_and_versions_that_do_not_fit_one_execution_are_refused(window: str, versions: str, fits: bool) -> None:
    raw = {**DEFAULTS, "approvalWindow": window, "maxVersions": versions}
    if fits:
        assert Settings.parse(raw).execution_timeout_seconds <= MAX_EXECUTION_SECONDS
        return
    with pytest.raises(ConfigurationError, match=f"too long for maxVersions {versions}.*one year") as refused:
        Settings.parse(raw)
    assert "lower maxVersions" in str(refused.value)


@pytest.mark.parametrize("bad", ["0", "21", "two", "-1"])
def test_a_version_count_outside_1_to_20_is_refused(bad: str) -> None:
    with pytest.raises(ConfigurationError, match="maxVersions must be a whole number from 1 to 20"):
        Settings.parse({**DEFAULTS, "maxVersions": bad})


def test_synth_refuses_a_window_too_long_for_the_versions() -> None:
    from infra.application import build_app

    with pytest.raises(ConfigurationError, match="maxVersions 5"):
        build_app(context={"aws:cdk:bundling-stacks": [], "approvalWindow": "100d"}).synth()
