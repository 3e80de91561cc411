"""The Standard state machine that parks on a task token while a human decides.

RunAgentUntilApproval -> WaitForHumanDecision --States.Timeout--> DecisionExpired
                               |  the notify function fails past its retries -> ApprovalNotRequested (Fail)
  |  no verified requester under separation of duties -> RequesterNotVerified
                               |  (lambda:invoke.waitForTaskToken; TimeoutSecondsPath = $.run.wait_seconds, the
                               |   seconds from the run to this version's expires_at)
                               v
                         DecisionOrRevision: revise (an approver's "Change the plan") -> PlanRevisedVersion
                               |   (the agent plans version N+1 with the guidance; fails -> RevisionNotPlanned)
                               |   -> back to WaitForHumanDecision: a new task token, new links, a new window,
                               |      timing out when version N+1's approval expires (DecisionExpired for it too)
                               v
                         ResumeVerifiedDecision --ResumeRefusedError--> ResumeRefused
                               |  (a crashed resume is retried once the decision-claim lease has run out:
                               |   the retry takes the claim over and finishes the same decision)
                               v
                         DecisionOutcome: applied -> SendApprovedMessages -> PlanApplied
                                                      (retries with backoff; gives up -> MessagesNotSent)
                                          rejected -> PlanRejected
                                          refused + EXPIRED -> DecisionExpired | otherwise -> ResumeRefused

With reminders on (infra/constructs/reminders.py), ArmReminders sits before WaitForHumanDecision and
DisarmReminders after it; a failure of either is caught and the workflow goes on (a reminder is never worth an
approval).

Standard, not Express: a decision may take days and Express executions stop after five minutes. Nothing
on any path approves by default: a timeout records the expiry and ends. The execution's own timeout holds every
version the stack allows (maxVersions windows, each revision's run, the grace: settings.execution_seconds), so
it never ends before the last version's approval expires; the revision past maxVersions is refused
(VERSION_LIMIT) before anything is written.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import Annotations, Duration, RemovalPolicy, Stack
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

from production_orchestrator.contracts import RUN_OUTCOME_NEEDS_FACTS
from production_orchestrator.domain.errors import (
    AlreadyPendingError,
    BackendError,
    ConfigurationError,
    DeliveryFailedError,
    DeliveryIncompleteError,
    IntakeError,
    PlanningError,
    PossibleDuplicateError,
    RequestAlreadyDecidedError,
    RequestClaimTakenError,
    RequesterUnverifiedError,
    RequestTooLongError,
    ResumeRefusedError,
    ShopError,
    StartError,
    UnplannableError,
    ValidationError,
)

from ..constants import (
    OUTCOME_APPLIED,
    OUTCOME_REFUSED,
    OUTCOME_REJECTED,
    STATE_ALREADY_PENDING,
    STATE_APPROVAL_NOT_REQUESTED,
    STATE_ARM_REMINDERS,
    STATE_DECISION_EXPIRED,
    STATE_DECISION_KIND,
    STATE_DISARM_REMINDERS,
    STATE_MESSAGES_NOT_SENT,
    STATE_NEEDS_FACTS,
    STATE_NO_SHOP,
    STATE_OUTCOME,
    STATE_PLAN_APPLIED,
    STATE_PLAN_REJECTED,
    STATE_READ_OUTCOME,
    STATE_REQUEST_NOT_PLANNED,
    STATE_REQUESTER_UNVERIFIED,
    STATE_RESUME,
    STATE_RESUME_REFUSED,
    STATE_REVISE,
    STATE_REVISION_NOT_PLANNED,
    STATE_RUN_AGENT,
    STATE_SEND_MESSAGES,
    STATE_WAIT_FOR_DECISION,
)
from ..nag import acknowledge
from ..outputs import output
from ..settings import EXECUTION_GRACE_SECONDS, REVISION_GRACE_SECONDS, Settings
from .agent_functions import AgentFunctions, retention

# Refusal codes are the domain's; only EXPIRED changes the route.
EXPIRED_CODE = "EXPIRED"
# Throttles are transient too; CDK's default retry covers the other Lambda service errors.
THROTTLED = "Lambda.TooManyRequestsException"
# A new account runs 10 concurrent executions and agent runs of up to 900 s: a throttle can last minutes. Retried
# for about 9 minutes (5 s doubling, capped at 2 minutes, jittered), then the execution fails naming the error.
THROTTLE_RETRY: dict[str, Any] = {
    "errors": [THROTTLED],
    "interval": Duration.seconds(5),
    "max_attempts": 8,
    "backoff_rate": 2,
    "max_delay": Duration.minutes(2),
    "jitter_strategy": sfn.JitterType.FULL,
}
# How a resume that died mid-decision surfaces: the runtime exited (SIGKILL, a crash), the sandbox timed
# out or ran out of memory (Lambda.Unknown for unhandled errors, per the Step Functions guide), or the store
# failed (BackendError). None of them is a verdict: a retry after the lease takes the claim over.
RESUME_CRASH_ERRORS = (
    "Lambda.Unknown",
    "Runtime.ExitError",
    "Runtime.OutOfMemory",
    "Sandbox.Timedout",
    BackendError.__name__,
)
RESUME_CRASH_RETRIES = 2
# A run that timed out (a model throttled for minutes) or whose runtime died is started once more: what the
# dead run wrote (a checkpoint no approval points at) is never offered to anyone.
RUN_AGENT_TIMEOUT_ERRORS = ("Sandbox.Timedout", "Lambda.Unknown", "Runtime.ExitError")
RUN_AGENT_TIMEOUT_RETRIES = 1
RUN_AGENT_RETRY_SECONDS = 60
# Step Functions' own log group name: /aws/vendedlogs/states/ keeps it out of the account's CloudWatch Logs
# resource policy (5,120 characters), which log groups under other names are added to.
VENDED_LOGS_PREFIX = "/aws/vendedlogs/states/"


def revision_run_seconds(run_timeout: int) -> int:
    """The longest PlanRevisedVersion can take: the agent run and its retry after a timeout, the throttle retries
    at their caps, and CDK's service-exception retries (6 of 2 s doubling)."""
    first: int = THROTTLE_RETRY["interval"].to_seconds()
    cap: int = THROTTLE_RETRY["max_delay"].to_seconds()
    throttles = sum(min(first * 2**i, cap) for i in range(THROTTLE_RETRY["max_attempts"]))
    service = sum(2 * 2**i for i in range(6))
    return int((RUN_AGENT_TIMEOUT_RETRIES + 1) * run_timeout + RUN_AGENT_RETRY_SECONDS + throttles + service)


