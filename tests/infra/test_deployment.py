"""What a first real deployment depends on, read from the synthesized template (bundling skipped):
each role's exact permissions, alarms that can fire, the crash retry of the resume, limits and outputs.

To change what a role may do: change infra/permissions.py and EXPECTED_ACTIONS below together; the e2e
workflow test (tests/e2e/test_workflow.py) checks every call the handlers really make against the roles.
"""

from __future__ import annotations

import json
import tarfile
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import aws_cdk
import pytest

from infra.constructs.approval_workflow import RESUME_CRASH_ERRORS, VENDED_LOGS_PREFIX
from infra.permissions import OPEN_RUNS_ACCESS, TABLE_ACCESS
from infra.settings import DEFAULTS, EXECUTION_GRACE_SECONDS, MAX_EXECUTION_SECONDS, Settings
from production_orchestrator.adapters.aws.table_schema import OPEN_RUNS_INDEX
from production_orchestrator.domain.approval.claims import DEFAULT_LEASE
from production_orchestrator.domain.errors import ConfigurationError
from tests.support.cdk_template import (
    function_ids,
    placeholder,
    resources_of_type,
    role_statements,
    state_machine_definition,
    synthesize,
)
from tests.support.iam_calls import denied

ROOT = Path(__file__).resolve().parents[2]
# With an inbound address, so the e-mail intake's function and role are in the template too.
CONTEXT = {
    "approvalWindow": "2h",
    "approverEmails": "a@example.com,b@example.com",
    "inboundAddress": "orders@shop.example",
    "senderEmail": "orders@shop.example",
}
LOGS = {"logs:CreateLogStream", "logs:PutLogEvents"}
XRAY = {"xray:PutTelemetryRecords", "xray:PutTraceSegments"}
BASE = LOGS | XRAY
AUDIT_MAC = {"kms:GenerateMac"}  # every function that appends an audit event MACs its link (the audit key)
# Every action each function's role holds (handler module -> actions). Update with infra/permissions.py.
EXPECTED_ACTIONS = {
    "run_agent": BASE
    | AUDIT_MAC
    # BatchGetItem: PlanRevisedVersion reads the revised version's checkpoint (a read; no new write)
    | {"dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"}
    | {"s3:GetObject", "s3:PutObject"}
    | {"bedrock:InvokeModelWithResponseStream"}
    | {"sns:Publish", "kms:GenerateDataKey", "kms:Decrypt"},  # the operator's alert (tests/infra/test_deploy_day.py)
    "request_approval": BASE
    | AUDIT_MAC
    | {"dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"}
    | {"sns:Publish"},
    "decide": BASE
    | {"dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"}
    | {"kms:GenerateMac", "states:SendTaskSuccess"},
    "resume_agent": BASE
    | AUDIT_MAC
    | {"dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "kms:VerifyMac"}
    | {"s3:GetObject", "s3:PutObject", "s3:ListBucket"}
    | {"bedrock:InvokeModelWithResponseStream"},
    "record_expiry": BASE
    | AUDIT_MAC
    | {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:PutItem"},
    "report_pending_age": BASE | {"dynamodb:GetItem", "dynamodb:Query"},
    # tests/infra/test_outbox_sender.py checks the SES grant's resources and condition
    "send_outbox": BASE | AUDIT_MAC | {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "ses:SendEmail"},
    "submit": BASE | {"dynamodb:PutItem", "states:StartExecution"},
    # a retried SES delivery reads the submission it wrote (tests/infra/test_inbound_mail.py: the resources)
    "receive_email": BASE
    | {"dynamodb:PutItem", "dynamodb:GetItem", "s3:GetObject", "states:StartExecution"}
    # its on-failure destination (Lambda sends a failed event with the function's role; CDK's queue grant)
    | {"sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"},
}
TABLE_WRITES = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}


# Every non-default value these tests need, in one synthesis (each costs seconds).
CUSTOM = {
    **CONTEXT,
    "decideReservedConcurrency": "3",
    "decisionLease": "3s",
    "approvalWindow": "364d",
    "maxVersions": "1",  # the longest window leaves no room for a second version in one execution
    "quorum": "2",
    "quorumAboveQuantity": "500",
}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(CONTEXT)


@pytest.fixture(scope="module")
def custom() -> dict[str, Any]:
    return synthesize(CUSTOM)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


# --- least privilege --------------------------------------------------------------------------------------


@pytest.mark.parametrize("module", sorted(EXPECTED_ACTIONS))
def test_each_role_holds_exactly_the_actions_its_handler_calls(template: dict[str, Any], module: str) -> None:
    granted = {action for s in role_statements(template, module) for action in _as_list(s["Action"])}
    assert granted == EXPECTED_ACTIONS[module]
    assert all(s["Effect"] == "Allow" for s in role_statements(template, module))


@pytest.mark.parametrize("module", sorted(TABLE_ACCESS))
def test_table_actions_are_scoped_to_the_partitions_the_handler_touches(template: dict[str, Any], module: str) -> None:
    scoped: dict[str, set[str]] = {}
    indexed: set[str] = set()
    for statement in role_statements(template, module):
        actions = [a for a in _as_list(statement["Action"]) if a.startswith("dynamodb:")]
        if not actions:
            continue
        patterns = statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
        resource = statement["Resource"]
        if "Fn::Join" in resource:  # the open-runs index (<table arn>/index/<name>): Query only, no stream
            (table_arn, suffix) = resource["Fn::Join"][1]
            assert table_arn["Fn::GetAtt"][1] == "Arn" and suffix == f"/index/{OPEN_RUNS_INDEX}"
            assert actions == ["dynamodb:Query"]
            indexed.update(_as_list(patterns))
            continue
        assert resource["Fn::GetAtt"][1] == "Arn", "the table itself, no other index, no stream"
        for action in actions:
            scoped.setdefault(action, set()).update(_as_list(patterns))
    assert scoped == {action: set(patterns) for action, patterns in TABLE_ACCESS[module].items()}
    assert indexed == set(OPEN_RUNS_ACCESS.get(module, ()))


def test_the_pending_age_reporter_only_reads(template: dict[str, Any]) -> None:
    granted = {a for s in role_statements(template, "report_pending_age") for a in _as_list(s["Action"])}
    assert not granted & TABLE_WRITES
    assert not any(a.startswith(("sns:", "states:", "kms:", "s3:")) for a in granted)


def test_the_public_decision_role_cannot_create_approvals_proposals_or_snapshots(template: dict[str, Any]) -> None:
    for statement in role_statements(template, "decide"):
        actions = set(_as_list(statement["Action"]))
        if actions & {"dynamodb:PutItem"}:
            assert statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] == ["AUDIT"]
        if actions & {"dynamodb:UpdateItem"}:
            assert statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] == ["APPROVAL#*"]


