"""Reminders and escalation through the synthesized state machine on a moto server, every Lambda invocation a
fresh process. EventBridge Scheduler does not run on moto: the test plays it, invoking each schedule's target
with its input at the schedule's own moment (the function's clock injected, nothing waits).

    submit -> RunAgentUntilApproval -> ArmReminders (schedules: escalation, halfway, 2 min before the end)
           -> WaitForHumanDecision (the first link)
    escalation fires -> the backup joins (audited), gets a link;  halfway fires -> each asked approver who has
    not voted gets a reminder holding a new link (the first stops working); a re-run schedule sends nothing
    -> the approver decides through the reminder's link -> DisarmReminders (what is left is deleted)
    -> ResumeVerifiedDecision -> PlanApplied; a leftover schedule firing then sends nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
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
    STATE_RUN_AGENT,
    STATE_SEND_MESSAGES,
    STATE_WAIT_FOR_DECISION,
)
from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from tests.support.cdk_template import role_statements, synthesize
from tests.support.iam_calls import denied
from tests.support.moto_workflow import LOCAL_CONTEXT, Deployment, LocalAws, captured_texts, local_aws

APPROVER = "approver@example.com"
BACKUP = "backup@example.com"
CONTEXT = {
    **LOCAL_CONTEXT,
    "approvalWindow": "10m",
    "remindAt": "halfway,2m",
    "escalateAfter": "3m",
    "backupApprovers": BACKUP,
}


@pytest.fixture(scope="module")
def aws() -> Iterator[LocalAws]:
    with local_aws() as local:
        yield local


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(CONTEXT)


def _secret(link: str) -> str:
    return link.split("s=", 1)[1]


def test_reminders_and_escalation_run_through_the_synthesized_workflow(aws: LocalAws, template: dict[str, Any]) -> None:
    deployment = aws.deploy(template)
    submitted = deployment.submit_scenario("rush-order")
    execution_arn = str(submitted["execution_arn"])
    first = deployment.wait_for_message()
    assert first.attributes["approver"]["Value"] == APPROVER and not first.subject.startswith("Reminder")
    assert deployment.states(execution_arn) == [
        STATE_RUN_AGENT,
        STATE_READ_OUTCOME,
        STATE_ARM_REMINDERS,
        STATE_WAIT_FOR_DECISION,
    ]

    # ArmReminders: one schedule per point inside the window and one for the escalation, each invoking the
    # reminder function once with the scheduler role, then deleting itself.
    escalate, halfway, late = deployment.schedules()
    function_arn = deployment._function_arns[_logical_id(template, "remind")]
    for schedule in (escalate, halfway, late):
        target = schedule.detail["Target"]
        assert target["Arn"] == function_arn and ":role/" in target["RoleArn"]
        assert schedule.detail["ActionAfterCompletion"] == "DELETE"
    assert [json.loads(s.detail["Target"]["Input"])["point"] for s in (escalate, halfway, late)] == [
        "escalate",
        "halfway",
        "2m",
    ]
    assert deployment.drain() == []

    # Escalation: the backup joins, audited, and gets their own first link.
    woke = deployment.fire(escalate)
    assert woke.error is None and woke.result["escalated"] == [BACKUP], woke.error
    (backup_link,) = deployment.drain()
    assert backup_link.attributes["approver"]["Value"] == BACKUP and backup_link.link
    assert deployment.open(backup_link.link).status == 200

    # Halfway: both asked approvers (neither voted) get a reminder with a new link; the first link stops working.
    woke = deployment.fire(halfway)
    assert woke.error is None and sorted(r["approver"] for r in woke.result["reminded"]) == [APPROVER, BACKUP]
    reminders = {m.attributes["approver"]["Value"]: m for m in deployment.drain()}
    assert set(reminders) == {APPROVER, BACKUP}
    reminder = reminders[APPROVER]
    assert reminder.subject.startswith("Reminder: Approve plan for order RUSH-200?")
    assert _secret(reminder.link) != _secret(first.link)
    assert deployment.open(first.link).status == 404  # the neutral page
    assert deployment.open(reminder.link).status == 200

    # The same schedule run again (a retried invoke, Scheduler delivering twice): nothing more is sent.
    again = deployment.fire(halfway, at=halfway.at + timedelta(seconds=20))
    assert again.error is None and again.result["reminded"] == [] and deployment.drain() == []

    # The approver decides through the reminder's link; the workflow disarms what is left and applies the plan.
    page, decided = deployment.decide(reminder.link, approve=True, reason="reminded")
    assert (page.status, decided.status) == (200, 200)
    assert deployment.wait_for_status(execution_arn) == "SUCCEEDED"
    assert deployment.states(execution_arn) == [
        STATE_RUN_AGENT,
        STATE_READ_OUTCOME,
        STATE_ARM_REMINDERS,
        STATE_WAIT_FOR_DECISION,
        STATE_DISARM_REMINDERS,
        STATE_DECISION_KIND,
        STATE_RESUME,
        STATE_OUTCOME,
        STATE_SEND_MESSAGES,
        STATE_PLAN_APPLIED,
    ]
    assert deployment.schedules() == []  # the late reminder was deleted at the decision
    (disarm,) = [i for i in deployment.invocations() if i.handler_module == "remind" and "disarmed" in (i.result or {})]
    assert disarm.result["disarmed"] == 1

    # Had it fired anyway (deleted too late), it finds the approval decided and sends nothing.
    leftover = deployment.fire(late)
    assert leftover.error is None and leftover.result["status"] == "closed" and deployment.drain() == []

    approvals = DynamoApprovalStore(deployment.dynamodb, deployment.table_name)
    (record,) = approvals.list_approvals()
    assert record.status == "decided" and record.decided_by == APPROVER
    assert record.policy.approvers == (APPROVER, BACKUP) and record.required == 1
    kinds = [e.event_type for e in deployment.store.audit_events()]
    assert kinds.count("approval_escalated") == 1
    assert kinds.count("approval_reminded") == 2 and kinds.count("approval_relinked") == 2
    assert deployment.store.application_count() == 1

    # Least privilege holds for what every handler really called, the reminder function's included.
    for invocation in deployment.invocations():
        statements = role_statements(deployment.template, invocation.handler_module)
        assert denied(statements, invocation.calls) == [], invocation.handler_module
    calls = {tuple(c[:2]) for i in deployment.invocations() if i.handler_module == "remind" for c in i.calls}
    assert {("scheduler", "CreateSchedule"), ("scheduler", "DeleteSchedule"), ("sns", "Publish")} <= calls
    # No link secret in any log line; the task token nowhere.
    logs = "".join(i.logs for i in deployment.invocations())
    assert all(_secret(m.link) not in logs for m in deployment.messages if m.link)
    token = deployment.task_token(execution_arn)
    assert not captured_texts(deployment).contains(token)


def _logical_id(template: dict[str, Any], module: str) -> str:
    (found,) = [
        logical_id
        for logical_id, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Lambda::Function" and resource["Properties"]["Handler"].split(".")[-2] == module
    ]
    return found


def test_reminders_off_leaves_the_workflow_as_it_was(aws: LocalAws) -> None:
    template = synthesize({**LOCAL_CONTEXT, "remindAt": "off"})
    deployment: Deployment = aws.deploy(template)
    assert STATE_ARM_REMINDERS not in deployment.definition["States"]
    assert not [r for r in template["Resources"].values() if r["Type"] == "AWS::Scheduler::ScheduleGroup"]
    submitted = deployment.submit_scenario("rush-order")
    message = deployment.wait_for_message()
    deployment.decide(message.link, approve=False, reason="not now")
    assert deployment.wait_for_status(str(submitted["execution_arn"])) == "SUCCEEDED"
    assert STATE_DISARM_REMINDERS not in deployment.states(str(submitted["execution_arn"]))
