"""The reminders in the synthesized template: the two states around the parked task (a failure never blocks
the approval), the reminder function's least privilege, the scheduler role, the backups' subscriptions, and
every context mistake refused at synth in one line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.constants import (
    STATE_ARM_REMINDERS,
    STATE_DECISION_EXPIRED,
    STATE_DECISION_KIND,
    STATE_DISARM_REMINDERS,
    STATE_RUN_AGENT,
    STATE_WAIT_FOR_DECISION,
)
from infra.settings import DEFAULTS, Settings
from production_orchestrator.domain.errors import ConfigurationError
from tests.support.cdk_template import (
    function_ids,
    placeholder,
    resources_of_type,
    role_statements,
    state_machine_definition,
    synthesize,
)

CONTEXT = {
    "approverEmails": "a@example.com,b@example.com",
    "senderEmail": "orders@shop.example",
    "approvalWindow": "2d",
    "remindAt": "halfway,24h,2h",
    "escalateAfter": "20h",
    "backupApprovers": "Dan@Example.com,eve@example.com",
}
BASE = {"logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTelemetryRecords", "xray:PutTraceSegments"}
REMIND_ACTIONS = BASE | {
    "dynamodb:BatchGetItem",
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:UpdateItem",
    "dynamodb:PutItem",
    "kms:GenerateMac",
    "sns:Publish",
    "scheduler:CreateSchedule",
    "scheduler:DeleteSchedule",
    "iam:PassRole",
}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(CONTEXT)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _group_id(template: dict[str, Any]) -> str:
    (group_id,) = resources_of_type(template, "AWS::Scheduler::ScheduleGroup")
    return group_id


def _scheduler_role(template: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    (found,) = [
        (logical_id, role)
        for logical_id, role in resources_of_type(template, "AWS::IAM::Role").items()
        if "scheduler.amazonaws.com" in json.dumps(role["Properties"]["AssumeRolePolicyDocument"])
    ]
    return found


def test_reminders_are_armed_before_the_workflow_parks_and_disarmed_after_the_decision(
    template: dict[str, Any],
) -> None:
    states = state_machine_definition(template, placeholder)["States"]
    remind = placeholder(function_ids(template)["remind"], "Arn")
    arm, disarm = states[STATE_ARM_REMINDERS], states[STATE_DISARM_REMINDERS]
    read = states[states[STATE_RUN_AGENT]["Next"]]  # RequestRead: the parked branch is its default
    assert read["Default"] == STATE_ARM_REMINDERS and arm["Next"] == STATE_WAIT_FOR_DECISION
    assert states[STATE_WAIT_FOR_DECISION]["Next"] == STATE_DISARM_REMINDERS and disarm["Next"] == STATE_DECISION_KIND
    assert arm["Resource"] == disarm["Resource"] == remind
    assert arm["Parameters"] == {
        "action": "arm",
        "checkpoint_id.$": "$.run.checkpoint_id",
        "expires_at.$": "$.run.expires_at",
    }
    assert disarm["Parameters"] == {"action": "disarm", "checkpoint_id.$": "$.run.checkpoint_id"}
    # A reminder never stands in the way of a decision: any failure goes on to the same next state, and the
    # results never overwrite what the later states read ($.run, $.decision).
    assert arm["Catch"] == [
        {"ErrorEquals": ["States.ALL"], "ResultPath": "$.reminders", "Next": STATE_WAIT_FOR_DECISION}
    ]
    kind = STATE_DECISION_KIND  # then the resume, or a revision's PlanRevisedVersion (test_revise_loop.py)
    assert disarm["Catch"] == [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.reminders", "Next": kind}]
    assert arm["ResultPath"] == disarm["ResultPath"] == "$.reminders"
    # The parked task is unchanged: the window's timeout still expires, never approves.
    assert states[STATE_WAIT_FOR_DECISION]["Catch"][0]["Next"] == STATE_DECISION_EXPIRED


def test_the_reminder_role_holds_exactly_what_the_handler_calls(template: dict[str, Any]) -> None:
    statements = role_statements(template, "remind")
    assert {a for s in statements for a in _as_list(s["Action"])} == REMIND_ACTIONS
    assert all(s["Effect"] == "Allow" for s in statements)
    group = _group_id(template)
    role_id, _ = _scheduler_role(template)
    for statement in statements:
        actions = set(_as_list(statement["Action"]))
        rendered = json.dumps(statement["Resource"])
        if actions & {"scheduler:CreateSchedule", "scheduler:DeleteSchedule"}:
            # Only schedules of the stack's own group.
            assert actions == {"scheduler:CreateSchedule", "scheduler:DeleteSchedule"}
            assert '":schedule/", {"Ref": "' + group + '"}, "/*"' in rendered.replace("\n", "")
        if "iam:PassRole" in actions:
            assert statement["Resource"] == {"Fn::GetAtt": [role_id, "Arn"]}
            assert statement["Condition"] == {"StringEquals": {"iam:PassedToService": "scheduler.amazonaws.com"}}
        if any(a.startswith("dynamodb:") for a in actions):
            patterns = statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
            assert "SUBMISSION#*" not in patterns
            if actions & {"dynamodb:UpdateItem"}:
                assert patterns == ["APPROVAL#*"]  # it changes approvals, nothing else
        if "sns:Publish" in actions:
            assert "ApprovalTopic" in rendered
    assert not any("states:" in a for s in statements for a in _as_list(s["Action"]))


def test_only_eventbridge_scheduler_of_this_account_may_invoke_the_reminder_function_as_its_role(
    template: dict[str, Any],
) -> None:
    role_id, role = _scheduler_role(template)
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "scheduler.amazonaws.com"}
    assert trust["Condition"] == {
        "StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}},
        "ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [_group_id(template), "Arn"]}},
    }
    policies = [
        p
        for p in resources_of_type(template, "AWS::IAM::Policy").values()
        if {"Ref": role_id} in p["Properties"]["Roles"]
    ]
    statements = [s for p in policies for s in p["Properties"]["PolicyDocument"]["Statement"]]
    remind = function_ids(template)["remind"]
    assert statements == [
        {"Action": "lambda:InvokeFunction", "Effect": "Allow", "Resource": {"Fn::GetAtt": [remind, "Arn"]}}
    ]


def test_the_reminder_function_reads_its_schedule_from_the_context(template: dict[str, Any]) -> None:
    remind = template["Resources"][function_ids(template)["remind"]]["Properties"]
    variables = remind["Environment"]["Variables"]
    assert variables["PO_REMIND_AT"] == "halfway,24h,2h"
    assert variables["PO_ESCALATE_AFTER"] == "20h"
    assert variables["PO_BACKUP_APPROVERS"] == "dan@example.com,eve@example.com"
    assert variables["PO_REMINDER_GROUP"] == {"Ref": _group_id(template)}
    assert variables["PO_REMINDER_ROLE_ARN"] == {"Fn::GetAtt": [_scheduler_role(template)[0], "Arn"]}
    assert "PO_LINK_BASE_URL" in variables  # the decision URL: the reminders' new links point there
    (config,) = resources_of_type(template, "AWS::Lambda::EventInvokeConfig").values()
    assert config["Properties"]["MaximumRetryAttempts"] == 2  # the second retry outlasts the reminder lease


def test_the_backups_are_subscribed_each_to_their_own_messages(template: dict[str, Any]) -> None:
    subscriptions = {
        s["Properties"]["Endpoint"]: json.loads(json.dumps(s["Properties"].get("FilterPolicy")))
        for s in resources_of_type(template, "AWS::SNS::Subscription").values()
        if s["Properties"]["Protocol"] == "email"
    }
    assert subscriptions["dan@example.com"] == {"approver": ["dan@example.com"]}
    assert subscriptions["eve@example.com"] == {"approver": ["eve@example.com"]}


def test_remind_at_off_builds_no_reminder_function_group_or_state() -> None:
    template = synthesize({**CONTEXT, "remindAt": "off", "escalateAfter": "", "backupApprovers": ""})
    assert "remind" not in function_ids(template)
    assert resources_of_type(template, "AWS::Scheduler::ScheduleGroup") == {}
    states = state_machine_definition(template, placeholder)["States"]
    assert STATE_ARM_REMINDERS not in states and STATE_DISARM_REMINDERS not in states
    assert states[states[STATE_RUN_AGENT]["Next"]]["Default"] == STATE_WAIT_FOR_DECISION


# --- context: each mistake one clear line ---------------------------------------------------------------------


def _parse(**context: str) -> Settings:
    return Settings.parse({**DEFAULTS, "approverEmails": "a@example.com", "senderEmail": "o@shop.example", **context})


def test_the_default_keeps_the_points_inside_the_window() -> None:
    assert _parse().remind_at == ("halfway",)  # 24h before the end of a 24h window never comes
    assert _parse(approvalWindow="3d").remind_at == ("halfway", "24h")
    assert _parse(remindAt="off").remind_at == () and not _parse(remindAt="off").reminders_on
    assert _parse(remindAt="25%, 50%,2h").remind_at == ("25%", "halfway", "2h")


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"remindAt": "soon"}, "remindAt: duration 'soon' is not like"),
        ({"remindAt": "halfway,halfway"}, "remindAt: reminder point 'halfway' is given twice"),
        ({"remindAt": "halfway,30h"}, "remindAt point 30h never comes in a 24h approvalWindow"),
        ({"remindAt": ",".join(f"{n}%" for n in range(5, 60, 5))}, "remindAt names 11 points; at most 10"),
        ({"escalateAfter": "2h"}, "escalateAfter and backupApprovers go together"),
        ({"backupApprovers": "d@example.com"}, "escalateAfter and backupApprovers go together"),
        ({"escalateAfter": "later", "backupApprovers": "d@example.com"}, "escalateAfter: duration 'later'"),
        ({"escalateAfter": "24h", "backupApprovers": "d@example.com"}, "escalateAfter 24h is not shorter than"),
        ({"escalateAfter": "2h", "backupApprovers": "dan"}, "backupApprovers entry 'dan' is not an e-mail address"),
        ({"escalateAfter": "2h", "backupApprovers": "A@Example.com"}, "a@example.com is already in approverEmails"),
        ({"escalateAfter": "2h", "backupApprovers": "d@x.com, D@x.com"}, "backupApprovers names d@x.com twice"),
    ],
)
def test_each_reminder_mistake_is_refused_at_synth_in_one_line(context: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        _parse(**context)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_more_people_than_an_approval_may_ask_is_refused() -> None:
    backups = ",".join(f"b{n}@example.com" for n in range(20))
    with pytest.raises(ConfigurationError, match="name 21 people; at most 20"):
        _parse(escalateAfter="2h", backupApprovers=backups)
