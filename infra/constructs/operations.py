"""What an operator watches: alarms on failed executions, refused resumes, expired and long-pending
approvals, function errors; one dashboard; an optional e-mail subscription for the alarms."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from ..constants import (
    ENV_OPERATOR_TOPIC_ARN,
    METRIC_DECISION_EXPIRED,
    METRIC_MESSAGES_NOT_SENT,
    METRIC_OLDEST_PENDING_APPROVAL_AGE,
    METRIC_RESUME_REFUSED,
    STATE_DECISION_EXPIRED,
    STATE_MESSAGES_NOT_SENT,
    STATE_RESUME_REFUSED,
)
from ..outputs import output
from ..settings import Settings
from .agent_functions import AgentFunctions
from .approval_channel import encrypted_topic
from .approval_workflow import ApprovalWorkflow

CLOUDWATCH_PRINCIPAL = "cloudwatch.amazonaws.com"
PERIOD = Duration.minutes(5)
# Page before the window closes: at 80% of the window a human still has time to decide.
PENDING_AGE_ALARM_FRACTION = 0.8


class Operations(Construct):
    """Alarms (with an SNS action) and a dashboard over the workflow and the functions."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: Settings,
        workflow: ApprovalWorkflow,
        functions: AgentFunctions,
        failed_deliveries: sqs.IQueue | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self._namespace = settings.metrics_namespace
        # CloudWatch cannot publish to a topic under the AWS-managed SNS key; this key lets it (and only
        # it, besides the account's administrators) use the key for the alarm topic.
        # Nothing it encrypted outlives the topic: it goes with the stack (KMS deletes it after 7 days).
        alarm_key = kms.Key(
            self,
            "AlarmTopicKey",
            enable_key_rotation=True,
            description="production orchestrator alarm topic",
            removal_policy=RemovalPolicy.DESTROY,
            pending_window=Duration.days(7),
        )
        alarm_key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal(CLOUDWATCH_PRINCIPAL)],
                actions=["kms:Decrypt", "kms:GenerateDataKey"],
                resources=["*"],  # in a key policy, "*" is this key
            )
        )
        self.alarm_topic = encrypted_topic(self, "AlarmTopic", "Production orchestrator alarms", alarm_key)
        # The TLS-only topic policy replaces SNS's default one, which let the account's services publish: without
        # this Allow, CloudWatch's alarm actions are refused and no alarm e-mail ever arrives. Only this account's
        # alarms may publish.
        stack = Stack.of(self)
        self.alarm_topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarmsPublish",
                principals=[iam.ServicePrincipal(CLOUDWATCH_PRINCIPAL)],
                actions=["sns:Publish"],
                resources=[self.alarm_topic.topic_arn],
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {
                        "aws:SourceArn": f"arn:{stack.partition}:cloudwatch:{stack.region}:{stack.account}:alarm:*"
                    },
                },
            )
        )
        # The start function alerts the operator here when a customer request waits as needs facts: it may publish
        # to this topic (and use its key for that) and to nothing else of the operator's.
        functions.run_agent.add_environment(ENV_OPERATOR_TOPIC_ARN, self.alarm_topic.topic_arn)
        functions.run_agent.add_to_role_policy(
            iam.PolicyStatement(actions=["sns:Publish"], resources=[self.alarm_topic.topic_arn])
        )
        # SNS encrypts what a publisher hands it under the topic's key, with the publisher's own permissions.
        functions.run_agent.add_to_role_policy(
            iam.PolicyStatement(actions=["kms:GenerateDataKey", "kms:Decrypt"], resources=[alarm_key.key_arn])
        )
        if settings.operator_email:
            self.alarm_topic.add_subscription(subscriptions.EmailSubscription(settings.operator_email))
        machine = workflow.state_machine

        # Step Functions publishes these only when non-zero, and metric math has no point unless every
        # series has one: FILL(m, 0) makes a single failure a point (and so an alarm).
        failed = cloudwatch.MathExpression(
            expression="FILL(failed, 0) + FILL(timedOut, 0) + FILL(aborted, 0)",
            using_metrics={
                "failed": machine.metric_failed(period=PERIOD, statistic="Sum"),
                "timedOut": machine.metric_timed_out(period=PERIOD, statistic="Sum"),
                "aborted": machine.metric_aborted(period=PERIOD, statistic="Sum"),
            },
            label="executions failed, timed out or aborted",
            period=PERIOD,
        )
        refused = self._state_entered_metric(
            workflow.log_group, "FailStateEntered", STATE_RESUME_REFUSED, METRIC_RESUME_REFUSED
        )
        expired = self._state_entered_metric(
            workflow.log_group, "TaskStateEntered", STATE_DECISION_EXPIRED, METRIC_DECISION_EXPIRED
        )
        # Step Functions has no metric for how long a callback task has waited, so this one is custom: the
        # handlers' Powertools namespace, dimension service, published every period by report_pending_age
        # (0 when nothing waits); if the publisher itself fails, its function-error alarm below fires.
        events.Rule(
            self,
            "ReportPendingAgeSchedule",
            description="publish the age of the oldest pending approval",
            schedule=events.Schedule.rate(PERIOD),
            targets=[targets.LambdaFunction(functions.report_pending_age, retry_attempts=0)],
        )
        pending_age = cloudwatch.Metric(
            namespace=self._namespace,
            metric_name=METRIC_OLDEST_PENDING_APPROVAL_AGE,
            statistic="Maximum",
            period=PERIOD,
            dimensions_map={"service": "production-orchestrator"},
        )
        not_sent = self._state_entered_metric(
            workflow.log_group, "FailStateEntered", STATE_MESSAGES_NOT_SENT, METRIC_MESSAGES_NOT_SENT
        )
        alarms = [
            self._alarm("FailedExecutions", failed, 1, "an execution failed (a refusal counts), timed out or aborted"),
            self._alarm("UndeliveredMessages", not_sent, 1, "an approved plan's messages were not all sent"),
            self._alarm("RefusedResumes", refused, 1, "a resume was refused by the verification gate"),
            self._alarm("ExpiredApprovals", expired, 1, "an approval window passed without a decision"),
            self._alarm(
                "OldestPendingApprovalAge",
                pending_age,
                int(settings.approval_timeout_seconds * PENDING_AGE_ALARM_FRACTION),
                "the oldest pending approval is close to expiring",
            ),
        ]
        # The sender raises to be retried by its state (DeliveryIncompleteError) and has its own alarm,
        # UndeliveredMessages, for the messages that stay unsent; every other function alarms on any error.
        sender = functions.by_module.get("send_outbox")
        for fn in (f for f in functions.all if f is not sender):
            name = fn.node.id
            alarms.append(
                self._alarm(f"{name}Errors", fn.metric_errors(period=PERIOD, statistic="Sum"), 1, f"{name} raised")
            )
        alarms.append(
            self._alarm(
                "DecideThrottles",
                functions.decide.metric_throttles(period=PERIOD, statistic="Sum"),
                1,
                "the decision URL hit its reserved concurrency (a flood, or more approvers than it allows)",
            )
        )
        if failed_deliveries is not None:
            alarms.append(
                self._alarm(
                    "FailedEmailDeliveries",
                    failed_deliveries.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum"),
                    1,
                    "a received customer e-mail failed its retries and started no run (see FailedDeliveriesQueueUrl)",
                )
            )
        self.alarms = alarms

        self.dashboard = cloudwatch.Dashboard(self, "Dashboard", default_interval=Duration.days(7))
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Executions",
                left=[
                    machine.metric_started(period=PERIOD, statistic="Sum"),
                    machine.metric_succeeded(period=PERIOD, statistic="Sum"),
                    failed,
                ],
                width=12,
            ),
            cloudwatch.GraphWidget(title="Refused resumes and expired approvals", left=[refused, expired], width=12),
        )
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(title="Oldest pending approval (s)", left=[pending_age], width=12),
            cloudwatch.GraphWidget(
                title="Function errors",
                left=[fn.metric_errors(period=PERIOD, statistic="Sum") for fn in functions.all],
                width=12,
            ),
        )
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Function duration p95",
                left=[fn.metric_duration(period=PERIOD, statistic="p95") for fn in functions.all],
                width=24,
            ),
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=alarms, width=24),
        )
        output(self, "DashboardName", self.dashboard.dashboard_name, "CloudWatch dashboard")
        output(self, "AlarmTopicArn", self.alarm_topic.topic_arn, "alarm notifications")

    def _state_entered_metric(
        self, log_group: logs.ILogGroup, event_type: str, state: str, metric_name: str
    ) -> cloudwatch.IMetric:
        # The workflow logs every state transition (level ALL) without execution data; the state name
        # is still in details.name, which is all this filter needs.
        metric_filter = logs.MetricFilter(
            self,
            f"{metric_name}Filter",
            log_group=log_group,
            filter_pattern=logs.FilterPattern.all(
                logs.FilterPattern.string_value("$.type", "=", event_type),
                logs.FilterPattern.string_value("$.details.name", "=", state),
            ),
            metric_namespace=self._namespace,
            metric_name=metric_name,
            metric_value="1",
        )
        return metric_filter.metric(period=PERIOD, statistic="Sum")

    def _alarm(self, name: str, metric: cloudwatch.IMetric, threshold: int, description: str) -> cloudwatch.Alarm:
        alarm = cloudwatch.Alarm(
            self,
            name,
            metric=metric,
            threshold=threshold,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=f"production orchestrator: {description}",
        )
        alarm.add_alarm_action(cw_actions.SnsAction(self.alarm_topic))
        return alarm
