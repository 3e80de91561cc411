"""The outbox sender in the template: the state after an applied plan, its retries and alarm, and a role that
may send from the one verified identity through the one configuration set, and nothing else."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.constants import (
    STATE_MESSAGES_NOT_SENT,
    STATE_PLAN_APPLIED,
    STATE_SEND_MESSAGES,
)
from infra.settings import DEFAULTS, Settings
from production_orchestrator.domain.errors import ConfigurationError, DeliveryFailedError, DeliveryIncompleteError
from tests.support.cdk_template import placeholder, resources_of_type, state_machine_definition, synthesize

SENDER = "orders@shop.example.com"
CONTEXT = {"approverEmails": "approver@example.com", "senderEmail": SENDER}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(CONTEXT)


def _function(template: dict[str, Any], module: str) -> tuple[str, dict[str, Any]]:
    ((logical_id, fn),) = [
        (k, v)
        for k, v in resources_of_type(template, "AWS::Lambda::Function").items()
        if v["Properties"]["Handler"] == f"production_orchestrator.handlers.{module}.handler"
    ]
    return logical_id, fn


def role_statements(template: dict[str, Any], module: str) -> list[dict[str, Any]]:
    """Every statement of every policy attached to ``module``'s function role."""
    role_id = _function(template, module)[1]["Properties"]["Role"]["Fn::GetAtt"][0]
    return [
        statement
        for policy in resources_of_type(template, "AWS::IAM::Policy").values()
        if {"Ref": role_id} in policy["Properties"]["Roles"]
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
    ]


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return set(action if isinstance(action, list) else [action])


