"""The submit entry in the template: an IAM-authenticated URL, a role that may only record the submission and
start the one state machine, and a run that learns its own execution name from the context object."""

from __future__ import annotations

from typing import Any

import pytest

from infra.constants import STATE_REQUESTER_UNVERIFIED, STATE_RUN_AGENT
from production_orchestrator.domain.errors import RequesterUnverifiedError
from tests.infra.test_outbox_sender import role_statements
from tests.support.cdk_template import placeholder, resources_of_type, state_machine_definition, synthesize


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize({"approverEmails": "approver@example.com", "senderEmail": "orders@shop.example.com"})


def _submit_id(template: dict[str, Any]) -> str:
    ((logical_id,),) = [
        [k]
        for k, v in resources_of_type(template, "AWS::Lambda::Function").items()
        if v["Properties"]["Handler"] == "production_orchestrator.handlers.submit.handler"
    ]
    return logical_id


def test_submit_is_reachable_only_with_an_iam_signature(template: dict[str, Any]) -> None:
    submit = _submit_id(template)
    ((url_id, url),) = [
        (k, u)
        for k, u in resources_of_type(template, "AWS::Lambda::Url").items()
        if u["Properties"]["TargetFunctionArn"] == {"Fn::GetAtt": [submit, "Arn"]}
    ]
    assert url["Properties"]["AuthType"] == "AWS_IAM"
    assert template["Outputs"]["SubmitUrl"]["Value"] == {"Fn::GetAtt": [url_id, "FunctionUrl"]}
    # No resource policy opens it to anyone: only identities granted lambda:InvokeFunctionUrl reach it.
    for permission in resources_of_type(template, "AWS::Lambda::Permission").values():
        if permission["Properties"]["FunctionName"] == {"Fn::GetAtt": [submit, "Arn"]}:
            assert permission["Properties"]["Principal"] != "*"


def test_the_submit_role_may_record_a_submission_and_start_the_one_state_machine(template: dict[str, Any]) -> None:
    (machine_id,) = resources_of_type(template, "AWS::StepFunctions::StateMachine")
    env = template["Resources"][_submit_id(template)]["Properties"]["Environment"]["Variables"]
    assert env["PO_STATE_MACHINE_ARN"] == {"Ref": machine_id}
    statements = role_statements(template, "submit")
    actions = {
        action
        for statement in statements
        for action in (statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]])
    }
    assert actions - {
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
    } == {
        "dynamodb:PutItem",
        "states:StartExecution",
    }
    (start,) = [s for s in statements if s["Action"] == "states:StartExecution"]
    assert start["Resource"] == {"Ref": machine_id}


def test_the_run_gets_its_own_execution_name_and_refuses_an_unverified_requester(template: dict[str, Any]) -> None:
    run = state_machine_definition(template, placeholder)["States"][STATE_RUN_AGENT]
    assert run["Parameters"] == {"input.$": "$", "execution_name.$": "$$.Execution.Name"}
    assert {
        "ErrorEquals": [RequesterUnverifiedError.__name__],
        "ResultPath": "$.error",
        "Next": STATE_REQUESTER_UNVERIFIED,
    } in run["Catch"]
    unverified = state_machine_definition(template, placeholder)["States"][STATE_REQUESTER_UNVERIFIED]
    assert unverified["Type"] == "Fail" and unverified["Error"] == RequesterUnverifiedError.__name__
