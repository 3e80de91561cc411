"""One Lambda per handler, each with its own role granting what its handler calls (infra/permissions.py),
JSON logs with retention, and X-Ray active tracing (the Lambda service's segments; no tracing SDK ships).

Architecture: arm64 by default, on purpose: the workload is Python waiting on Bedrock and DynamoDB, every
dependency ships aarch64 wheels, and Graviton costs about 20% less per GB-second than x86_64.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from constructs import Construct

from production_orchestrator.domain.errors import ConfigurationError

from ..bundling import AGENT_LOCK, CORE_LOCK, lambda_code
from ..constants import (
    DECIDE_HANDLER,
    ENV_APPROVAL_WINDOW,
    ENV_APPROVERS,
    ENV_AUDIT_KEY_ID,
    ENV_DECISION_LEASE,
    ENV_LINK_BASE_URL,
    ENV_MAX_VERSIONS,
    ENV_METRICS_NAMESPACE,
    ENV_MODEL_ENDPOINT,
    ENV_MODEL_ID,
    ENV_MODEL_PROFILE,
    ENV_MODEL_REGION,
    ENV_PROVIDER,
    ENV_QUORUM,
    ENV_QUORUM_ABOVE_QUANTITY,
    ENV_RECEIPT_KEY_ID,
    ENV_SCENARIO,
    ENV_SEPARATION_OF_DUTIES,
    ENV_SERVICE_NAME,
    ENV_SESSION_BUCKET,
    ENV_SESSION_PREFIX,
    ENV_TABLE_NAME,
    ENV_TOPIC_ARN,
    RECORD_EXPIRY_HANDLER,
    REPORT_PENDING_AGE_HANDLER,
    REQUEST_APPROVAL_HANDLER,
    RESUME_AGENT_HANDLER,
    RUN_AGENT_HANDLER,
)
from ..nag import acknowledge
from ..permissions import (
    AUDIT_KEY_ACTIONS,
    MODEL_ACTIONS,
    MODEL_USERS,
    OPEN_RUNS_ACCESS,
    PUBLISHERS,
    RECEIPT_KEY_ACTIONS,
    SESSION_ACCESS,
    TABLE_ACCESS,
)
from ..settings import MODEL_ARN, Settings
from .state_store import KEEP, StateStore

SERVICE_NAME = "production-orchestrator"
RETENTION = {
    1: logs.RetentionDays.ONE_DAY,
    3: logs.RetentionDays.THREE_DAYS,
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    90: logs.RetentionDays.THREE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
}
# Cross-region inference profile ids start with a geography; the profile routes to the base model in
# any region of that geography, so the foundation-model grant cannot name one region.
INFERENCE_PROFILE_PREFIXES = ("us.", "eu.", "apac.", "jp.", "au.", "ca.", "global.", "us-gov.")


# What the account may do with an HMAC key without being named in its policy: administer it and verify MACs.
# Not GenerateMac, and not CreateGrant (a grant could hand GenerateMac to anyone).
KEY_ADMIN_ACTIONS = (
    "kms:CancelKeyDeletion",
    "kms:CreateAlias",
    "kms:DeleteAlias",
    "kms:DescribeKey",
    "kms:DisableKey",
    "kms:EnableKey",
    "kms:GetKeyPolicy",
    "kms:GetKeyRotationStatus",
    "kms:ListGrants",
    "kms:ListKeyPolicies",
    "kms:ListResourceTags",
    "kms:PutKeyPolicy",
    "kms:RetireGrant",
    "kms:RevokeGrant",
    "kms:ScheduleKeyDeletion",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:UpdateAlias",
    "kms:UpdateKeyDescription",
    "kms:VerifyMac",
)
# Strands retries a throttled model call 6 times, waiting 4, 8, 16, 32 and 64 s (124 s), and a slow answer
# takes up to 2 minutes: one model call may need ~244 s. A run makes several calls, so it gets Lambda's
# maximum; the workflow retries a run that still times out once (RUN_AGENT_TIMEOUT_RETRIES). A resume makes
# one or two calls after the decision, and must stay shorter than the decision lease (10 minutes) so that a
# running resume is never taken over.
RUN_AGENT_TIMEOUT_SECONDS = 900
RESUME_AGENT_TIMEOUT_SECONDS = 540
AGENT_TIMEOUT_SECONDS = RESUME_AGENT_TIMEOUT_SECONDS  # the resume's: what the decision lease must outlast


def retention(days: int) -> logs.RetentionDays:
    """The CloudWatch retention for ``days`` (one of :data:`RETENTION`)."""
    try:
        return RETENTION[days]
    except KeyError:
        raise ValueError(f"logRetentionDays must be one of {sorted(RETENTION)}") from None


@dataclass(frozen=True)
class _Spec:
    construct_id: str
    handler: str
    description: str
    memory_mb: int
    timeout: Duration
    agent: bool  # runs the Strands agent: ships strands and may call the model

    @property
    def module(self) -> str:
        """The handler module's name (the key of its permissions)."""
        return self.handler.split(".")[-2]