def test_the_public_decision_role_cannot_write_the_shop(template: dict[str, Any]) -> None:
    """IAM scopes a write by partition only, and each item type has its own: decide may write its vote
    (APPROVAL#) and the audit chain (AUDIT), and no partition holding the shop's state, checkpoints, decisions,
    applications, outbox, approval pointers, proposals or requests (every role: tests/infra/test_item_ownership.py)."""
    writes: set[str] = set()
    for statement in role_statements(template, "decide"):
        actions = {a for a in _as_list(statement["Action"]) if a.startswith("dynamodb:")}
        if actions & TABLE_WRITES or any(a.startswith("dynamodb:") and "*" in a for a in actions):
            assert set(statement["Condition"]) == {"ForAllValues:StringLike"}, "every write scoped by partition"
            writes.update(_as_list(statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]))
    assert writes == {"AUDIT", "APPROVAL#*"}
    others = ("STATE", "CHECKPOINT", "DECISION", "APPLICATION", "OUTBOX", "APPROVAL_OF", "HELD", "SHOP")
    for partition in (*others, "PROPOSAL#p", "SNAPSHOT#d", "SUBMISSION#e", "RUNREQ#r", "state", "AUDIT#x"):
        assert not any(fnmatchcase(partition, pattern) for pattern in writes), partition


