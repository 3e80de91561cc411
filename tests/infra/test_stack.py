"""Assertions on the synthesized template (bundling skipped; cdk-nag AwsSolutions checks pass at synth)."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest
from aws_cdk.assertions import Match, Template

from infra.bundling import AGENT_ONLY_PACKAGES, requirement_lines
from infra.constants import (
    ENV_LINK_BASE_URL,
    METRIC_OLDEST_PENDING_APPROVAL_AGE,
    STATE_APPROVAL_NOT_REQUESTED,
    STATE_ARM_REMINDERS,
    STATE_DECISION_EXPIRED,
    STATE_DECISION_KIND,
    STATE_DISARM_REMINDERS,
    STATE_OUTCOME,
    STATE_PLAN_APPLIED,
    STATE_PLAN_REJECTED,
    STATE_READ_OUTCOME,
    STATE_RESUME,
    STATE_RESUME_REFUSED,
    STATE_REVISE,
    STATE_RUN_AGENT,
    STATE_SEND_MESSAGES,
    STATE_WAIT_FOR_DECISION,
)
from infra.settings import DEFAULT_BEDROCK_MODEL_ID, DEFAULTS, Settings
from production_orchestrator.adapters.aws import table_schema
from production_orchestrator.adapters.aws.sns_notifier import APPROVER_ATTRIBUTE
from production_orchestrator.domain import errors
from production_orchestrator.domain.errors import ConfigurationError, ResumeRefusedError
from tests.support.cdk_template import (
    function_ids,
    placeholder,
    resources_of_type,
    role_statements,
    state_machine_definition,
    synthesize,
)

CONTEXT = {
    "approvalWindow": "2h",
    "approverEmails": "approver@example.com",
    "operatorEmail": "ops@example.com",
    "senderEmail": "orders@shop.example.com",
}
LAMBDA_SERVICE_ERRORS = {"Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException"}
CONTRACT_ENV = {
    "PO_TABLE_NAME",
    "PO_SESSION_BUCKET",
    "PO_SESSION_PREFIX",
    "PO_TOPIC_ARN",
    "PO_PROVIDER",
    "PO_MODEL_ID",
    "PO_MODEL_REGION",
    "PO_MODEL_PROFILE",
    "PO_MODEL_ENDPOINT",
    "PO_APPROVAL_WINDOW",
    "PO_APPROVERS",
    "PO_SCENARIO",
    "POWERTOOLS_SERVICE_NAME",
}


@pytest.fixture(scope="module")
def template_json() -> dict[str, Any]:
    return synthesize(CONTEXT)


@pytest.fixture(scope="module")
def template(template_json: dict[str, Any]) -> Template:
    return Template.from_json(template_json)


@pytest.fixture(scope="module")
def definition(template_json: dict[str, Any]) -> dict[str, Any]:
    return state_machine_definition(template_json, placeholder)


def _function_id(template_json: dict[str, Any], handler_module: str) -> str:
    for logical_id, fn in resources_of_type(template_json, "AWS::Lambda::Function").items():
        if fn["Properties"]["Handler"] == f"production_orchestrator.handlers.{handler_module}.handler":
            return logical_id
    raise AssertionError(f"no function for {handler_module}")


def _statements(template_json: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for logical_id, policy in resources_of_type(template_json, "AWS::IAM::Policy").items():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            found.append((logical_id, statement))
    return found


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


# --- the workflow ---------------------------------------------------------------------------------------


def test_state_machine_is_standard_traced_and_logs_all_without_execution_data(template: Template) -> None:
    template.has_resource_properties(
        "AWS::StepFunctions::StateMachine",
        {
            "StateMachineType": "STANDARD",
            "TracingConfiguration": {"Enabled": True},
            "LoggingConfiguration": {"Level": "ALL", "IncludeExecutionData": False},
        },
    )


def test_states_run_in_the_designed_order(definition: dict[str, Any]) -> None:
    states = definition["States"]
    assert definition["StartAt"] == STATE_RUN_AGENT
    # Reminders are on by default (halfway): armed before the workflow parks, disarmed when the decision comes.
    # Read first: a request that waits as needs facts ends there (tests/infra/test_deploy_day.py); the rest parks.
    assert states[STATE_RUN_AGENT]["Next"] == STATE_READ_OUTCOME
    assert states[STATE_READ_OUTCOME]["Default"] == STATE_ARM_REMINDERS
    assert states[STATE_ARM_REMINDERS]["Next"] == STATE_WAIT_FOR_DECISION
    assert states[STATE_WAIT_FOR_DECISION]["Next"] == STATE_DISARM_REMINDERS
    assert states[STATE_DISARM_REMINDERS]["Next"] == STATE_DECISION_KIND  # a revision loops (test_revise_loop.py)
    assert states[STATE_DECISION_KIND]["Default"] == STATE_RESUME
    assert states[STATE_RESUME]["Next"] == STATE_OUTCOME
    choice = states[STATE_OUTCOME]
    assert choice["Type"] == "Choice"
    targets = {c["Next"] for c in choice["Choices"]} | {choice["Default"]}
    assert targets == {STATE_SEND_MESSAGES, STATE_PLAN_REJECTED, STATE_RESUME_REFUSED, STATE_DECISION_EXPIRED}
    assert choice["Default"] == STATE_RESUME_REFUSED, "an unknown outcome must fail closed"
    assert states[STATE_SEND_MESSAGES]["Next"] == STATE_PLAN_APPLIED
    assert states[STATE_PLAN_APPLIED]["Type"] == "Succeed"
    assert states[STATE_PLAN_REJECTED]["Type"] == "Succeed"
    assert states[STATE_RESUME_REFUSED]["Type"] == "Fail"
    assert states[STATE_DECISION_EXPIRED]["Type"] == "Task"
    assert states[STATE_DECISION_EXPIRED].get("End") is True


def test_wait_for_human_decision_parks_on_a_task_token_until_its_version_expires(
    definition: dict[str, Any], template_json: dict[str, Any]
) -> None:
    wait = definition["States"][STATE_WAIT_FOR_DECISION]
    assert wait["Resource"].endswith(":states:::lambda:invoke.waitForTaskToken")
    # The seconds the run computed until this version's expires_at (tests/infra/test_revise_loop.py).
    assert wait["TimeoutSecondsPath"] == "$.run.wait_seconds" and "TimeoutSeconds" not in wait
    assert wait["Parameters"]["FunctionName"] == placeholder(_function_id(template_json, "request_approval"), "Arn")
    assert wait["Parameters"]["Payload"]["task_token.$"] == "$$.Task.Token"
    assert wait["Catch"] == [
        {"ErrorEquals": ["States.Timeout"], "ResultPath": "$.error", "Next": STATE_DECISION_EXPIRED},
        {"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": STATE_APPROVAL_NOT_REQUESTED},
    ]


def test_an_approval_request_that_fails_ends_in_a_named_state_that_records_why(
    definition: dict[str, Any], template_json: dict[str, Any]
) -> None:
    """SNS refusing, a configuration the notify function rejects, a throttle past its retries: caught after the
    timeout (which expires), into a Fail state carrying the error's class and message, which the failed-executions
    alarm sees."""
    failed = definition["States"][STATE_APPROVAL_NOT_REQUESTED]
    assert failed["Type"] == "Fail"
    assert (failed["ErrorPath"], failed["CausePath"]) == ("$.error.Error", "$.error.Cause")
    alarms = resources_of_type(template_json, "AWS::CloudWatch::Alarm").values()
    assert any("execution failed" in a["Properties"]["AlarmDescription"] for a in alarms)


def test_the_expiry_path_records_the_expiry_and_never_reaches_resume(definition: dict[str, Any]) -> None:
    expired = definition["States"][STATE_DECISION_EXPIRED]
    assert "Next" not in expired
    assert "Catch" not in expired


def test_refusals_are_caught_by_the_error_class_name(definition: dict[str, Any]) -> None:
    catches = definition["States"][STATE_RESUME]["Catch"]
    assert {
        "ErrorEquals": [ResumeRefusedError.__name__],
        "ResultPath": "$.error",
        "Next": STATE_RESUME_REFUSED,
    } in catches


def test_every_catch_and_fail_names_a_real_error_class(definition: dict[str, Any]) -> None:
    classes = {name for name, obj in inspect.getmembers(errors, inspect.isclass) if issubclass(obj, Exception)}
    names = []
    for state in definition["States"].values():
        for catch in state.get("Catch", []):
            names.extend(catch["ErrorEquals"])
        if state["Type"] == "Fail" and "ErrorPath" in state:
            # the caught error's own class (one of the catches' names above)
            assert state["ErrorPath"] == "$.error.Error"
        elif state["Type"] == "Fail":
            names.append(state["Error"])
    assert names
    for name in names:
        assert name.startswith("States.") or name in classes, f"{name} is not a class in domain/errors.py"


def test_every_lambda_task_retries_lambda_service_errors(definition: dict[str, Any]) -> None:
    tasks = {name: s for name, s in definition["States"].items() if s["Type"] == "Task"}
    assert set(tasks) == {
        STATE_RUN_AGENT,
        STATE_ARM_REMINDERS,
        STATE_WAIT_FOR_DECISION,
        STATE_DISARM_REMINDERS,
        STATE_RESUME,
        STATE_REVISE,
        STATE_DECISION_EXPIRED,
        STATE_SEND_MESSAGES,
    }
    for name, task in tasks.items():
        retried = {error for retry in task["Retry"] for error in retry["ErrorEquals"]}
        assert retried >= LAMBDA_SERVICE_ERRORS, name
        assert "States.ALL" not in retried, f"{name} must not retry domain errors"


# --- state store ----------------------------------------------------------------------------------------


def test_session_bucket_is_encrypted_versioned_private_and_expires_old_sessions(template: Template) -> None:
    template.has_resource_properties(
        "AWS::S3::Bucket",
        {
            "BucketEncryption": {
                "ServerSideEncryptionConfiguration": [{"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
            },
            "VersioningConfiguration": {"Status": "Enabled"},
            "PublicAccessBlockConfiguration": {
                "BlockPublicAcls": True,
                "BlockPublicPolicy": True,
                "IgnorePublicAcls": True,
                "RestrictPublicBuckets": True,
            },
            "LifecycleConfiguration": {
                "Rules": Match.array_with([Match.object_like({"Status": "Enabled", "Prefix": "sessions/"})])
            },
        },
    )


def test_session_bucket_refuses_requests_without_tls(template: Template) -> None:
    template.has_resource_properties(
        "AWS::S3::BucketPolicy",
        {
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [Match.object_like({"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}})]
                )
            }
        },
    )


def test_table_has_the_adapter_key_schema_encryption_pitr_and_ttl(template: Template) -> None:
    template.resource_count_is("AWS::DynamoDB::Table", 1)
    template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "KeySchema": [
                {"AttributeName": table_schema.PARTITION_KEY, "KeyType": "HASH"},
                {"AttributeName": table_schema.SORT_KEY, "KeyType": "RANGE"},
            ],
            "SSESpecification": {"SSEEnabled": True},
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "TimeToLiveSpecification": {"AttributeName": table_schema.TTL_ATTRIBUTE, "Enabled": True},
        },
    )


def test_table_has_the_open_runs_local_index(template_json: dict[str, Any]) -> None:
    """Checkpoints by the second their window closes (issue 30): created with the table, as a local index must."""
    ((table,),) = [list(resources_of_type(template_json, "AWS::DynamoDB::Table").values())]
    props = table["Properties"]
    assert props["LocalSecondaryIndexes"] == [
        {
            "IndexName": table_schema.OPEN_RUNS_INDEX,
            "KeySchema": [
                {"AttributeName": table_schema.PARTITION_KEY, "KeyType": "HASH"},
                {"AttributeName": table_schema.OPEN_UNTIL_ATTRIBUTE, "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(table_schema.OPEN_RUNS_PROJECTED)},
        }
    ]
    assert {"AttributeName": table_schema.OPEN_UNTIL_ATTRIBUTE, "AttributeType": "N"} in props["AttributeDefinitions"]


def test_only_the_open_run_readers_query_the_open_runs_index_of_checkpoints_only(
    template_json: dict[str, Any],
) -> None:
    """The index is its own resource (<table arn>/index/<name>): granted to the roles whose code reads the open
    runs (a start, the pending-age gauge), on the CHECKPOINT partition; no role Queries the table's CHECKPOINT."""
    granted: dict[str, list[Any]] = {}
    for module in function_ids(template_json):
        for statement in role_statements(template_json, module):
            resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            if any("/index/" in json.dumps(r) for r in resources):
                granted[module] = [statement["Action"], statement["Condition"], resources]
            elif "dynamodb:Query" in json.dumps(statement["Action"]):
                leading = statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
                assert table_schema.CHECKPOINT_PK not in leading, module
    assert set(granted) == {"run_agent", "report_pending_age"}
    for action, condition, resources in granted.values():
        assert action == "dynamodb:Query"
        assert condition == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": [table_schema.CHECKPOINT_PK]}}
        assert f"/index/{table_schema.OPEN_RUNS_INDEX}" in json.dumps(resources)


