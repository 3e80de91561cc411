"""Requests in by e-mail: customer e-mails SES receives for ``inboundAddress`` start runs (only with that
context key; without it nothing here is synthesized).

    MX -> SES inbound -> the region's active receipt rule set (shared by the shops, see below)
        -> this shop's rule <stack>-requests: recipient = inboundAddress, spam and virus scan, TLS required
        1. S3 action: the session bucket, inbound/<message id> (bucket policy: ses.amazonaws.com, this account,
           this rule only)
        2. Lambda action (Event): receive_email -> verdicts checked -> Submission -> StartExecution

SES allows one active receipt rule set per account and region and refuses to delete the active one, so no shop
owns a rule set: a custom resource (handlers/receipt_rule_set.py) puts this shop's rule into the active set (the
operator's own, or another shop's), creating and activating ``production-orchestrator-inbound`` when none is
active; on delete, after CloudFormation removed the rule, it deactivates and deletes that set once no shop's rule
is left in it. So ``cdk destroy`` of one shop leaves the others receiving, and of the last one leaves nothing.

The receiving function may read the stored e-mails (inbound/ only), create and read submission records and
start executions of the one state machine; SES may invoke it only for this account's rule.
"""

from __future__ import annotations

from aws_cdk import CustomResource, Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_ses as ses
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from ..constants import (
    ENV_INBOUND_ADDRESS,
    ENV_STATE_MACHINE_ARN,
    INBOUND_PREFIX,
    RECEIPT_RULE_SET_HANDLER,
    RECEIVE_EMAIL_HANDLER,
)
from ..nag import acknowledge
from ..outputs import output
from ..permissions import TABLE_ACCESS
from ..settings import Settings
from .agent_functions import AgentFunctions
from .request_entry import SUBMIT_STATE_ACTIONS
from .state_store import StateStore

RULE_NAME_SUFFIX = "requests"  # the rule is <stack name>-requests: unique in a rule set the shops share
# The custom resource's SES calls (the receipt rule set APIs take no resource ARN in IAM).
RULE_SET_ACTIONS = (
    "ses:CreateReceiptRuleSet",
    "ses:DeleteReceiptRuleSet",
    "ses:DescribeActiveReceiptRuleSet",
    "ses:DescribeReceiptRuleSet",
    "ses:SetActiveReceiptRuleSet",
)
SES_PRINCIPAL = "ses.amazonaws.com"
# Received e-mails are the evidence of what a customer asked for, kept as long as the sessions.
RECEIVED_MAIL_DAYS = 400
RECEIVE_TIMEOUT = Duration.seconds(30)


