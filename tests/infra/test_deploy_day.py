"""What a first real deployment needs that a synth alone does not show, read from the synthesized template:
alarms that can reach the operator, approver filters that match what is published, resources that do not
outlive a failed create, model grants that are valid ARNs, the e-mail intake's failures kept, HMAC keys only
the named roles can MAC with, runs sized for a throttled model, and a synth that refuses a deployment that
could never work (each in one line)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.constants import STATE_NEEDS_FACTS, STATE_NO_SHOP, STATE_REQUEST_NOT_PLANNED, STATE_RUN_AGENT
from infra.constructs.agent_functions import (
    RESUME_AGENT_TIMEOUT_SECONDS,
    RUN_AGENT_TIMEOUT_SECONDS,
    model_grant,
)
from infra.settings import DEFAULTS, Settings
from production_orchestrator.adapters.aws.sns_notifier import APPROVER_ATTRIBUTE
from production_orchestrator.domain.errors import (
    ConfigurationError,
    PlanningError,
    ShopError,
    UnplannableError,
    ValidationError,
)
from tests.support.cdk_template import (
    function_ids,
    placeholder,
    resources_of_type,
    role_statements,
    state_machine_definition,
    synthesize,
)

SENDER = "orders@shop.example.com"
CONTEXT = {
    "approverEmails": "Ana@Example.com,ben@example.com",
    "operatorEmail": "ops@example.com",
    "senderEmail": SENDER,
    "inboundAddress": "requests@shop.example.com",
    "submitters": json.dumps({"arn:aws:iam::123456789012:role/ShopOperator": "olga@shop.example"}),
}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(CONTEXT)


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return set(action if isinstance(action, list) else [action])


def _principal_refs(statement: dict[str, Any]) -> str:
    return json.dumps(statement.get("Principal", {}))


# --- approver filters -----------------------------------------------------------------------------------------


def test_each_approver_filter_holds_the_folded_address_the_notifier_publishes(template: dict[str, Any]) -> None:
    subscriptions = {
        s["Properties"]["Endpoint"]: s["Properties"]["FilterPolicy"]
        for s in resources_of_type(template, "AWS::SNS::Subscription").values()
        if s["Properties"]["Protocol"] == "email" and "FilterPolicy" in s["Properties"]
    }
    # The address is subscribed as typed (that is where the mail goes); the filter matches the published form.
    assert subscriptions == {
        "Ana@Example.com": {APPROVER_ATTRIBUTE: ["ana@example.com"]},
        "ben@example.com": {APPROVER_ATTRIBUTE: ["ben@example.com"]},
    }


# --- alarms reach the operator ----------------------------------------------------------------------------------


def test_cloudwatch_may_publish_to_the_alarm_topic_and_only_this_accounts_alarms(template: dict[str, Any]) -> None:
    alarm_topic = next(
        k
        for k, v in resources_of_type(template, "AWS::SNS::Topic").items()
        if v["Properties"]["DisplayName"] == "Production orchestrator alarms"
    )
    (policy,) = [
        p
        for p in resources_of_type(template, "AWS::SNS::TopicPolicy").values()
        if {"Ref": alarm_topic} in p["Properties"]["Topics"]
    ]
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    allows = [s for s in statements if s["Effect"] == "Allow"]
    (allow,) = allows
    assert allow["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    assert _actions(allow) == {"sns:Publish"}
    assert allow["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert ":alarm:*" in json.dumps(allow["Condition"]["ArnLike"]["aws:SourceArn"])
    # the TLS deny stays
    assert any(s["Effect"] == "Deny" and "aws:SecureTransport" in json.dumps(s.get("Condition")) for s in statements)
    # every alarm notifies that topic
    alarms = resources_of_type(template, "AWS::CloudWatch::Alarm").values()
    assert alarms and all(a["Properties"]["AlarmActions"] == [{"Ref": alarm_topic}] for a in alarms)


# --- nothing outlives a failed first create ---------------------------------------------------------------------


def _alarm_topic_and_key(template: dict[str, Any]) -> tuple[str, str]:
    topic = next(
        k
        for k, v in resources_of_type(template, "AWS::SNS::Topic").items()
        if v["Properties"]["DisplayName"] == "Production orchestrator alarms"
    )
    return topic, template["Resources"][topic]["Properties"]["KmsMasterKeyId"]["Fn::GetAtt"][0]


def test_only_the_start_function_may_alert_the_operator_and_only_on_the_alarm_topic(template: dict[str, Any]) -> None:
    topic, key = _alarm_topic_and_key(template)
    ids = function_ids(template)
    for module in ids:
        statements = role_statements(template, module)
        publishes = [s for s in statements if any(a.startswith("sns:") for a in _actions(s))]
        uses_key = [s for s in statements if key in json.dumps(s["Resource"])]
        if module != "run_agent":
            assert topic not in json.dumps(publishes) and uses_key == [], module
            continue
        (publish,) = publishes  # a needs-facts request: the one alert it sends
        assert _actions(publish) == {"sns:Publish"} and publish["Resource"] == {"Ref": topic}
        (encrypt,) = uses_key
        assert _actions(encrypt) == {"kms:GenerateDataKey", "kms:Decrypt"}
        assert encrypt["Resource"] == {"Fn::GetAtt": [key, "Arn"]}
    env = template["Resources"][ids["run_agent"]]["Properties"]["Environment"]["Variables"]
    assert env["PO_OPERATOR_TOPIC_ARN"] == {"Ref": topic}
    others = [m for m, i in ids.items() if m != "run_agent"]
    assert all(
        "PO_OPERATOR_TOPIC_ARN" not in template["Resources"][ids[m]]["Properties"]["Environment"]["Variables"]
        for m in others
    )


def test_a_request_that_waits_as_needs_facts_ends_the_execution_without_a_failure(template: dict[str, Any]) -> None:
    states = state_machine_definition(template, placeholder)["States"]
    read = states[states[STATE_RUN_AGENT]["Next"]]
    assert read["Type"] == "Choice"
    (needs_facts,) = read["Choices"]
    assert needs_facts == {"Variable": "$.run.outcome", "StringEquals": "needs_facts", "Next": STATE_NEEDS_FACTS}
    assert states[STATE_NEEDS_FACTS]["Type"] == "Succeed"
    assert read["Default"] != STATE_NEEDS_FACTS


def test_kept_resources_are_kept_on_delete_but_not_after_a_failed_create(template: dict[str, Any]) -> None:
    kept = {
        logical_id: (resource["Type"], resource.get("DeletionPolicy"), resource.get("UpdateReplacePolicy"))
        for logical_id, resource in template["Resources"].items()
        if resource.get("DeletionPolicy") not in (None, "Delete")
    }
    types = sorted(t for t, _, _ in kept.values())
    assert types == ["AWS::DynamoDB::Table", "AWS::KMS::Key", "AWS::KMS::Key", "AWS::S3::Bucket"]
    assert {(d, u) for _, d, u in kept.values()} == {("RetainExceptOnCreate", "Retain")}
    # the alarm topic's key encrypts nothing that outlives the topic: it goes with the stack
    (alarm_key,) = [k for k in resources_of_type(template, "AWS::KMS::Key") if k.startswith("OperationsAlarmTopicKey")]
    assert template["Resources"][alarm_key]["DeletionPolicy"] == "Delete"


# --- model grants -----------------------------------------------------------------------------------------------

PROFILE_ARN = "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.amazon.nova-pro-v1:0"
APP_PROFILE_ARN = "arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3d4e5f6"


def test_an_inference_profile_arn_is_granted_as_given_with_its_base_model() -> None:
    grant = model_grant("aws", "123456789012", "eu-west-1", PROFILE_ARN)
    assert grant.resources == (PROFILE_ARN, "arn:aws:bedrock:*::foundation-model/amazon.nova-pro-v1:0")
    assert grant.conditions == {}


def test_an_application_profile_reaches_models_only_through_itself() -> None:
    grant = model_grant("aws", "123456789012", "eu-west-1", APP_PROFILE_ARN)
    assert grant.resources == (APP_PROFILE_ARN, "arn:aws:bedrock:*::foundation-model/*")
    assert grant.conditions == {"StringEquals": {"bedrock:InferenceProfileArn": APP_PROFILE_ARN}}


def test_a_profile_id_and_a_model_id_keep_their_grants() -> None:
    assert model_grant("aws", "1", "us-east-1", "us.amazon.nova-pro-v1:0").resources == (
        "arn:aws:bedrock:us-east-1:1:inference-profile/us.amazon.nova-pro-v1:0",
        "arn:aws:bedrock:*::foundation-model/amazon.nova-pro-v1:0",
    )
    assert model_grant("aws", "1", "us-east-1", "amazon.nova-pro-v1:0").resources == (
        "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0",
    )


def test_a_stack_with_a_profile_arn_grants_well_formed_resources() -> None:
    template = synthesize({**CONTEXT, "modelId": APP_PROFILE_ARN, "modelRegion": "eu-west-1"})
    (statement,) = [
        s for s in role_statements(template, "run_agent") if "bedrock:InvokeModelWithResponseStream" in _actions(s)
    ]
    assert statement["Resource"] == [
        APP_PROFILE_ARN,
        {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":bedrock:*::foundation-model/*"]]},
    ]
    assert statement["Condition"] == {"StringEquals": {"bedrock:InferenceProfileArn": APP_PROFILE_ARN}}


@pytest.mark.parametrize(
    ("model_id", "region", "message"),
    [
        ("arn:aws:bedrock:eu-west-1:123456789012:agent/abc", "eu-west-1", "not a Bedrock model"),
        ("arn:aws:s3:::bucket", "us-east-1", "not a Bedrock model"),
        (PROFILE_ARN, "us-east-1", "modelRegion is us-east-1"),
    ],
)
def test_a_model_arn_that_cannot_work_is_refused_at_synth(model_id: str, region: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Settings.parse({**DEFAULTS, "modelId": model_id, "modelRegion": region})


# --- the e-mail intake keeps what fails ---------------------------------------------------------------------------


def test_an_email_that_fails_its_retries_goes_to_a_queue_that_alarms(template: dict[str, Any]) -> None:
    receive = function_ids(template)["receive_email"]
    (config,) = [
        c
        for c in resources_of_type(template, "AWS::Lambda::EventInvokeConfig").values()
        if c["Properties"]["FunctionName"] == {"Ref": receive}  # the reminder function has its own
    ]
    assert config["Properties"]["MaximumRetryAttempts"] == 2
    destination = config["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]
    (queue_id,) = resources_of_type(template, "AWS::SQS::Queue")
    assert destination == {"Fn::GetAtt": [queue_id, "Arn"]}
    # the function may send to that queue (the destination is called with its role)
    assert any(
        "sqs:SendMessage" in _actions(s) and s["Resource"] == {"Fn::GetAtt": [queue_id, "Arn"]}
        for s in role_statements(template, "receive_email")
    )
    (alarm,) = [
        a
        for a in resources_of_type(template, "AWS::CloudWatch::Alarm").values()
        if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"
    ]
    assert alarm["Properties"]["Dimensions"][0]["Value"] == {"Fn::GetAtt": [queue_id, "QueueName"]}
    assert alarm["Properties"]["Threshold"] == 1 and alarm["Properties"]["AlarmActions"]


# --- HMAC keys: only the named roles may MAC ------------------------------------------------------------------------


def _key_policies(template: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {
        resource["Properties"]["Description"]: resource["Properties"]["KeyPolicy"]["Statement"]
        for resource in resources_of_type(template, "AWS::KMS::Key").values()
        if resource["Properties"].get("KeySpec") == "HMAC_256"
    }


def _role_arns(template: dict[str, Any], modules: list[str]) -> list[str]:
    ids = function_ids(template)
    return sorted(template["Resources"][ids[m]]["Properties"]["Role"]["Fn::GetAtt"][0] for m in modules)


def _principals(statements: list[dict[str, Any]], action: str) -> list[str]:
    """The role logical ids named (merged or not) by statements allowing exactly ``action`` among others."""
    found: list[str] = []
    for statement in statements:
        if action not in _actions(statement):
            continue
        aws = statement["Principal"]["AWS"]
        for principal in aws if isinstance(aws, list) else [aws]:
            found.append(principal["Fn::GetAtt"][0] if "Fn::GetAtt" in principal else json.dumps(principal))
    return sorted(found)


def test_hmac_keys_do_not_delegate_to_iam_and_name_the_roles_that_mac(template: dict[str, Any]) -> None:
    policies = _key_policies(template)
    assert len(policies) == 2
    for description, statements in policies.items():
        account = [s for s in statements if "AWS::AccountId" in _principal_refs(s)]
        (admin,) = account
        assert "kms:*" not in _actions(admin) and "kms:GenerateMac" not in _actions(admin), description
        assert not any(a.startswith("kms:CreateGrant") for a in _actions(admin)), description
        assert "kms:VerifyMac" in _actions(admin)  # the operator's audit verify --table: a yes/no that mints nothing
    receipt = next(v for k, v in policies.items() if "receipts" in k)
    assert _principals(receipt, "kms:GenerateMac") == _role_arns(template, ["decide"])
    named = [s for s in receipt if "AWS::AccountId" not in _principal_refs(s)]
    assert _principals(named, "kms:VerifyMac") == _role_arns(template, ["resume_agent"])
    audit = next(v for k, v in policies.items() if "audit chain" in k)
    appenders = [
        "run_agent",
        "request_approval",
        "decide",
        "resume_agent",
        "record_expiry",
        "send_outbox",
        "remind",
        "sign_operator_audit",  # the operator's --table writes, through the operator function
    ]
    assert _principals(audit, "kms:GenerateMac") == _role_arns(template, appenders)


# --- runs sized for a throttled model --------------------------------------------------------------------------------


def test_the_run_has_time_for_a_throttled_model_and_a_timed_out_run_is_retried(template: dict[str, Any]) -> None:
    functions = resources_of_type(template, "AWS::Lambda::Function")
    ids = function_ids(template)
    # Strands' retries of a throttled call wait 124 s; a slow answer takes up to 120 s: several such calls fit.
    assert functions[ids["run_agent"]]["Properties"]["Timeout"] == RUN_AGENT_TIMEOUT_SECONDS == 900
    assert functions[ids["resume_agent"]]["Properties"]["Timeout"] == RESUME_AGENT_TIMEOUT_SECONDS
    assert 2 * (124 + 120) <= RESUME_AGENT_TIMEOUT_SECONDS < 600  # shorter than the decision lease (10m)
    run = state_machine_definition(template, placeholder)["States"][STATE_RUN_AGENT]
    timed_out = [r for r in run["Retry"] if "Sandbox.Timedout" in r["ErrorEquals"]]
    assert len(timed_out) == 1 and timed_out[0]["MaxAttempts"] == 1


# --- a run that cannot plan ends in a named state ----------------------------------------------------------------


def test_a_run_without_a_shop_or_a_plannable_request_ends_in_a_named_fail_state(template: dict[str, Any]) -> None:
    states = state_machine_definition(template, placeholder)["States"]
    catches = {tuple(c["ErrorEquals"]): c["Next"] for c in states[STATE_RUN_AGENT]["Catch"]}
    assert catches[(ShopError.__name__,)] == STATE_NO_SHOP
    planning = next(k for k, v in catches.items() if v == STATE_REQUEST_NOT_PLANNED)
    # Step Functions matches the raised class's own name, not its bases: each subclass is listed
    assert {PlanningError.__name__, UnplannableError.__name__, ValidationError.__name__} <= set(planning)
    assert states[STATE_NO_SHOP]["Type"] == "Fail" and states[STATE_NO_SHOP]["Error"] == ShopError.__name__
    # the reason is the handler's own message (no shop yet, or another shop)
    assert states[STATE_NO_SHOP]["CausePath"] == "$.error.Cause"
    assert states[STATE_REQUEST_NOT_PLANNED]["ErrorPath"] == "$.error.Error"
    assert "States.ALL" not in json.dumps(states[STATE_RUN_AGENT]["Catch"])


# --- a synth that cannot produce a broken deployment ---------------------------------------------------------------


def test_a_one_owner_shop_that_submits_under_separation_of_duties_is_refused_in_one_line() -> None:
    owner = {
        **DEFAULTS,
        "approverEmails": "Owner@Shop.Example",
        "senderEmail": SENDER,
        "submitters": json.dumps({"arn:aws:iam::123456789012:role/Owner": "owner@shop.example"}),
    }
    with pytest.raises(ConfigurationError) as refused:
        Settings.parse(owner)
    assert "\n" not in str(refused.value) and "separationOfDuties=false" in str(refused.value)
    # The same shop deploys without separation of duties, or with a second approver.
    assert Settings.parse({**owner, "separationOfDuties": "false"}).approver_emails == ("Owner@Shop.Example",)
    assert Settings.parse({**owner, "approverEmails": "owner@shop.example,ben@example.com"})


def test_a_quorum_the_other_approvers_cannot_reach_is_refused() -> None:
    raw = {
        **DEFAULTS,
        "approverEmails": "ana@example.com,ben@example.com",
        "senderEmail": SENDER,
        "quorum": "2",
        "quorumAboveQuantity": "100",
        "submitters": json.dumps({"arn:aws:iam::123456789012:role/Ana": "Ana@Example.com"}),
    }
    with pytest.raises(ConfigurationError, match=r"ana@example\.com may submit"):
        Settings.parse(raw)
    # Submitters who are not approvers leave both approvers free to approve.
    assert Settings.parse({**raw, "submitters": json.dumps({"arn:aws:iam::123456789012:role/Ci": "ci@shop.example"})})


@pytest.mark.parametrize(
    "submitters",
    [
        "not json",
        json.dumps(["arn:aws:iam::123456789012:role/Ops"]),
        json.dumps({"arn:aws:sts::123456789012:assumed-role/Ops/ana@example.com": "ana@example.com"}),
        json.dumps({"arn:aws:iam::123456789012:role/Ops": "identity-center"}),
    ],
)
def test_a_bad_submitter_map_is_refused_at_synth(submitters: str) -> None:
    with pytest.raises(ConfigurationError, match="submitters"):
        Settings.parse({**DEFAULTS, "submitters": submitters})


def test_the_submit_function_gets_the_map_and_no_other_function_does(template: dict[str, Any]) -> None:
    found = {
        fn["Properties"]["Handler"].split(".")[-2]: fn["Properties"]["Environment"]["Variables"].get("PO_SUBMITTERS")
        for fn in resources_of_type(template, "AWS::Lambda::Function").values()
    }
    assert json.loads(found.pop("submit")) == {"arn:aws:iam::123456789012:role/ShopOperator": "olga@shop.example"}
    assert set(found.values()) == {None}