def test_topics_are_encrypted(template: Template) -> None:
    for topic in resources_of_type(template.to_json(), "AWS::SNS::Topic").values():
        assert "KmsMasterKeyId" in topic["Properties"]


# --- functions and least privilege ----------------------------------------------------------------------


def test_each_handler_has_its_own_function_role_log_group_and_tracing(template_json: dict[str, Any]) -> None:
    functions = resources_of_type(template_json, "AWS::Lambda::Function")
    handlers = {fn["Properties"]["Handler"].split(".")[2] for fn in functions.values()}
    assert handlers == {
        "run_agent",
        "request_approval",
        "decide",
        "resume_agent",
        "record_expiry",
        "report_pending_age",
        "send_outbox",
        "submit",
        "remind",
        "sign_operator_audit",  # the operator's --table writes' audit MACs
    }
    roles = {json.dumps(fn["Properties"]["Role"]) for fn in functions.values()}
    assert len(roles) == len(functions), "every function has its own role"
    for fn in functions.values():
        props = fn["Properties"]
        assert props["Runtime"] == "python3.12"
        assert props["Architectures"] == ["arm64"]
        assert props["TracingConfig"] == {"Mode": "Active"}
        assert props["LoggingConfig"]["LogFormat"] == "JSON"
        assert "LogGroup" in props["LoggingConfig"]
        assert set(props["Environment"]["Variables"]) >= CONTRACT_ENV
    for group in resources_of_type(template_json, "AWS::Logs::LogGroup").values():
        assert group["Properties"]["RetentionInDays"] == DEFAULTS["logRetentionDays"]


