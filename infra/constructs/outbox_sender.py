"""The approved plans' messages out: a strands-free function that sends the outbox through Amazon SES.

    ResumeVerifiedDecision (applied) -> SendApprovedMessages (this function) -> PlanApplied
                                              |  retries DeliveryIncompleteError with backoff
                                              v  when it gives up, or a message is refused for good
                                        MessagesNotSent (Fail) -> the UndeliveredMessages alarm

Its role may send only as ``senderEmail`` (``ses:FromAddress``; the address or its domain verified in SES),
to any recipient SES lets it reach (in the sandbox, verified ones only), through the one configuration set,
and read and conditionally write the table's items.
"""

from __future__ import annotations

from aws_cdk import Annotations, Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_ses as ses
from constructs import Construct

from ..constants import ENV_SENDER_EMAIL, ENV_SES_CONFIGURATION_SET, SEND_OUTBOX_HANDLER
from ..nag import acknowledge
from ..permissions import AUDIT_KEY_ACTIONS, TABLE_ACCESS
from ..settings import Settings
from .agent_functions import AgentFunctions
from .state_store import StateStore

# What deliver() does on the table: query the plan's outbox items, read the audit chain head, and put
# (conditionally, in transactions) the outbox item with its audit event and the new head.
SES_SEND_ACTIONS = ("ses:SendEmail",)  # SES v2 SendEmail, raw content included
# Longer than one SES call with its SDK retries; the outbox lease (2 minutes) outlasts it.
SENDER_TIMEOUT = Duration.seconds(60)


class OutboxSender(Construct):
    """The sending function, its configuration set and its SES grant."""

    def __init__(
        self, scope: Construct, construct_id: str, *, settings: Settings, store: StateStore, functions: AgentFunctions
    ) -> None:
        super().__init__(scope, construct_id)
        if settings.ses_configuration_set:
            configuration_set_name = settings.ses_configuration_set
        else:
            configuration_set_name = ses.ConfigurationSet(self, "ConfigurationSet").configuration_set_name
        self.configuration_set_name = configuration_set_name
        self.function = functions.add_strands_free(
            "SendOutbox", SEND_OUTBOX_HANDLER, "sends an approved plan's queued messages through SES", SENDER_TIMEOUT
        )
        self.function.add_environment(ENV_SES_CONFIGURATION_SET, configuration_set_name)
        store.grant_table(self.function, TABLE_ACCESS["send_outbox"])
        functions.grant_key(
            functions.audit_key, self.function, AUDIT_KEY_ACTIONS["send_outbox"]
        )  # its sent-events are MACed
        if not settings.sender_email:
            Annotations.of(self).add_warning_v2(
                "po:no-sender",
                "no senderEmail in context: approved plans' messages stay queued and MessagesNotSent alarms "
                "until a verified SES identity is set (-c senderEmail=...)",
            )
            return
        self.function.add_environment(ENV_SENDER_EMAIL, settings.sender_email)
        stack = Stack.of(self)
        prefix = f"arn:{stack.partition}:ses:{stack.region}:{stack.account}"
        # SES authorizes SendEmail against every identity the message touches: the sender's and, in the SES
        # sandbox, each (verified) recipient's too. Naming only the sender's identity makes every sandbox send
        # AccessDenied; so the grant covers the account's identities, and ses:FromAddress holds the role to the
        # one sender, whatever the recipients.
        self.function.add_to_role_policy(
            iam.PolicyStatement(
                actions=list(SES_SEND_ACTIONS),
                resources=[f"{prefix}:identity/*", f"{prefix}:configuration-set/{configuration_set_name}"],
                conditions={"StringEquals": {"ses:FromAddress": settings.sender_email}},
            )
        )
        role = self.function.role
        assert role is not None
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]",
            "SES checks the recipients' identities too while the account is in the sandbox; the ses:FromAddress "
            "condition limits sending to the one sender address.",
        )
