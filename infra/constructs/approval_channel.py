"""How a human is reached and answers: the SNS approval topic and the decision Function URL.

request_approval --publish--> topic --email--> approver --GET/POST--> Function URL --> decide
                                                                           decide --SendTaskSuccess--> workflow
"""

from __future__ import annotations

from aws_cdk import Annotations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from production_orchestrator.adapters.aws.sns_notifier import APPROVER_ATTRIBUTE
from production_orchestrator.domain.identity import normalize_identity

from ..constants import ENV_LINK_BASE_URL
from ..outputs import output
from ..permissions import TASK_RESPONSE_ACTIONS
from ..settings import Settings


def encrypted_topic(scope: Construct, construct_id: str, display_name: str, key: kms.IKey | None = None) -> sns.Topic:
    """An SNS topic that refuses non-TLS publishers, encrypted with ``key`` or the AWS-managed SNS key."""
    return sns.Topic(
        scope,
        construct_id,
        display_name=display_name,
        master_key=key or kms.Alias.from_alias_name(scope, f"{construct_id}Key", "alias/aws/sns"),
        enforce_ssl=True,
    )


class ApprovalChannel(Construct):
    """The approval topic (with e-mail subscriptions from context) and, once attached, the decision URL."""

    def __init__(self, scope: Construct, construct_id: str, *, settings: Settings) -> None:
        super().__init__(scope, construct_id)
        self._settings = settings
        self.topic = encrypted_topic(self, "ApprovalTopic", "Production plan approvals")
        output(self, "ApprovalTopicArn", self.topic.topic_arn, "approval e-mails go out here")
        for email in settings.approver_emails:
            # One message per approver, each holding that approver's own link: the filter makes sure an
            # approver receives only theirs. The published attribute is the normalized identity (case-folded),
            # and SNS string filters match exactly, so the filter holds the same form: `Ana@Example.com` as
            # typed would never match. Confirm with AuthenticateOnUnsubscribe=true (docs/how-to/deploy.md) so a mail
            # scanner cannot unsubscribe the approver.
            attribute = normalize_identity(email)
            self.topic.add_subscription(
                subscriptions.EmailSubscription(
                    email,
                    filter_policy={APPROVER_ATTRIBUTE: sns.SubscriptionFilter.string_filter(allowlist=[attribute])},
                )
            )
        if not settings.approver_emails:
            Annotations.of(self).add_warning_v2(
                "po:no-approvers",
                "no approverEmails in context: approval requests fail until approvers are set (-c approverEmails=...)",
            )
        self.decision_url: lambda_.FunctionUrl | None = None

    def attach_decision_endpoint(self, decide: lambda_.Function, link_builder: lambda_.Function) -> lambda_.FunctionUrl:
        """Expose ``decide`` at a public Function URL and tell ``link_builder`` where links point.

        The URL needs no IAM auth: approvers click from e-mail. What authorizes a decision is the link's
        high-entropy secret (only its hash is stored), checked by the decide handler; GET never decides.
        """
        self.decision_url = decide.add_function_url(auth_type=lambda_.FunctionUrlAuthType.NONE)
        if not self._settings.link_base_url:
            link_builder.add_environment(ENV_LINK_BASE_URL, self.decision_url.url)
        output(self, "DecisionUrl", self.decision_url.url, "approval links point here")
        return self.decision_url

    def allow_task_responses(self, decide: lambda_.Function, state_machine: sfn.IStateMachine) -> iam.Policy:
        """Only the decision function's role may complete the parked task.

        A separate policy, not the role's default one: the function must not depend on the state machine,
        which depends (through the link base URL) on the decision endpoint.
        """
        assert decide.role is not None
        return iam.Policy(
            self,
            "DecisionTaskResponsePolicy",
            roles=[decide.role],
            statements=[
                iam.PolicyStatement(actions=list(TASK_RESPONSE_ACTIONS), resources=[state_machine.state_machine_arn])
            ],
        )
