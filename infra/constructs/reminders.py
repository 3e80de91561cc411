"""Reminders and escalation: one-time EventBridge Scheduler wake-ups of a strands-free reminder function.

    ArmReminders (reminder function) -> schedules at(...) in the stack's group, each invoking the reminder
        |                               function once as the scheduler role, then deleting itself
    WaitForHumanDecision  ...  a schedule fires -> reminder function: the reminder (a new link, by SNS) or the
        |                                          backups added (their links by SNS), audited, once
    DisarmReminders (reminder function) -> the schedules left are deleted

Why schedules and not Wait states beside the parked task: docs/how-to/reminders.md.

The function's role may create and delete schedules of its own group only, pass the scheduler role to
EventBridge Scheduler only, publish to the approval topic, MAC audit links, and read and conditionally write
the approval items. The scheduler role may invoke this one function and nothing else.
"""

from __future__ import annotations

from aws_cdk import Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_scheduler as scheduler
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from production_orchestrator.adapters.aws.sns_notifier import APPROVER_ATTRIBUTE

from ..constants import (
    ENV_BACKUP_APPROVERS,
    ENV_ESCALATE_AFTER,
    ENV_LINK_BASE_URL,
    ENV_REMIND_AT,
    ENV_REMINDER_GROUP,
    ENV_REMINDER_ROLE_ARN,
    REMIND_HANDLER,
)
from ..nag import acknowledge
from ..permissions import TABLE_ACCESS
from ..settings import Settings
from .agent_functions import AgentFunctions
from .approval_channel import ApprovalChannel
from .state_store import StateStore

SCHEDULE_ACTIONS = ("scheduler:CreateSchedule", "scheduler:DeleteSchedule")
AUDIT_KEY_ACTIONS = ("kms:GenerateMac",)
# One wake-up: a few table reads and writes and one SNS publish per approver.
REMIND_TIMEOUT = Duration.seconds(60)
# Lambda retries a failed wake-up (ReminderHeldError: another sender held the reminder) after 1 and 2 more
# minutes: the second retry comes after the reminder lease (2 minutes) and takes the reminder over.
ASYNC_RETRIES = 2


class Reminders(Construct):
    """The reminder function, its schedule group, the scheduler role, and the backups' subscriptions."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: Settings,
        store: StateStore,
        functions: AgentFunctions,
        channel: ApprovalChannel,
    ) -> None:
        super().__init__(scope, construct_id)
        # Reminders go out on the approval topic; their links point at the decision URL (unless configured).
        topic: sns.ITopic = channel.topic
        decision_url = channel.decision_url.url if channel.decision_url else ""
        stack = Stack.of(self)
        self.group = scheduler.CfnScheduleGroup(self, "Group")
        self.function = functions.add_strands_free(
            "Remind", REMIND_HANDLER, "reminds approvers who have not voted and adds backup approvers", REMIND_TIMEOUT
        )
        fn = self.function
        # Only EventBridge Scheduler, for this account, may act as the scheduler role; it invokes this function.
        self.scheduler_role = iam.Role(
            self,
            "SchedulerRole",
            assumed_by=iam.ServicePrincipal(
                "scheduler.amazonaws.com",
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    # Only for schedules of this stack's group (the confused-deputy guard Scheduler documents).
                    "ArnEquals": {"aws:SourceArn": self.group.attr_arn},
                },
            ),
            description="production orchestrator: EventBridge Scheduler invokes the reminder function",
        )
        self.scheduler_role.add_to_policy(
            iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[fn.function_arn])
        )
        fn.configure_async_invoke(retry_attempts=ASYNC_RETRIES, max_event_age=Duration.hours(6))
        for name, value in (
            (ENV_REMIND_AT, ",".join(settings.remind_at) or "off"),
            (ENV_ESCALATE_AFTER, settings.escalate_after),
            (ENV_BACKUP_APPROVERS, ",".join(settings.backup_approvers)),
            (ENV_REMINDER_GROUP, self.group.ref),
            (ENV_REMINDER_ROLE_ARN, self.scheduler_role.role_arn),
        ):
            fn.add_environment(name, value)
        if not settings.link_base_url:
            fn.add_environment(ENV_LINK_BASE_URL, decision_url)
        store.grant_table(fn, TABLE_ACCESS["remind"])
        functions.grant_key(functions.audit_key, fn, AUDIT_KEY_ACTIONS)
        fn.add_to_role_policy(iam.PolicyStatement(actions=["sns:Publish"], resources=[topic.topic_arn]))
        schedules = f"arn:{stack.partition}:scheduler:{stack.region}:{stack.account}:schedule/{self.group.ref}/*"
        fn.add_to_role_policy(iam.PolicyStatement(actions=list(SCHEDULE_ACTIONS), resources=[schedules]))
        fn.add_to_role_policy(
            iam.PolicyStatement(
                actions=["iam:PassRole"],
                resources=[self.scheduler_role.role_arn],
                conditions={"StringEquals": {"iam:PassedToService": "scheduler.amazonaws.com"}},
            )
        )
        role = fn.role
        assert role is not None
        group_id = stack.get_logical_id(self.group)
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:"
            f"schedule/<{group_id}>/*]",
            "Schedule names are chosen per approval (one per reminder point); the grant is limited to the "
            "stack's own schedule group.",
        )
        # The backups get their links as the approvers do: one subscription each, filtered to their messages.
        for email in settings.backup_approvers:
            topic.add_subscription(
                subscriptions.EmailSubscription(
                    email,
                    filter_policy={APPROVER_ATTRIBUTE: sns.SubscriptionFilter.string_filter(allowlist=[email])},
                )
            )

    @property
    def invoker(self) -> lambda_.IFunction:
        """The function the workflow's ArmReminders and DisarmReminders states invoke."""
        return self.function