class InboundMail(Construct):
    """The receipt rule set and rule, the bucket policy that lets SES store the e-mails, and the function."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: Settings,
        store: StateStore,
        functions: AgentFunctions,
        state_machine: sfn.IStateMachine,
    ) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        self.function = functions.add_strands_free(
            "ReceiveEmail", RECEIVE_EMAIL_HANDLER, "starts a run for an authenticated customer e-mail", RECEIVE_TIMEOUT
        )
        self.function.add_environment(ENV_STATE_MACHINE_ARN, state_machine.state_machine_arn)
        self.function.add_environment(ENV_INBOUND_ADDRESS, settings.inbound_address)
        store.grant_table(self.function, TABLE_ACCESS["receive_email"])
        store.grant_received_mail(self.function)
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=list(SUBMIT_STATE_ACTIONS), resources=[state_machine.state_machine_arn])
        )

        self.rule_set = self._active_rule_set(functions)
        rule_set_name = self.rule_set.get_att_string("RuleSetName")
        rule_name = f"{stack.stack_name}-{RULE_NAME_SUFFIX}"
        rule_arn = (
            f"arn:{stack.partition}:ses:{stack.region}:{stack.account}"
            f":receipt-rule-set/{rule_set_name}:receipt-rule/{rule_name}"
        )
        # SES may write only the inbound prefix, and only for this account's rule (no other account's rule can
        # deliver into this bucket by naming it).
        bucket = store.session_bucket
        bucket.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal(SES_PRINCIPAL)],
                actions=["s3:PutObject"],
                resources=[bucket.arn_for_objects(f"{INBOUND_PREFIX}*")],
                conditions={"StringEquals": {"aws:SourceAccount": stack.account, "aws:SourceArn": rule_arn}},
            )
        )
        bucket.add_lifecycle_rule(
            id="expire-received-mail",
            prefix=INBOUND_PREFIX,
            expiration=Duration.days(RECEIVED_MAIL_DAYS),
            noncurrent_version_expiration=Duration.days(30),
        )
        permission = lambda_.CfnPermission(
            self,
            "AllowSes",
            action="lambda:InvokeFunction",
            function_name=self.function.function_arn,
            principal=SES_PRINCIPAL,
            source_account=stack.account,
            source_arn=rule_arn,
        )
        self.rule = ses.CfnReceiptRule(
            self,
            "Rule",
            rule_set_name=rule_set_name,
            rule=ses.CfnReceiptRule.RuleProperty(
                name=rule_name,
                enabled=True,
                recipients=[settings.inbound_address],
                scan_enabled=True,
                tls_policy="Require",
                actions=[
                    ses.CfnReceiptRule.ActionProperty(
                        s3_action=ses.CfnReceiptRule.S3ActionProperty(
                            bucket_name=bucket.bucket_name, object_key_prefix=INBOUND_PREFIX
                        )
                    ),
                    ses.CfnReceiptRule.ActionProperty(
                        lambda_action=ses.CfnReceiptRule.LambdaActionProperty(
                            function_arn=self.function.function_arn, invocation_type="Event"
                        )
                    ),
                ],
            ),
        )
        # SES checks both grants when the rule is created: they must exist first.
        assert bucket.policy is not None
        self.rule.node.add_dependency(bucket.policy, permission)
        # A refusal returns normally; only a missing object or an AWS error is retried (twice, by Lambda). An
        # event that fails its retries (or outlives its age) goes to this queue, not nowhere: the e-mail stays
        # under inbound/, the queue holds the SES event naming it, and the operations' alarm fires on it.
        self.failed_deliveries = sqs.Queue(
            self,
            "FailedDeliveries",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=Duration.days(14),
        )
        acknowledge(
            self.failed_deliveries,
            "AwsSolutions-SQS3",
            "This queue is itself the on-failure destination of the e-mail intake; an operator reads it by hand.",
        )
        self.function.configure_async_invoke(
            retry_attempts=2,
            max_event_age=Duration.hours(6),
            on_failure=destinations.SqsDestination(self.failed_deliveries),
        )
        output(
            self, "FailedDeliveriesQueueUrl", self.failed_deliveries.queue_url, "received e-mails that started no run"
        )

    def _active_rule_set(self, functions: AgentFunctions) -> CustomResource:
        """The custom resource naming the active rule set this shop's rule goes into (created when none is)."""
        self.rule_set_function = functions.add_strands_free(
            "ReceiptRuleSet",
            RECEIPT_RULE_SET_HANDLER,
            "puts the shop's receipt rule into the region's active rule set, and removes that set when empty",
            Duration.seconds(60),
        )
        self.rule_set_function.add_to_role_policy(iam.PolicyStatement(actions=list(RULE_SET_ACTIONS), resources=["*"]))
        acknowledge(
            self.rule_set_function.role,  # type: ignore[arg-type]
            "AwsSolutions-IAM5[Resource::*]",
            "SES receipt rule set actions take no resource ARN in IAM; the function only finds, creates, activates, "
            "deactivates and deletes the shared production-orchestrator rule set.",
        )
        resource = CustomResource(
            self,
            "ActiveRuleSet",
            service_token=self.rule_set_function.function_arn,
            resource_type="Custom::ActiveReceiptRuleSet",
        )
        # Deleted after this shop's rule (which names it), so release() sees the set without it.
        return resource
