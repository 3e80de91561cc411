"""The Production Orchestrator stack. It composes constructs; it defines no resources itself."""

from __future__ import annotations

from typing import Any

from aws_cdk import Stack
from constructs import Construct

from .constructs.agent_functions import AgentFunctions
from .constructs.approval_channel import ApprovalChannel
from .constructs.approval_workflow import ApprovalWorkflow
from .constructs.inbound_mail import InboundMail
from .constructs.operations import Operations
from .constructs.operator_access import OperatorAccess
from .constructs.outbox_sender import OutboxSender
from .constructs.reminders import Reminders
from .constructs.request_entry import RequestEntry
from .constructs.state_store import StateStore
from .settings import Settings


class ProductionOrchestratorStack(Stack):
    """State store, agent functions, approval channel, the workflow and its operations."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        settings = Settings.from_context(self.node)
        self.store = StateStore(self, "StateStore", settings=settings)
        self.channel = ApprovalChannel(self, "ApprovalChannel", settings=settings)
        self.functions = AgentFunctions(
            self, "Functions", settings=settings, store=self.store, topic=self.channel.topic
        )
        self.channel.attach_decision_endpoint(self.functions.decide, link_builder=self.functions.request_approval)
        # messages=off: approved plans' messages stay in the outbox, and no sender or sending state exists.
        self.outbox = (
            OutboxSender(self, "Outbox", settings=settings, store=self.store, functions=self.functions)
            if settings.messages
            else None
        )
        # remindAt=off and no escalation: no reminder function, no schedules, no reminder states.
        self.reminders = (
            Reminders(
                self,
                "Reminders",
                settings=settings,
                store=self.store,
                functions=self.functions,
                channel=self.channel,
            )
            if settings.reminders_on
            else None
        )
        self.workflow = ApprovalWorkflow(
            self,
            "Workflow",
            settings=settings,
            functions=self.functions,
            sender=self.outbox.function if self.outbox else None,
            reminders=self.reminders.function if self.reminders else None,
        )
        self.channel.allow_task_responses(self.functions.decide, self.workflow.state_machine)
        self.requests = RequestEntry(
            self,
            "Requests",
            settings=settings,
            store=self.store,
            functions=self.functions,
            state_machine=self.workflow.state_machine,
        )
        # E-mail intake only where an inbound address is configured.
        self.inbound = (
            InboundMail(
                self,
                "Inbound",
                settings=settings,
                store=self.store,
                functions=self.functions,
                state_machine=self.workflow.state_machine,
            )
            if settings.inbound_address
            else None
        )
        self.operator = OperatorAccess(self, "Operator", store=self.store, functions=self.functions)
        self.operations = Operations(
            self,
            "Operations",
            settings=settings,
            workflow=self.workflow,
            functions=self.functions,
            failed_deliveries=self.inbound.failed_deliveries if self.inbound else None,
        )