def test_approval_links_point_at_the_decision_function_url(template_json: dict[str, Any]) -> None:
    decide = _function_id(template_json, "decide")
    urls = resources_of_type(template_json, "AWS::Lambda::Url").items()
    ((url_id, url),) = [
        (k, u) for k, u in urls if u["Properties"]["TargetFunctionArn"] == {"Fn::GetAtt": [decide, "Arn"]}
    ]
    assert url["Properties"]["AuthType"] == "NONE"
    request = template_json["Resources"][_function_id(template_json, "request_approval")]
    assert request["Properties"]["Environment"]["Variables"][ENV_LINK_BASE_URL] == {
        "Fn::GetAtt": [url_id, "FunctionUrl"]
    }


def test_separation_of_duties_is_on_by_default(template_json: dict[str, Any]) -> None:
    request = template_json["Resources"][_function_id(template_json, "request_approval")]
    assert request["Properties"]["Environment"]["Variables"]["PO_SEPARATION_OF_DUTIES"] == "true"
    assert Settings.parse({**DEFAULTS, "separationOfDuties": "false"}).separation_of_duties is False


def test_the_approval_request_learns_who_started_the_run(definition: dict[str, Any]) -> None:
    payload = definition["States"][STATE_WAIT_FOR_DECISION]["Parameters"]["Payload"]
    assert payload["requested_by.$"] == "$.run.requested_by"