class AgentFunctions(Construct):
    """run_agent, request_approval, decide, resume_agent, record_expiry and the scheduled report_pending_age."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: Settings,
        store: StateStore,
        topic: sns.ITopic,
    ) -> None:
        super().__init__(scope, construct_id)
        self._settings = settings
        self.by_module: dict[str, lambda_.Function] = {}  # handler module name -> its function
        self.architecture = (
            lambda_.Architecture.ARM_64 if settings.architecture == "arm64" else lambda_.Architecture.X86_64
        )
        # Two assets: the agent functions' (with strands) and the smaller one of every other function.
        self._codes = {
            True: lambda_code(settings.architecture, AGENT_LOCK),
            False: lambda_code(settings.architecture, CORE_LOCK),
        }
        binding = settings.binding
        # Decision receipts are MACed in KMS: the key material never leaves it, and only the decision
        # function may create a MAC, so a receipt cannot be forged by any other role.
        self.receipt_key = self._hmac_key(
            "ReceiptKey",
            "MACs decision receipts",
            "receipts name the key id they were MACed with, so a manually rotated key still verifies old "
            "receipts while it is kept.",
        )
        # The audit chain's links are MACed with a key of their own: every function that appends an audit event
        # may MAC with it, none of them but the decision function with the receipt key.
        self.audit_key = self._hmac_key(
            "AuditKey",
            "MACs the links of the audit chain",
            "a rotated key would leave the chain unverifiable before the rotation point, so it is kept for the "
            "life of the table.",
        )
        self.environment = {
            ENV_TABLE_NAME: store.table.table_name,
            ENV_SESSION_BUCKET: store.session_bucket.bucket_name,
            ENV_SESSION_PREFIX: store.session_prefix,
            ENV_TOPIC_ARN: topic.topic_arn,
            ENV_PROVIDER: binding.provider,
            ENV_MODEL_ID: binding.model_id,
            ENV_MODEL_REGION: binding.region,
            ENV_MODEL_PROFILE: "",  # Lambda uses its role, never a named profile
            ENV_MODEL_ENDPOINT: "",
            ENV_APPROVAL_WINDOW: settings.approval_window,
            ENV_APPROVERS: ",".join(settings.approver_emails),
            ENV_SCENARIO: settings.scenario,
            ENV_SEPARATION_OF_DUTIES: "true" if settings.separation_of_duties else "false",
            ENV_QUORUM: str(settings.quorum),
            ENV_MAX_VERSIONS: str(settings.max_versions),
            ENV_QUORUM_ABOVE_QUANTITY: ""
            if settings.quorum_above_quantity is None
            else str(settings.quorum_above_quantity),
            ENV_DECISION_LEASE: settings.decision_lease,
            ENV_RECEIPT_KEY_ID: self.receipt_key.key_id,
            ENV_AUDIT_KEY_ID: self.audit_key.key_id,
            ENV_SERVICE_NAME: SERVICE_NAME,
            ENV_METRICS_NAMESPACE: settings.metrics_namespace,
        }
        if settings.link_base_url:
            self.environment[ENV_LINK_BASE_URL] = settings.link_base_url
        self.agent_timeout_seconds = RESUME_AGENT_TIMEOUT_SECONDS
        self.run_timeout_seconds = RUN_AGENT_TIMEOUT_SECONDS
        self.run_agent = self._function(
            _Spec(
                "RunAgent",
                RUN_AGENT_HANDLER,
                "runs the agent until it asks for approval",
                1024,
                Duration.seconds(RUN_AGENT_TIMEOUT_SECONDS),
                True,
            ),
        )
        self.request_approval = self._function(
            _Spec(
                "RequestApproval",
                REQUEST_APPROVAL_HANDLER,
                "stores the task token and e-mails the approval link",
                512,
                Duration.seconds(30),
                False,
            ),
        )
        self.decide = self._function(
            _Spec(
                "Decide",
                DECIDE_HANDLER,
                "serves the approval page and records the decision",
                256,
                Duration.seconds(15),
                False,
            ),
        )
        self.resume_agent = self._function(
            _Spec(
                "ResumeAgent",
                RESUME_AGENT_HANDLER,
                "verifies the decision, then resumes the agent",
                1024,
                Duration.seconds(RESUME_AGENT_TIMEOUT_SECONDS),
                True,
            ),
        )
        self.record_expiry = self._function(
            _Spec(
                "RecordExpiry",
                RECORD_EXPIRY_HANDLER,
                "marks an approval expired (never approves)",
                512,
                Duration.seconds(30),
                False,
            ),
        )
        # Runs on a schedule (operations); reads approvals, imports no strands.
        self.report_pending_age = self._function(
            _Spec(
                "ReportPendingAge",
                REPORT_PENDING_AGE_HANDLER,
                "publishes how long the oldest pending approval has waited",
                256,
                Duration.seconds(60),
                False,
            ),
        )
        for module, fn in self.by_module.items():
            store.grant_table(fn, TABLE_ACCESS[module])
            if module in OPEN_RUNS_ACCESS:
                store.grant_open_runs(fn, OPEN_RUNS_ACCESS[module])
            if module in SESSION_ACCESS:
                store.grant_sessions(fn, SESSION_ACCESS[module])
            if module in MODEL_USERS:
                self._grant_model(fn)
            if module in RECEIPT_KEY_ACTIONS:
                self.grant_key(self.receipt_key, fn, RECEIPT_KEY_ACTIONS[module])
            if module in AUDIT_KEY_ACTIONS:
                self.grant_key(self.audit_key, fn, AUDIT_KEY_ACTIONS[module])
            for action in PUBLISHERS.get(module, ()):
                fn.add_to_role_policy(iam.PolicyStatement(actions=[action], resources=[topic.topic_arn]))
        # Customer e-mails too large for the execution input are read from the request prefix.
        store.grant_requests(self.run_agent)

    @property
    def all(self) -> tuple[lambda_.Function, ...]:
        """Every function, in the order they were added (the workflow's first; then the sender, the submit
        entry and the e-mail intake, where the stack has them)."""
        return tuple(self.by_module.values())

    def _hmac_key(self, construct_id: str, purpose: str, rotation: str) -> kms.Key:
        """An HMAC_SHA_256 KMS key (kept when the stack is deleted: what it MACed must stay verifiable).

        Its policy does not delegate to IAM (no ``root: kms:*``): the account may administer the key and verify
        MACs (a yes/no that mints nothing: the operator's audit verify --table), but only the roles named by
        :meth:`grant_key` may generate a MAC, so no administrator's identity policy can mint a receipt or an
        audit link. The account keeps ``PutKeyPolicy`` (KMS refuses a policy that locks it out); changing the
        policy is a CloudTrail event.
        """
        account = iam.AccountRootPrincipal()
        policy = iam.PolicyDocument(
            statements=[
                iam.PolicyStatement(
                    sid="AccountAdministersAndVerifies",
                    principals=[account],
                    actions=list(KEY_ADMIN_ACTIONS),
                    resources=["*"],  # in a key policy, "*" is this key
                )
            ]
        )
        key = kms.Key(
            self,
            construct_id,
            description=f"production orchestrator: {purpose} (HMAC_SHA_256)",
            key_spec=kms.KeySpec.HMAC_256,
            key_usage=kms.KeyUsage.GENERATE_VERIFY_MAC,
            removal_policy=KEEP,
            policy=policy,
        )
        acknowledge(key, "AwsSolutions-KMS5", f"HMAC keys cannot have automatic rotation in KMS; {rotation}")
        return key

    @staticmethod
    def grant_key(key: kms.Key, fn: lambda_.IFunction, actions: tuple[str, ...]) -> None:
        """``actions`` on ``key`` for ``fn``'s role, in the key policy (which does not delegate to IAM) and, to be
        read beside the role's other permissions, in its identity policy too."""
        role = fn.role
        assert role is not None
        key.add_to_resource_policy(
            iam.PolicyStatement(principals=[iam.ArnPrincipal(role.role_arn)], actions=list(actions), resources=["*"])
        )
        fn.add_to_role_policy(iam.PolicyStatement(actions=list(actions), resources=[key.key_arn]))

    def add_strands_free(
        self, construct_id: str, handler: str, description: str, timeout: Duration
    ) -> lambda_.Function:
        """One more function built like these (own role and log group, the shared environment) from the
        strands-free asset; it gets no grant here: the caller grants exactly what it uses."""
        return self._function(_Spec(construct_id, handler, description, 256, timeout, False))

    def _function(self, spec: _Spec) -> lambda_.Function:
        log_group = logs.LogGroup(
            self,
            f"{spec.construct_id}Logs",
            retention=retention(self._settings.log_retention_days),
            removal_policy=RemovalPolicy.DESTROY,
        )
        role = iam.Role(
            self,
            f"{spec.construct_id}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"production orchestrator {spec.construct_id}: {spec.description}",
        )
        # Instead of the AWSLambdaBasicExecutionRole managed policy (any log group): only its own.
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[log_group.log_group_arn],
            )
        )
        fn = lambda_.Function(
            self,
            spec.construct_id,
            description=f"production orchestrator: {spec.description}",
            runtime=lambda_.Runtime.PYTHON_3_12,
            architecture=self.architecture,
            handler=spec.handler,
            code=self._codes[spec.agent],
            role=role,
            memory_size=spec.memory_mb,
            timeout=spec.timeout,
            # The public decision URL (auth NONE) can be flooded: reserved concurrency caps it, so a flood
            # is throttled there instead of taking the account's concurrency from the agent functions.
            reserved_concurrent_executions=(
                self._settings.decide_reserved_concurrency if spec.handler == DECIDE_HANDLER else None
            ),
            environment=dict(self.environment),
            log_group=log_group,
            logging_format=lambda_.LoggingFormat.JSON,
            application_log_level_v2=lambda_.ApplicationLogLevel.INFO,
            system_log_level_v2=lambda_.SystemLogLevel.WARN,
            tracing=lambda_.Tracing.ACTIVE,
        )
        self.by_module[spec.module] = fn
        acknowledge(
            fn,
            "AwsSolutions-L1",
            "Pinned to Python 3.12 on purpose: the asset's wheels and precompiled .pyc are built for "
            "3.12 and the code is tested on it; moving runtimes is a deliberate upgrade.",
        )
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::*]",
            "Only the X-Ray PutTraceSegments/PutTelemetryRecords actions that active tracing adds; "
            "X-Ray does not support resource-level permissions.",
        )
        return fn

    def _grant_model(self, fn: lambda_.Function) -> None:
        binding = self._settings.binding
        if binding.provider != "bedrock":
            return
        stack = Stack.of(self)
        grant = model_grant(stack.partition, stack.account, binding.region, binding.model_id)
        if grant.acknowledged:
            assert fn.role is not None
            acknowledge(
                fn.role,
                f"AwsSolutions-IAM5[Resource::{grant.acknowledged}]",
                "An inference profile routes to its base model in any region of its geography; the grant names "
                "that model (or, for an application profile, only models reached through that one profile).",
            )
        fn.add_to_role_policy(
            iam.PolicyStatement(
                actions=list(MODEL_ACTIONS),
                resources=list(grant.resources),
                conditions=grant.conditions or None,
            )
        )


