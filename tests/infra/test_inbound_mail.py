"""E-mail intake in the template: nothing without ``inboundAddress``; with it, a receipt rule for that address
only (scan on, TLS required) whose actions store the message under inbound/ and then invoke the receiving
function asynchronously, a bucket policy and a Lambda permission that admit SES for this account's rule only,
and a role that may read inbound/, record and read submissions, and start the one state machine."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.settings import DEFAULTS, Settings
from production_orchestrator.domain.errors import ConfigurationError
from tests.support.cdk_template import function_ids, resources_of_type, role_statements, synthesize

INBOUND = "orders@shop.example"
CONTEXT = {"approverEmails": "approver@example.com", "senderEmail": "orders@shop.example"}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize({**CONTEXT, "inboundAddress": "Orders@Shop.Example"})


def _rule(template: dict[str, Any]) -> dict[str, Any]:
    (rule,) = resources_of_type(template, "AWS::SES::ReceiptRule").values()
    return rule


def _rule_set(template: dict[str, Any]) -> str:
    (rule_set_id,) = resources_of_type(template, "Custom::ActiveReceiptRuleSet")
    return rule_set_id


def _rule_arn(template: dict[str, Any]) -> dict[str, Any]:
    rule_set_id = _rule_set(template)
    return {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":ses:",
                {"Ref": "AWS::Region"},
                ":",
                {"Ref": "AWS::AccountId"},
                ":receipt-rule-set/",
                {"Fn::GetAtt": [rule_set_id, "RuleSetName"]},
                ":receipt-rule/ProductionOrchestrator-requests",
            ],
        ]
    }


def _actions(statement: dict[str, Any]) -> list[str]:
    action = statement["Action"]
    return action if isinstance(action, list) else [action]


def _ses_statements(template: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        statement
        for policy in resources_of_type(template, "AWS::S3::BucketPolicy").values()
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement.get("Principal") == {"Service": "ses.amazonaws.com"}
    ]


def test_without_an_inbound_address_nothing_of_it_is_synthesized() -> None:
    plain = synthesize(CONTEXT)
    assert not any(r["Type"].startswith("AWS::SES::Receipt") for r in plain["Resources"].values())
    assert "receive_email" not in function_ids(plain)
    assert _ses_statements(plain) == []
    assert all(
        p["Properties"]["Principal"] != "ses.amazonaws.com"
        for p in resources_of_type(plain, "AWS::Lambda::Permission").values()
    )


def test_the_rule_takes_the_inbound_address_only_scanned_over_tls(template: dict[str, Any]) -> None:
    rule = _rule(template)
    # The rule goes into the region's active set the custom resource names (no stack owns a rule set).
    assert rule["Properties"]["RuleSetName"] == {"Fn::GetAtt": [_rule_set(template), "RuleSetName"]}
    assert resources_of_type(template, "AWS::SES::ReceiptRuleSet") == {}
    props = rule["Properties"]["Rule"]
    assert props["Name"] == "ProductionOrchestrator-requests"
    assert props["Recipients"] == [INBOUND]  # normalized at synth
    assert (props["Enabled"], props["ScanEnabled"], props["TlsPolicy"]) == (True, True, "Require")


def test_the_message_is_stored_under_inbound_before_the_function_is_invoked_asynchronously(
    template: dict[str, Any],
) -> None:
    (bucket_id,) = resources_of_type(template, "AWS::S3::Bucket")
    store, invoke = _rule(template)["Properties"]["Rule"]["Actions"]
    assert store == {"S3Action": {"BucketName": {"Ref": bucket_id}, "ObjectKeyPrefix": "inbound/"}}
    receive = function_ids(template)["receive_email"]
    assert invoke == {"LambdaAction": {"FunctionArn": {"Fn::GetAtt": [receive, "Arn"]}, "InvocationType": "Event"}}
    # SES checks both grants when it creates the rule.
    (policy_id,) = resources_of_type(template, "AWS::S3::BucketPolicy")
    (permission_id,) = [
        k
        for k, p in resources_of_type(template, "AWS::Lambda::Permission").items()
        if p["Properties"]["Principal"] == "ses.amazonaws.com"
    ]
    assert set(_rule(template)["DependsOn"]) >= {policy_id, permission_id}


def test_ses_may_write_only_inbound_and_only_for_this_accounts_rule(template: dict[str, Any]) -> None:
    (bucket_id,) = resources_of_type(template, "AWS::S3::Bucket")
    (statement,) = _ses_statements(template)
    assert statement["Effect"] == "Allow" and statement["Action"] == "s3:PutObject"
    assert statement["Resource"] == {"Fn::Join": ["", [{"Fn::GetAtt": [bucket_id, "Arn"]}, "/inbound/*"]]}
    assert statement["Condition"] == {
        "StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}, "aws:SourceArn": _rule_arn(template)}
    }


def test_ses_may_invoke_the_function_only_for_this_accounts_rule(template: dict[str, Any]) -> None:
    (permission,) = [
        p["Properties"]
        for p in resources_of_type(template, "AWS::Lambda::Permission").values()
        if p["Properties"]["Principal"] == "ses.amazonaws.com"
    ]
    assert permission["Action"] == "lambda:InvokeFunction"
    assert permission["FunctionName"] == {"Fn::GetAtt": [function_ids(template)["receive_email"], "Arn"]}
    assert permission["SourceAccount"] == {"Ref": "AWS::AccountId"}
    assert permission["SourceArn"] == _rule_arn(template)


def test_the_role_reads_inbound_only_and_starts_the_one_state_machine(template: dict[str, Any]) -> None:
    (bucket_id,) = resources_of_type(template, "AWS::S3::Bucket")
    (machine_id,) = resources_of_type(template, "AWS::StepFunctions::StateMachine")
    statements = role_statements(template, "receive_email")
    (read,) = [s for s in statements if s["Action"] == "s3:GetObject"]
    assert read["Resource"] == {"Fn::Join": ["", [{"Fn::GetAtt": [bucket_id, "Arn"]}, "/inbound/*"]]}
    (start,) = [s for s in statements if s["Action"] == "states:StartExecution"]
    assert start["Resource"] == {"Ref": machine_id}
    table = [s for s in statements if any(a.startswith("dynamodb:") for a in _actions(s))]
    assert [s["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] for s in table] == [["SUBMISSION#*"]]
    env = template["Resources"][function_ids(template)["receive_email"]]["Properties"]["Environment"]["Variables"]
    assert (env["PO_INBOUND_ADDRESS"], env["PO_STATE_MACHINE_ARN"]) == (INBOUND, {"Ref": machine_id})


def test_a_failed_invocation_is_retried_twice_within_six_hours(template: dict[str, Any]) -> None:
    receive = {"Ref": function_ids(template)["receive_email"]}
    (config,) = [
        c
        for c in resources_of_type(template, "AWS::Lambda::EventInvokeConfig").values()
        if c["Properties"]["FunctionName"] == receive  # the reminder function has its own
    ]
    assert config["Properties"]["MaximumRetryAttempts"] == 2
    assert config["Properties"]["MaximumEventAgeInSeconds"] == 6 * 3600


@pytest.mark.parametrize("value", ["orders", "orders@", "a b@shop.example", "@shop.example"])
def test_an_inbound_address_that_is_not_an_address_is_refused_at_synth(value: str) -> None:
    with pytest.raises(ConfigurationError, match="inboundAddress"):
        Settings.parse({**DEFAULTS, "inboundAddress": value})


def test_teardown_the_custom_resource_manages_the_shared_active_rule_set(template: dict[str, Any]) -> None:
    """The mechanism that lets ``cdk destroy`` succeed: the rule depends on the custom resource (so CloudFormation
    deletes the rule first), whose function may find, create, activate, deactivate and delete rule sets."""
    rule_set_id = _rule_set(template)
    resource = template["Resources"][rule_set_id]
    function_id = resource["Properties"]["ServiceToken"]["Fn::GetAtt"][0]
    function = template["Resources"][function_id]["Properties"]
    assert function["Handler"] == "production_orchestrator.handlers.receipt_rule_set.handler"
    # The rule names the set through the custom resource: deleted before it.
    assert json.dumps(_rule(template)["Properties"]).count(rule_set_id) >= 1
    role_id = function["Role"]["Fn::GetAtt"][0]
    actions = {
        action
        for policy in resources_of_type(template, "AWS::IAM::Policy").values()
        if {"Ref": role_id} in policy["Properties"]["Roles"]
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        for action in _actions(statement)
        if action.startswith("ses:")
    }
    assert actions == {
        "ses:CreateReceiptRuleSet",
        "ses:DeleteReceiptRuleSet",
        "ses:DescribeActiveReceiptRuleSet",
        "ses:DescribeReceiptRuleSet",
        "ses:SetActiveReceiptRuleSet",
    }