def test_no_policy_grants_a_wildcard_action(template_json: dict[str, Any]) -> None:
    for logical_id, statement in _statements(template_json):
        for action in _as_list(statement["Action"]):
            assert "*" not in action, f"{logical_id} grants {action}"


def test_only_the_decision_role_may_send_task_results(template_json: dict[str, Any]) -> None:
    decide_role = template_json["Resources"][_function_id(template_json, "decide")]["Properties"]["Role"]
    holders = []
    for logical_id, statement in _statements(template_json):
        if any(a.startswith("states:SendTask") for a in _as_list(statement["Action"])):
            roles = template_json["Resources"][logical_id]["Properties"]["Roles"]
            holders.append(roles)
            assert statement["Resource"] == {
                "Ref": next(iter(resources_of_type(template_json, "AWS::StepFunctions::StateMachine")))
            }
    assert holders == [[{"Ref": decide_role["Fn::GetAtt"][0]}]]


def _hmac_keys(template_json: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        logical_id: key
        for logical_id, key in resources_of_type(template_json, "AWS::KMS::Key").items()
        if key["Properties"].get("KeySpec") == "HMAC_256"
    }


def _roles_granted(template_json: dict[str, Any], action: str, key_id: str) -> list[Any]:
    """The roles of every policy statement granting ``action`` on the key ``key_id``."""
    return [
        template_json["Resources"][logical_id]["Properties"]["Roles"]
        for logical_id, statement in _statements(template_json)
        if action in _as_list(statement["Action"]) and key_id in json.dumps(statement["Resource"])
    ]