def resume_retry_interval(lease_seconds: int) -> int:
    """Seconds before a crashed resume is retried: past the decision-claim lease, with a margin."""
    return lease_seconds + max(1, lease_seconds // 10)


# SES throttling or an outage: 30 s, 1, 2, 4, 8, 16 minutes (about half an hour), then MessagesNotSent alarms.
# Longer than the outbox lease (2 minutes) from the third try on, so a sender that died holding a message
# is retried too.
SEND_RETRY = {"interval": Duration.seconds(30), "max_attempts": 6, "backoff_rate": 2.0}


def _run_fields(prefix: str = "$.run") -> dict[str, str]:
    return {
        "session_id": sfn.JsonPath.string_at(f"{prefix}.session_id"),
        "checkpoint_id": sfn.JsonPath.string_at(f"{prefix}.checkpoint_id"),
        "interrupt_id": sfn.JsonPath.string_at(f"{prefix}.interrupt_id"),
        "proposal_hash": sfn.JsonPath.string_at(f"{prefix}.proposal_hash"),
        "expires_at": sfn.JsonPath.string_at(f"{prefix}.expires_at"),
    }


class ApprovalWorkflow(Construct):
    """The state machine, its log group (level ALL, no execution data) and X-Ray tracing."""

    def _resume_retry_interval(self, settings: Settings, resume_timeout: int) -> int:
        lease = settings.decision_lease_seconds
        if lease <= resume_timeout:
            Annotations.of(self).add_warning_v2(
                "po:short-lease",
                f"decisionLease {settings.decision_lease} is not longer than the resume function's timeout "
                f"({resume_timeout}s): a resume still running could be taken over (tests only)",
            )
        interval = resume_retry_interval(lease)
        # A decision that arrives as the window closes still has its resume, and its retries, inside the grace.
        needed = (RESUME_CRASH_RETRIES + 1) * resume_timeout + RESUME_CRASH_RETRIES * interval
        if needed > EXECUTION_GRACE_SECONDS:
            raise ConfigurationError(
                f"decisionLease {settings.decision_lease} is too long: a crashed resume and its retries "
                f"({needed}s) would not fit in the execution's {EXECUTION_GRACE_SECONDS}s after the window"
            )
        return interval

    def _execution_timeout(self, settings: Settings, run_timeout: int) -> int:
        needed = revision_run_seconds(run_timeout)
        if needed > REVISION_GRACE_SECONDS:
            raise ConfigurationError(
                f"a revision's agent run may take {needed}s with its retries, more than the {REVISION_GRACE_SECONDS}s "
                "the execution's timeout gives each revision"
            )
        return settings.execution_timeout_seconds

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: Settings,
        functions: AgentFunctions,
        sender: lambda_.IFunction | None,
        reminders: lambda_.IFunction | None = None,
    ) -> None:
        super().__init__(scope, construct_id)

        def invoke(
            state: str, fn: lambda_.IFunction, payload: sfn.TaskInput | None, result_path: str
        ) -> tasks.LambdaInvoke:
            task = tasks.LambdaInvoke(
                self,
                state,
                state_name=state,
                lambda_function=fn,
                payload=payload,
                payload_response_only=True,
                result_path=result_path,
                retry_on_service_exceptions=True,
            )
            task.add_retry(**THROTTLE_RETRY)
            return task

        # The execution input as is, and the execution's own name from the context object: the run looks up
        # its submission (who asked) by that name, which no execution input can choose.
        run_agent = invoke(
            STATE_RUN_AGENT,
            functions.run_agent,
            sfn.TaskInput.from_object(
                {"input": sfn.JsonPath.entire_payload, "execution_name": sfn.JsonPath.string_at("$$.Execution.Name")}
            ),
            "$.run",
        )
        run_agent.add_retry(
            errors=list(RUN_AGENT_TIMEOUT_ERRORS),
            interval=Duration.seconds(RUN_AGENT_RETRY_SECONDS),
            max_attempts=RUN_AGENT_TIMEOUT_RETRIES,
            backoff_rate=1,
        )
        wait_for_decision = tasks.LambdaInvoke(
            self,
            STATE_WAIT_FOR_DECISION,
            state_name=STATE_WAIT_FOR_DECISION,
            lambda_function=functions.request_approval,
            integration_pattern=sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
            # The token goes to the notify function only; it stores it and mails a link that holds a
            # separate secret, so the token never reaches a URL, an e-mail or a log line.
            payload=sfn.TaskInput.from_object(
                {
                    "task_token": sfn.JsonPath.task_token,
                    **_run_fields(),
                    # Who started the run (execution input, echoed by RunAgentUntilApproval): the approval
                    # record keeps them from approving it under separation of duties.
                    "requested_by": sfn.JsonPath.string_at("$.run.requested_by"),
                    # A revised version's run names the approval it replaces ("" for a first version).
                    "supersedes_approval_id": sfn.JsonPath.string_at("$.run.supersedes_approval_id"),
                }
            ),
            # Each version's own expiry, not the window from when this state starts: the run computed the seconds
            # left until its expires_at, so a revised version waits exactly as long as its approval says.
            task_timeout=sfn.Timeout.at("$.run.wait_seconds"),
            result_path="$.decision",
            retry_on_service_exceptions=True,
        )
        wait_for_decision.add_retry(**THROTTLE_RETRY)
        resume = invoke(
            STATE_RESUME,
            functions.resume_agent,
            sfn.TaskInput.from_object(
                {
                    "checkpoint_id": sfn.JsonPath.string_at("$.decision.checkpoint_id"),
                    "approval_id": sfn.JsonPath.string_at("$.decision.approval_id"),
                    "session_id": sfn.JsonPath.string_at("$.run.session_id"),
                    "interrupt_id": sfn.JsonPath.string_at("$.run.interrupt_id"),
                    "proposal_hash": sfn.JsonPath.string_at("$.run.proposal_hash"),
                }
            ),
            "$.resume",
        )
        # The dead resume's claim blocks every resume until its lease ends (ALREADY_DECIDED); retrying
        # later than that makes the retry the takeover, which finishes the recorded decision.
        retry_interval = self._resume_retry_interval(settings, functions.agent_timeout_seconds)
        resume.add_retry(
            errors=list(RESUME_CRASH_ERRORS),
            interval=Duration.seconds(retry_interval),
            max_attempts=RESUME_CRASH_RETRIES,
            backoff_rate=1,
        )
        decision_expired = invoke(
            STATE_DECISION_EXPIRED,
            functions.record_expiry,
            sfn.TaskInput.from_object(_run_fields()),
            "$.expiry",
        )
        plan_applied = sfn.Succeed(
            self, STATE_PLAN_APPLIED, comment="the reviewed plan applied exactly once and its messages were sent"
        )
        applied: sfn.IChainable = plan_applied
        if sender is not None:
            send_messages = invoke(
                STATE_SEND_MESSAGES,
                sender,
                sfn.TaskInput.from_object(
                    {
                        "checkpoint_id": sfn.JsonPath.string_at("$.run.checkpoint_id"),
                        "proposal_hash": sfn.JsonPath.string_at("$.run.proposal_hash"),
                    }
                ),
                "$.messages",
            )
            send_messages.add_retry(errors=[DeliveryIncompleteError.__name__], **SEND_RETRY)  # type: ignore[arg-type]
            send_messages.add_catch(
                sfn.Fail(
                    self,
                    STATE_MESSAGES_NOT_SENT,
                    error=DeliveryFailedError.__name__,
                    cause="the plan applied, but not every message was sent: see the outbox (status failed or queued)",
                ),
                errors=[sfn.Errors.ALL],
                result_path="$.error",
            )
            applied = send_messages.next(plan_applied)
        plan_rejected = sfn.Succeed(self, STATE_PLAN_REJECTED, comment="rejected; the domain state is unchanged")
        resume_refused = sfn.Fail(
            self,
            STATE_RESUME_REFUSED,
            error=ResumeRefusedError.__name__,
            cause="the resume gate refused the decision; nothing was written",
        )

        run_agent.add_catch(
            sfn.Fail(
                self,
                "AgentDidNotRequestApproval",
                error=StartError.__name__,
                cause="the agent stopped without asking for approval",
            ),
            errors=[StartError.__name__],
            result_path="$.error",
        )
        run_agent.add_catch(
            sfn.Fail(
                self,
                STATE_REQUESTER_UNVERIFIED,
                error=RequesterUnverifiedError.__name__,
                cause="separation of duties is on and the run was not submitted through the signed submit URL",
            ),
            errors=[RequesterUnverifiedError.__name__],
            result_path="$.error",
        )
        # A run with nothing to plan on (no shop imported yet, another shop in the table) or a request that cannot
        # be planned ends in a state that says so, with the class name as its error, never a bare failure.
        run_agent.add_catch(
            sfn.Fail(
                self,
                STATE_NO_SHOP,
                error=ShopError.__name__,
                # The handler's own message: no shop yet (import one: docs/how-to/deploy.md, step 6), or another shop.
                cause_path=sfn.JsonPath.string_at("$.error.Cause"),
            ),
            errors=[ShopError.__name__],
            result_path="$.error",
        )
        # The same customer request again (SES may deliver an e-mail twice; a customer re-sends it) while its run
        # waits: nothing was started, the earlier run's ids are in $.error.Cause. Not a failure: no alarm.
        run_agent.add_catch(
            sfn.Succeed(
                self,
                STATE_ALREADY_PENDING,
                comment="this request already waits for a decision in an earlier run; nothing was started",
            ),
            # A possible duplicate (the same words in another envelope) is held for a person: also no failure.
            errors=[AlreadyPendingError.__name__, PossibleDuplicateError.__name__],
            result_path="$.error",
        )
        run_agent.add_catch(
            sfn.Fail(
                self,
                STATE_REQUEST_NOT_PLANNED,
                # The class and message of what refused it (an unknown product, no capacity, a quorum the approvers
                # cannot reach); nothing was proposed.
                error_path=sfn.JsonPath.string_at("$.error.Error"),
                cause_path=sfn.JsonPath.string_at("$.error.Cause"),
            ),
            errors=[
                PlanningError.__name__,
                UnplannableError.__name__,
                ValidationError.__name__,
                IntakeError.__name__,
                RequestTooLongError.__name__,
                RequestAlreadyDecidedError.__name__,  # decided earlier: starting it again needs the operator
                RequestClaimTakenError.__name__,
            ],
            result_path="$.error",
        )
        wait_for_decision.add_catch(decision_expired, errors=[sfn.Errors.TIMEOUT], result_path="$.error")
        # The notify function failed past its retries (SNS refusing, its configuration, a throttle that outlasted
        # the backoff): no approver was asked, so nothing can be decided. Named, with the error's class and
        # message; the execution fails, which the failed-executions alarm counts.
        wait_for_decision.add_catch(
            sfn.Fail(
                self,
                STATE_APPROVAL_NOT_REQUESTED,
                error_path=sfn.JsonPath.string_at("$.error.Error"),
                cause_path=sfn.JsonPath.string_at("$.error.Cause"),
            ),
            errors=[sfn.Errors.ALL],
            result_path="$.error",
        )
        resume.add_catch(resume_refused, errors=[ResumeRefusedError.__name__], result_path="$.error")
        outcome = (
            sfn.Choice(self, STATE_OUTCOME)
            .when(sfn.Condition.string_equals("$.resume.outcome", OUTCOME_APPLIED), applied)
            .when(sfn.Condition.string_equals("$.resume.outcome", OUTCOME_REJECTED), plan_rejected)
            .when(
                sfn.Condition.and_(
                    sfn.Condition.string_equals("$.resume.outcome", OUTCOME_REFUSED),
                    sfn.Condition.is_present("$.resume.code"),
                    sfn.Condition.string_equals("$.resume.code", EXPIRED_CODE),
                ),
                decision_expired,
            )
            # Anything else, including an outcome this version does not know, is a refusal: fail closed.
            .otherwise(resume_refused)
        )
        # A revision asked on the page (the decision function recorded it and woke us with revise: true): the agent
        # plans the next version with the approval's guidance, and the workflow parks again on a new token.
        revise = invoke(
            STATE_REVISE,
            functions.run_agent,
            sfn.TaskInput.from_object(
                {
                    "revise": {
                        "checkpoint_id": sfn.JsonPath.string_at("$.decision.checkpoint_id"),
                        "approval_id": sfn.JsonPath.string_at("$.decision.approval_id"),
                    },
                    "execution_name": sfn.JsonPath.string_at("$$.Execution.Name"),
                }
            ),
            "$.run",
        )
        revise.add_retry(
            errors=list(RUN_AGENT_TIMEOUT_ERRORS),
            interval=Duration.seconds(RUN_AGENT_RETRY_SECONDS),
            max_attempts=RUN_AGENT_TIMEOUT_RETRIES,
            backoff_rate=1,
        )
        revise.add_catch(
            sfn.Fail(
                self,
                STATE_REVISION_NOT_PLANNED,
                # The class and message of what stopped it; the version revised stays closed (superseded).
                error_path=sfn.JsonPath.string_at("$.error.Error"),
                cause_path=sfn.JsonPath.string_at("$.error.Cause"),
            ),
            errors=[sfn.Errors.ALL],
            result_path="$.error",
        )
        decision_kind = (
            sfn.Choice(self, STATE_DECISION_KIND)
            .when(sfn.Condition.boolean_equals("$.decision.revise", True), revise)  # always present (wake.pointer)
            .otherwise(resume)
        )
        parked: sfn.IChainable
        if reminders is not None:
            arm = invoke(
                STATE_ARM_REMINDERS,
                reminders,
                sfn.TaskInput.from_object(
                    {
                        "action": "arm",
                        "checkpoint_id": sfn.JsonPath.string_at("$.run.checkpoint_id"),
                        "expires_at": sfn.JsonPath.string_at("$.run.expires_at"),
                    }
                ),
                "$.reminders",
            )
            disarm = invoke(
                STATE_DISARM_REMINDERS,
                reminders,
                sfn.TaskInput.from_object(
                    {"action": "disarm", "checkpoint_id": sfn.JsonPath.string_at("$.run.checkpoint_id")}
                ),
                "$.reminders",
            )
            # Reminders help a decision arrive; they never stand in its way: a failure is noted and passed.
            arm.add_catch(wait_for_decision, errors=[sfn.Errors.ALL], result_path="$.reminders")
            disarm.add_catch(decision_kind, errors=[sfn.Errors.ALL], result_path="$.reminders")
            parked = arm.next(wait_for_decision).next(disarm)
            park_again: sfn.IChainable = arm
        else:
            parked = park_again = wait_for_decision
        resume.next(outcome)
        revise.next(park_again)  # the loop: the revised version parks as the first one did
        # A request the run could not read waits as needs facts (held on the table, the operator alerted): the
        # execution ends there, not as a failure, and nothing is retried.
        read = (
            sfn.Choice(self, STATE_READ_OUTCOME)
            .when(
                # Every run output names its outcome: a Choice on a path that may be absent is brittle.
                sfn.Condition.string_equals("$.run.outcome", RUN_OUTCOME_NEEDS_FACTS),
                sfn.Succeed(
                    self,
                    STATE_NEEDS_FACTS,
                    comment="the request waits as needs facts for a person (request list); nothing was planned",
                ),
            )
            .otherwise(sfn.Chain.start(parked).next(decision_kind))
        )
        definition = run_agent.next(read)

        stack = Stack.of(self)
        self.log_group = logs.LogGroup(
            self,
            "Logs",
            log_group_name=f"{VENDED_LOGS_PREFIX}{stack.stack_name}-{construct_id}",
            retention=retention(settings.log_retention_days),
            removal_policy=RemovalPolicy.DESTROY,
        )
        self.state_machine = sfn.StateMachine(
            self,
            "StateMachine",
            state_machine_type=sfn.StateMachineType.STANDARD,
            definition_body=sfn.DefinitionBody.from_chainable(definition),
            timeout=Duration.seconds(self._execution_timeout(settings, functions.run_timeout_seconds)),
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=self.log_group,
                level=sfn.LogLevel.ALL,
                # Execution data would carry the task token in the WaitForHumanDecision parameters.
                include_execution_data=False,
            ),
        )
        output(self, "StateMachineArn", self.state_machine.state_machine_arn, "start runs here (start-execution)")
        role = self.state_machine.role
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::*]",
            "Log delivery (logs:*LogDelivery*, DescribeLogGroups...) and X-Ray trace actions do not "
            "support resource-level permissions.",
        )
        stack = Stack.of(self)
        invoked = (functions.run_agent, functions.request_approval, functions.resume_agent, functions.record_expiry)
        for fn in (*invoked, *(f for f in (sender, reminders) if f is not None)):
            logical_id = stack.get_logical_id(fn.node.default_child)  # type: ignore[arg-type]
            acknowledge(
                role,
                f"AwsSolutions-IAM5[Resource::<{logical_id}.Arn>:*]",
                "CDK grants invoke on the function and its versions/aliases (:*); the state machine "
                "can invoke exactly these functions and nothing else.",
            )