@pytest.mark.parametrize(
    ("call", "granted"),
    [
        (("dynamodb", "UpdateItem", ["APPROVAL#a1"]), True),  # its vote
        (("dynamodb", "TransactWriteItems", ["Put:AUDIT", "Put:AUDIT"]), True),  # the vote's audit event + head
        (("dynamodb", "TransactWriteItems", ["Put:STATE"]), False),  # the shop's state
        (("dynamodb", "PutItem", ["DECISION"]), False),  # a decision claim
        (("dynamodb", "TransactWriteItems", ["Put:AUDIT", "Put:OUTBOX"]), False),  # a message with its event
        (("dynamodb", "UpdateItem", ["STATE"]), False),
        (("dynamodb", "DeleteItem", ["AUDIT"]), False),
        (("dynamodb", "PutItem", ["PROPOSAL#p"]), False),
        (("dynamodb", "PutItem", ["APPROVAL#a1"]), False),  # a new approval
    ],
)
def test_the_decision_role_evaluated_on_the_writes_a_compromised_decide_would_try(
    template: dict[str, Any], call: tuple[str, str, list[str]], granted: bool
) -> None:
    """The role as IAM evaluates it (tests/support/iam_calls.py, the evaluator the e2e workflow runs every
    recorded call through), on the requests a compromised decision function could send."""
    assert (denied(role_statements(template, "decide"), [call]) == []) is granted


def test_no_role_may_report_a_task_failure_or_verify_on_the_decision_side(template: dict[str, Any]) -> None:
    everything = [a for m in EXPECTED_ACTIONS for s in role_statements(template, m) for a in _as_list(s["Action"])]
    assert "states:SendTaskFailure" not in everything
    decide = {a for s in role_statements(template, "decide") for a in _as_list(s["Action"])}
    assert "kms:VerifyMac" not in decide


def test_the_model_grant_matches_how_the_agent_calls_the_model() -> None:
    from production_orchestrator.agent.providers import ModelSettings

    # Streaming Converse is authorized as InvokeModelWithResponseStream (infra/permissions.py).
    assert ModelSettings().streaming is True


# --- the decision endpoint --------------------------------------------------------------------------------


def test_no_concurrency_is_reserved_by_default_so_a_new_account_can_deploy(
    template: dict[str, Any], custom: dict[str, Any]
) -> None:
    # Lambda keeps 100 unreserved: reserving any needs a quota above 100, and new accounts often have 10.
    functions = resources_of_type(template, "AWS::Lambda::Function")
    reserved = {
        fn["Properties"]["Handler"].split(".")[-2]: fn["Properties"].get("ReservedConcurrentExecutions")
        for fn in functions.values()
    }
    assert DEFAULTS["decideReservedConcurrency"] == "none"
    assert set(reserved.values()) == {None}
    # An account with the quota may cap the public endpoint, and only it.
    decide = custom["Resources"][function_ids(custom)["decide"]]
    assert decide["Properties"]["ReservedConcurrentExecutions"] == 3
    capped = {
        fn["Properties"]["Handler"].split(".")[-2]
        for fn in resources_of_type(custom, "AWS::Lambda::Function").values()
        if fn["Properties"].get("ReservedConcurrentExecutions") is not None
    }
    assert capped == {"decide"}


@pytest.mark.parametrize("value", ["0", "-1", "ten", "1001", "2.5"])
def test_an_unusable_reserved_concurrency_is_refused_at_synth(value: str) -> None:
    with pytest.raises(ConfigurationError):
        Settings.parse({**DEFAULTS, "decideReservedConcurrency": value})


# --- alarms -------------------------------------------------------------------------------------------------


def _alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        logical_id.removeprefix("Operations")[:-8]: alarm["Properties"]
        for logical_id, alarm in resources_of_type(template, "AWS::CloudWatch::Alarm").items()
    }


def test_every_alarm_has_the_expected_signal_threshold_and_missing_data_rule(template: dict[str, Any]) -> None:
    alarms = _alarms(template)
    expected_metrics = {
        "RefusedResumes": ("ProductionOrchestrator", "WorkflowResumeRefused", "Sum", 1),
        "ExpiredApprovals": ("ProductionOrchestrator", "WorkflowDecisionExpired", "Sum", 1),
        "UndeliveredMessages": ("ProductionOrchestrator", "WorkflowMessagesNotSent", "Sum", 1),
        "OldestPendingApprovalAge": ("ProductionOrchestrator", "OldestPendingApprovalAgeSeconds", "Maximum", 5760),
        "DecideThrottles": ("AWS/Lambda", "Throttles", "Sum", 1),
        "FailedEmailDeliveries": ("AWS/SQS", "ApproximateNumberOfMessagesVisible", "Maximum", 1),
        **{f"{name}Errors": ("AWS/Lambda", "Errors", "Sum", 1) for name in _FUNCTION_NAMES},
    }
    assert set(alarms) == {"FailedExecutions", *expected_metrics}
    for name, (namespace, metric, statistic, threshold) in expected_metrics.items():
        alarm = alarms[name]
        assert (alarm["Namespace"], alarm["MetricName"], alarm["Statistic"]) == (namespace, metric, statistic), name
        assert alarm["Threshold"] == threshold, name
    for alarm in alarms.values():
        assert alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
        assert alarm["TreatMissingData"] == "notBreaching"
        assert alarm["EvaluationPeriods"] == 1
        assert alarm["AlarmActions"], "every alarm notifies the alarm topic"