def _role_of(template_json: dict[str, Any], handler: str) -> list[Any]:
    role = template_json["Resources"][_function_id(template_json, handler)]["Properties"]["Role"]
    return [{"Ref": role["Fn::GetAtt"][0]}]


def test_receipts_are_maced_by_a_kms_hmac_key_only_the_decision_role_may_sign_with(
    template_json: dict[str, Any],
) -> None:
    keys = _hmac_keys(template_json)
    (key_id,) = [k for k, key in keys.items() if "receipts" in key["Properties"]["Description"]]
    assert keys[key_id]["Properties"]["KeyUsage"] == "GENERATE_VERIFY_MAC"
    for handler in ("decide", "resume_agent"):
        env = template_json["Resources"][_function_id(template_json, handler)]["Properties"]["Environment"]
        assert env["Variables"]["PO_RECEIPT_KEY_ID"] == {"Ref": key_id}
    assert _roles_granted(template_json, "kms:GenerateMac", key_id) == [_role_of(template_json, "decide")]


def test_the_audit_chain_is_maced_by_its_own_key_that_every_appender_may_sign_with(
    template_json: dict[str, Any],
) -> None:
    keys = _hmac_keys(template_json)
    (key_id,) = [k for k, key in keys.items() if "audit chain" in key["Properties"]["Description"]]
    assert keys[key_id]["Properties"]["KeyUsage"] == "GENERATE_VERIFY_MAC"
    appenders = (
        "run_agent",
        "request_approval",
        "decide",
        "resume_agent",
        "record_expiry",
        "send_outbox",
        "remind",
        "sign_operator_audit",
    )
    for handler in appenders:
        env = template_json["Resources"][_function_id(template_json, handler)]["Properties"]["Environment"]
        assert env["Variables"]["PO_AUDIT_KEY_ID"] == {"Ref": key_id}
    signers = _roles_granted(template_json, "kms:GenerateMac", key_id)
    assert sorted(map(json.dumps, signers)) == sorted(json.dumps(_role_of(template_json, h)) for h in appenders)