@dataclass(frozen=True)
class ModelGrant:
    """The Bedrock resources (and conditions) a model id needs; ``acknowledged``: the wildcard resource, if any,
    as cdk-nag names it."""

    resources: tuple[str, ...]
    conditions: dict[str, dict[str, str]]
    acknowledged: str = ""


def model_grant(partition: str, account: str, region: str, model_id: str) -> ModelGrant:
    """What invoking ``model_id`` needs: a foundation-model id, a cross-region profile id (``us.…``), or an ARN of
    a foundation model, an inference profile or an application inference profile (used as given)."""
    if model_id.startswith("arn:"):
        match = MODEL_ARN.match(model_id)
        if match is None:
            raise ConfigurationError(f"modelId {model_id!r} is not a Bedrock model or inference-profile ARN")
        kind, name = match.group("kind"), match.group("name")
        if kind == "foundation-model":
            return ModelGrant((model_id,), {})
        if kind == "inference-profile" and name.startswith(INFERENCE_PROFILE_PREFIXES):
            base = name.split(".", 1)[1]
            return ModelGrant(
                (model_id, f"arn:{partition}:bedrock:*::foundation-model/{base}"),
                {},
                f"arn:<AWS::Partition>:bedrock:*::foundation-model/{base}",
            )
        # An application inference profile names its model only inside Bedrock: any foundation model, but only
        # when reached through this one profile.
        return ModelGrant(
            (model_id, f"arn:{partition}:bedrock:*::foundation-model/*"),
            {"StringEquals": {"bedrock:InferenceProfileArn": model_id}},
            "arn:<AWS::Partition>:bedrock:*::foundation-model/*",
        )
    if model_id.startswith(INFERENCE_PROFILE_PREFIXES):
        base_model = model_id.split(".", 1)[1]
        return ModelGrant(
            (
                f"arn:{partition}:bedrock:{region}:{account}:inference-profile/{model_id}",
                f"arn:{partition}:bedrock:*::foundation-model/{base_model}",
            ),
            {},
            f"arn:<AWS::Partition>:bedrock:*::foundation-model/{base_model}",
        )
    return ModelGrant((f"arn:{partition}:bedrock:{region}::foundation-model/{model_id}",), {})