# Every function alarms on its errors but the sender (retried by its state; UndeliveredMessages covers it).
_FUNCTION_NAMES = (
    "RunAgent",
    "RequestApproval",
    "Decide",
    "ResumeAgent",
    "RecordExpiry",
    "ReportPendingAge",
    "Submit",
    "ReceiveEmail",
    "Remind",
    "ReceiptRuleSet",
    "OperatorAudit",
)


def test_failed_executions_fill_missing_series_with_zero(template: dict[str, Any]) -> None:
    """Step Functions publishes ExecutionsFailed/TimedOut/Aborted only when non-zero; without FILL the sum has
    no point unless all three do, and a single failure would never alarm."""
    failed = _alarms(template)["FailedExecutions"]
    (expression,) = [m for m in failed["Metrics"] if "Expression" in m]
    assert expression["Expression"] == "FILL(failed, 0) + FILL(timedOut, 0) + FILL(aborted, 0)"
    assert expression["ReturnData"] is True
    inputs = {m["Id"]: m["MetricStat"] for m in failed["Metrics"] if "MetricStat" in m}
    assert {i: s["Metric"]["MetricName"] for i, s in inputs.items()} == {
        "failed": "ExecutionsFailed",
        "timedOut": "ExecutionsTimedOut",
        "aborted": "ExecutionsAborted",
    }
    assert all(s["Stat"] == "Sum" and s["Metric"]["Namespace"] == "AWS/States" for s in inputs.values())
    assert all(m.get("ReturnData") is False for m in failed["Metrics"] if "MetricStat" in m)


def test_the_fill_expression_alarms_on_a_lone_failure() -> None:
    """The expression evaluated as CloudWatch does: a series without a point in the period is missing."""

    def evaluate(points: dict[str, float | None], fill: bool) -> float | None:
        values = [points.get(k) for k in ("failed", "timedOut", "aborted")]
        if fill:
            return sum(v or 0 for v in values)
        return None if any(v is None for v in values) else sum(v for v in values if v is not None)

    lone_failure = {"failed": 1.0}
    assert evaluate(lone_failure, fill=False) is None  # the old expression: no point, no alarm
    assert evaluate(lone_failure, fill=True) == 1.0


# --- the workflow -------------------------------------------------------------------------------------------


def test_the_workflow_logs_to_a_vended_logs_group(template: dict[str, Any]) -> None:
    (machine,) = resources_of_type(template, "AWS::StepFunctions::StateMachine").values()
    destination = machine["Properties"]["LoggingConfiguration"]["Destinations"][0]
    group_id = destination["CloudWatchLogsLogGroup"]["LogGroupArn"]["Fn::GetAtt"][0]
    name = template["Resources"][group_id]["Properties"]["LogGroupName"]
    assert name.startswith(VENDED_LOGS_PREFIX) and name == "/aws/vendedlogs/states/ProductionOrchestrator-Workflow"


def test_a_crashed_resume_is_retried_after_the_decision_lease(template: dict[str, Any], custom: dict[str, Any]) -> None:
    resume = state_machine_definition(template, placeholder)["States"]["ResumeVerifiedDecision"]
    (crash,) = [r for r in resume["Retry"] if "Runtime.ExitError" in r["ErrorEquals"]]
    assert set(crash["ErrorEquals"]) == set(RESUME_CRASH_ERRORS)
    assert "ResumeRefusedError" not in crash["ErrorEquals"], "a refusal is a verdict, never retried"
    assert crash["IntervalSeconds"] > DEFAULT_LEASE.total_seconds()
    assert crash["MaxAttempts"] >= 1
    env = template["Resources"][function_ids(template)["resume_agent"]]["Properties"]["Environment"]["Variables"]
    assert env["PO_DECISION_LEASE"] == DEFAULTS["decisionLease"] == "10m"
    (crash,) = [
        r
        for r in state_machine_definition(custom, placeholder)["States"]["ResumeVerifiedDecision"]["Retry"]
        if "Runtime.ExitError" in r["ErrorEquals"]
    ]
    assert crash["IntervalSeconds"] > 3