def test_bedrock_access_is_scoped_to_the_configured_model(template_json: dict[str, Any]) -> None:
    granted = [s for _, s in _statements(template_json) if any("bedrock:" in a for a in _as_list(s["Action"]))]
    assert len(granted) == 2, "run_agent and resume_agent only"
    base_model = DEFAULT_BEDROCK_MODEL_ID.split(".", 1)[1]
    for statement in granted:
        rendered = [json.dumps(r) for r in _as_list(statement["Resource"])]
        assert any(f"inference-profile/{DEFAULT_BEDROCK_MODEL_ID}" in r for r in rendered)
        assert all(DEFAULT_BEDROCK_MODEL_ID in r or f"foundation-model/{base_model}" in r for r in rendered)


def test_decision_asset_ships_no_strands(template_json: dict[str, Any]) -> None:
    assert not any(line.lower().startswith("strands") for line in requirement_lines(AGENT_ONLY_PACKAGES))
    assert any(line.lower().startswith("strands") for line in requirement_lines())
    code = {
        name: json.dumps(template_json["Resources"][_function_id(template_json, name)]["Properties"]["Code"])
        for name in ("decide", "run_agent")
    }
    assert code["decide"] != code["run_agent"], "the decision function has its own, smaller asset"


# --- operations -----------------------------------------------------------------------------------------


def test_alarms_cover_failures_refusals_and_pending_approvals(template_json: dict[str, Any]) -> None:
    alarms = resources_of_type(template_json, "AWS::CloudWatch::Alarm").values()
    described = " | ".join(a["Properties"]["AlarmDescription"] for a in alarms)
    for fact in ("execution failed", "refused", "oldest pending approval", "approval window passed"):
        assert fact in described
    assert all(a["Properties"]["AlarmActions"] for a in alarms)
    filters = resources_of_type(template_json, "AWS::Logs::MetricFilter").values()
    patterns = " ".join(f["Properties"]["FilterPattern"] for f in filters)
    assert STATE_RESUME_REFUSED in patterns and STATE_DECISION_EXPIRED in patterns
    Template.from_json(template_json).resource_count_is("AWS::CloudWatch::Dashboard", 1)