def test_an_applied_plan_sends_its_messages_before_it_succeeds(template: dict[str, Any]) -> None:
    states = state_machine_definition(template, placeholder)["States"]
    send = states[STATE_SEND_MESSAGES]
    assert send["Next"] == STATE_PLAN_APPLIED
    assert send["Resource"] == placeholder(_function(template, "send_outbox")[0], "Arn")
    assert send["Parameters"] == {
        "checkpoint_id.$": "$.run.checkpoint_id",
        "proposal_hash.$": "$.run.proposal_hash",
    }
    # Messages still queued are retried with backoff; anything left over ends in a Fail state, never a success.
    (retry,) = [r for r in send["Retry"] if r["ErrorEquals"] == [DeliveryIncompleteError.__name__]]
    assert (retry["IntervalSeconds"], retry["MaxAttempts"], retry["BackoffRate"]) == (30, 6, 2)
    assert send["Catch"] == [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": STATE_MESSAGES_NOT_SENT}]
    assert states[STATE_MESSAGES_NOT_SENT]["Type"] == "Fail"
    assert states[STATE_MESSAGES_NOT_SENT]["Error"] == DeliveryFailedError.__name__


def test_undelivered_messages_raise_an_alarm(template: dict[str, Any]) -> None:
    filters = [
        f
        for f in resources_of_type(template, "AWS::Logs::MetricFilter").values()
        if STATE_MESSAGES_NOT_SENT in f["Properties"]["FilterPattern"]
    ]
    assert len(filters) == 1 and "FailStateEntered" in filters[0]["Properties"]["FilterPattern"]
    metric = filters[0]["Properties"]["MetricTransformations"][0]["MetricName"]
    alarms = [
        a
        for a in resources_of_type(template, "AWS::CloudWatch::Alarm").values()
        if a["Properties"].get("MetricName") == metric
    ]
    assert len(alarms) == 1 and alarms[0]["Properties"]["AlarmActions"]
    assert alarms[0]["Properties"]["Threshold"] == 1


def test_the_sender_may_send_only_from_the_identity_through_the_configuration_set(template: dict[str, Any]) -> None:
    (config_id,) = resources_of_type(template, "AWS::SES::ConfigurationSet")
    env = _function(template, "send_outbox")[1]["Properties"]["Environment"]["Variables"]
    assert env["PO_SENDER_EMAIL"] == SENDER
    assert env["PO_SES_CONFIGURATION_SET"] == {"Ref": config_id}
    statements = role_statements(template, "send_outbox")
    ses = [s for s in statements if any(a.startswith("ses:") for a in _actions(s))]
    assert [_actions(s) for s in ses] == [{"ses:SendEmail"}]
    resources = json.dumps(ses[0]["Resource"])
    # identity/* because, in the SES sandbox, SES authorizes the recipients' identities too; the condition
    # holds the role to the one sender address whatever the identity
    assert ":identity/*" in resources
    assert ":configuration-set/" in resources and config_id in resources
    assert len(ses[0]["Resource"]) == 2
    assert ses[0]["Condition"] == {"StringEquals": {"ses:FromAddress": SENDER}}
    table = [s for s in statements if any(a.startswith("dynamodb:") for a in _actions(s))]
    # its outbox items (claim, mark, audit event) and the approved proposal each message must match
    table_actions = set().union(*(_actions(s) for s in table))
    assert table_actions == {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"}
    others = {a for s in statements for a in _actions(s)} - {"ses:SendEmail"} - table_actions
    # the audit key: the events that mark a message sent are MACed links of the chain
    assert others <= {
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
        "kms:GenerateMac",
    }


def test_no_other_role_may_send_email(template: dict[str, Any]) -> None:
    for module in ("run_agent", "request_approval", "decide", "resume_agent", "record_expiry", "report_pending_age"):
        assert not any(a.startswith("ses:") for s in role_statements(template, module) for a in _actions(s)), module


def test_approvers_with_messages_on_and_no_sender_are_refused_at_synth_in_one_line() -> None:
    # The first approved plan would otherwise fail in SendApprovedMessages with the plan applied.
    with pytest.raises(ConfigurationError) as refused:
        Settings.parse({**DEFAULTS, "approverEmails": "approver@example.com"})
    message = str(refused.value)
    assert "\n" not in message and "senderEmail" in message and "messages=off" in message


def test_with_messages_off_nothing_may_be_sent_and_the_applied_plan_succeeds() -> None:
    template = synthesize({"approverEmails": "approver@example.com", "messages": "off"})
    handlers = {f["Properties"]["Handler"] for f in resources_of_type(template, "AWS::Lambda::Function").values()}
    assert "production_orchestrator.handlers.send_outbox.handler" not in handlers
    states = state_machine_definition(template, placeholder)["States"]
    assert STATE_SEND_MESSAGES not in states and STATE_MESSAGES_NOT_SENT not in states
    applied = [c for c in states["DecisionOutcome"]["Choices"] if c.get("StringEquals") == "applied"]
    assert [c["Next"] for c in applied] == [STATE_PLAN_APPLIED]
    assert not any(
        a.startswith("ses:")
        for p in resources_of_type(template, "AWS::IAM::Policy").values()
        for s in p["Properties"]["PolicyDocument"]["Statement"]
        for a in _actions(s)
    )


@pytest.mark.parametrize("value", ["yes", "", "true"])
def test_messages_must_be_on_or_off(value: str) -> None:
    with pytest.raises(ConfigurationError, match="messages must be on or off"):
        Settings.parse({**DEFAULTS, "messages": value})


def test_an_existing_configuration_set_is_used_and_none_created() -> None:
    template = synthesize({**CONTEXT, "sesConfigurationSet": "shop-mail"})
    assert resources_of_type(template, "AWS::SES::ConfigurationSet") == {}
    env = _function(template, "send_outbox")[1]["Properties"]["Environment"]["Variables"]
    assert env["PO_SES_CONFIGURATION_SET"] == "shop-mail"
    (ses,) = [s for s in role_statements(template, "send_outbox") if "ses:SendEmail" in _actions(s)]
    assert any("configuration-set/shop-mail" in json.dumps(r) for r in ses["Resource"])


@pytest.mark.parametrize(("key", "value"), [("senderEmail", "not-an-address"), ("sesConfigurationSet", "has space")])
def test_invalid_sender_settings_are_refused_at_synth(key: str, value: str) -> None:
    with pytest.raises(ConfigurationError):
        Settings.parse({**DEFAULTS, key: value})