def test_a_lease_whose_retries_do_not_fit_the_grace_is_refused() -> None:
    from infra.application import build_app

    with pytest.raises(ConfigurationError, match="decisionLease"):
        build_app(context={"aws:cdk:bundling-stacks": [], "decisionLease": "2h"}).synth()


def test_the_execution_timeout_stays_within_a_year(custom: dict[str, Any]) -> None:
    definition = state_machine_definition(custom, placeholder)
    assert definition["TimeoutSeconds"] == 364 * 86400 + EXECUTION_GRACE_SECONDS <= MAX_EXECUTION_SECONDS
    with pytest.raises(ConfigurationError, match="one year"):
        Settings.parse({**DEFAULTS, "approvalWindow": "365d", "maxVersions": "1"})


# --- outputs, context keys, toolchain ------------------------------------------------------------------------


def test_the_outputs_name_what_an_operator_needs(template: dict[str, Any]) -> None:
    assert set(template["Outputs"]) == {
        "StateMachineArn",
        "ApprovalTopicArn",
        "AlarmTopicArn",
        "TableName",
        "SessionBucketName",
        "DashboardName",
        "DecisionUrl",
        "SubmitUrl",
        "SubmitFunctionArn",  # the resource of the submitters' invoke permission (deploy guide, step 7)
        "OperatorFunctionName",  # MACs the operator's --table shop writes (deploy guide, step 6)
        "OperatorFunctionArn",  # the resource of the operators' invoke permission (step 6)
        "TableArn",  # the resource of the operators' DescribeTable / ListTagsOfResource (step 6)
        "AuditKeyArn",  # audit verify --audit-key, and the operators' kms:VerifyMac (step 6)
        "ReceiptKeyArn",  # audit verify --receipt-key, and the same
        "FailedDeliveriesQueueUrl",  # with an inbound address: received e-mails that started no run
    }
    machine = next(iter(resources_of_type(template, "AWS::StepFunctions::StateMachine")))
    assert template["Outputs"]["StateMachineArn"]["Value"] == {"Ref": machine}


def test_quorum_context_keys_reach_the_approval_request(template: dict[str, Any], custom: dict[str, Any]) -> None:
    env = custom["Resources"][function_ids(custom)["request_approval"]]["Properties"]["Environment"]["Variables"]
    assert (env["PO_QUORUM"], env["PO_QUORUM_ABOVE_QUANTITY"]) == ("2", "500")
    env = template["Resources"][function_ids(template)["request_approval"]]["Properties"]["Environment"]["Variables"]
    assert (env["PO_QUORUM"], env["PO_QUORUM_ABOVE_QUANTITY"]) == ("2", "")


@pytest.mark.parametrize(
    ("key", "value"), [("quorum", "0"), ("quorum", "21"), ("quorum", "two"), ("quorumAboveQuantity", "-5")]
)
def test_invalid_quorum_settings_are_refused(key: str, value: str) -> None:
    with pytest.raises(ConfigurationError):
        Settings.parse({**DEFAULTS, key: value})


def test_a_quorum_the_approvers_cannot_reach_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="never be reached"):
        Settings.parse({**DEFAULTS, "approverEmails": "a@example.com", "quorum": 2, "quorumAboveQuantity": 10})


def test_cdk_json_sets_the_installed_cdk_libs_recommended_feature_flags() -> None:
    """The flags `cdk init` writes for this aws-cdk-lib (from its jsii assembly), so an upgrade shows here."""
    tarball = next((Path(aws_cdk.__file__).parent / "_jsii").glob("aws-cdk-lib@*.jsii.tgz"))
    with tarfile.open(tarball) as archive:
        member = archive.extractfile("package/recommended-feature-flags.json")
        assert member is not None
        recommended = json.load(member)
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    assert recommended and {k: context.get(k) for k in recommended} == recommended


def test_the_cdk_cli_runs_on_a_supported_node_lts() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    major = int(package["devDependencies"]["node"].split(".")[0].lstrip("^~"))
    assert major >= 22 and major % 2 == 0, "an even (LTS) release line that is still supported"