def test_cloudwatch_may_use_the_alarm_topic_key(template_json: dict[str, Any]) -> None:
    # CloudWatch cannot publish to a topic under the AWS-managed SNS key.
    alarm_actions = {
        json.dumps(a["Properties"]["AlarmActions"])
        for a in resources_of_type(template_json, "AWS::CloudWatch::Alarm").values()
    }
    ((topic_ref,),) = [json.loads(a) for a in alarm_actions]
    topic = template_json["Resources"][topic_ref["Ref"]]
    key = template_json["Resources"][topic["Properties"]["KmsMasterKeyId"]["Fn::GetAtt"][0]]
    assert key["Properties"]["EnableKeyRotation"] is True
    grants = [
        s
        for s in key["Properties"]["KeyPolicy"]["Statement"]
        if s["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    ]
    assert [sorted(_as_list(g["Action"])) for g in grants] == [["kms:Decrypt", "kms:GenerateDataKey"]]


def test_the_pending_age_alarm_is_fed_on_a_schedule(template_json: dict[str, Any]) -> None:
    publisher = _function_id(template_json, "report_pending_age")
    rules = resources_of_type(template_json, "AWS::Events::Rule").values()
    ((rule,),) = [[r for r in rules if r["Properties"]["Targets"][0]["Arn"] == {"Fn::GetAtt": [publisher, "Arn"]}]]
    assert rule["Properties"]["ScheduleExpression"] == "rate(5 minutes)"
    alarms = resources_of_type(template_json, "AWS::CloudWatch::Alarm").values()
    assert any(a["Properties"].get("MetricName") == METRIC_OLDEST_PENDING_APPROVAL_AGE for a in alarms)


def test_email_subscriptions_come_from_context(template: Template) -> None:
    template.has_resource_properties(
        "AWS::SNS::Subscription",
        {
            "Protocol": "email",
            "Endpoint": "approver@example.com",
            # Each approver receives only the message holding their own link.
            "FilterPolicy": {APPROVER_ATTRIBUTE: ["approver@example.com"]},
        },
    )
    template.has_resource_properties("AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "ops@example.com"})


# --- configuration --------------------------------------------------------------------------------------


def test_the_default_model_is_the_runtime_default() -> None:
    from production_orchestrator.agent.providers import DEFAULT_MODELS

    assert DEFAULT_MODELS["bedrock"] == DEFAULT_BEDROCK_MODEL_ID


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("provider", "ollama"),
        ("approvalWindow", "forever"),
        ("approverEmails", "not-an-address"),
        ("linkBaseUrl", "http://plain.example.com"),
        ("scenario", "unknown"),
        ("architecture", "sparc"),
        ("separationOfDuties", "maybe"),
    ],
)
def test_invalid_context_is_refused_at_synth(key: str, value: str) -> None:
    with pytest.raises(ConfigurationError):
        Settings.parse({**DEFAULTS, key: value})


def test_the_deterministic_provider_gets_no_bedrock_access() -> None:
    template_json = synthesize({"provider": "deterministic", "modelId": "scripted-planner-v1"})
    for _, statement in _statements(template_json):
        assert not any("bedrock:" in a for a in _as_list(statement["Action"]))


def test_only_the_start_function_may_read_request_objects_and_only_under_their_prefix(
    template_json: dict[str, Any],
) -> None:
    run_role = template_json["Resources"][_function_id(template_json, "run_agent")]["Properties"]["Role"]
    readers = []
    for logical_id, statement in _statements(template_json):
        resources = json.dumps(statement.get("Resource"))
        if "requests/" in resources:
            assert _as_list(statement["Action"]) == ["s3:GetObject"]
            assert "requests/*" in resources and "sessions/" not in resources
            readers.append(template_json["Resources"][logical_id]["Properties"]["Roles"])
    assert readers == [[{"Ref": run_role["Fn::GetAtt"][0]}]]


def test_every_lambda_task_retries_a_throttle_for_minutes_then_fails_naming_it(definition: dict[str, Any]) -> None:
    """New accounts run 10 concurrent executions: a throttle is retried with backoff for minutes, not ~30 s."""
    tasks_ = [s for s in definition["States"].values() if s.get("Type") == "Task" and "lambda:invoke" in s["Resource"]]
    assert tasks_
    for state in tasks_:
        (throttle,) = [r for r in state.get("Retry", []) if r["ErrorEquals"] == ["Lambda.TooManyRequestsException"]]
        waits, delay = 0.0, float(throttle["IntervalSeconds"])
        for _ in range(throttle["MaxAttempts"]):
            waits += min(delay, throttle.get("MaxDelaySeconds", delay))
            delay *= throttle["BackoffRate"]
        assert waits >= 300, (state, waits)
        assert throttle["JitterStrategy"] == "FULL"
        # Not caught into an outcome: after the retries the execution fails with the error's own name.
        assert not any("Lambda.TooManyRequestsException" in c["ErrorEquals"] for c in state.get("Catch", []))


def test_every_way_a_run_ends_is_documented_with_its_status() -> None:
    """The deploy guide's outcome table lists each terminal state of the workflow (every option on) with the
    execution status it ends in: Succeed states and the expiry's last task SUCCEEDED, Fail states FAILED."""
    import re
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "deploy.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Reading an execution's outcome") :]
    section = section[: section.index("\n## ", 4)]
    documented = dict(re.findall(r"^\| `(\w+)` \| (SUCCEEDED|FAILED) \|", section, re.M))
    everything = synthesize(
        {
            "approverEmails": "a@example.com,b@example.com",
            "inboundAddress": "orders@shop.example",
            "senderEmail": "orders@shop.example",
        }
    )
    states = state_machine_definition(everything, placeholder)["States"]
    ending = {
        name: "FAILED" if state["Type"] == "Fail" else "SUCCEEDED"
        for name, state in states.items()
        if state["Type"] in ("Succeed", "Fail") or state.get("End")
    }
    assert documented == ending
