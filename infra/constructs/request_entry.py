"""Requests in, with an identity: the submit function behind a Function URL that only IAM-signed calls reach.

    production-orchestrator submit (SigV4, the caller's credentials) -> SubmitUrl (AWS_IAM) -> submit
        -> Submission(requested_by = the caller Lambda verified) in the table -> StartExecution(name)

Who may call is whoever holds both ``lambda:InvokeFunctionUrl`` and ``lambda:InvokeFunction`` on this function
(``SubmitFunctionArn``; Function URLs created since October 2025 check both) in an identity policy of this
account; who that caller is, the ``submitters`` map says (an unmapped caller is refused).
Its role may only put items into the table and start executions of the one state machine.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from ..constants import ENV_STATE_MACHINE_ARN, ENV_SUBMITTERS, SUBMIT_HANDLER
from ..outputs import output
from ..permissions import TABLE_ACCESS
from ..settings import Settings
from .agent_functions import AgentFunctions
from .state_store import StateStore

SUBMIT_STATE_ACTIONS = ("states:StartExecution",)
SUBMIT_URL_OUTPUT = "SubmitUrl"  # the stack output `production-orchestrator submit --stack` reads
SUBMIT_FUNCTION_OUTPUT = "SubmitFunctionArn"  # the resource of the submitters' invoke permission (deploy guide)
# What a submitter's identity policy must allow on SubmitFunctionArn for a signed POST to reach the function.
SUBMITTER_ACTIONS = ("lambda:InvokeFunctionUrl", "lambda:InvokeFunction")


class RequestEntry(Construct):
    """The submit function, its IAM-authenticated URL and the stack output naming it."""

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
        self.function = functions.add_strands_free(
            "Submit", SUBMIT_HANDLER, "starts a run for a signed request, recording who sent it", Duration.seconds(15)
        )
        self.function.add_environment(ENV_STATE_MACHINE_ARN, state_machine.state_machine_arn)
        # Who a signed caller is: only principals this map names may submit (an unmapped one is refused).
        self.function.add_environment(ENV_SUBMITTERS, settings.submitters_json)
        store.grant_table(self.function, TABLE_ACCESS["submit"])
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=list(SUBMIT_STATE_ACTIONS), resources=[state_machine.state_machine_arn])
        )
        self.url = self.function.add_function_url(auth_type=lambda_.FunctionUrlAuthType.AWS_IAM)
        # At the stack level, so the output key is exactly SubmitUrl for the CLI to find.
        CfnOutput(Stack.of(self), SUBMIT_URL_OUTPUT, value=self.url.url, description="POST signed requests here")
        output(
            self,
            SUBMIT_FUNCTION_OUTPUT,
            self.function.function_arn,
            f"the function behind SubmitUrl: grant submitters {' and '.join(SUBMITTER_ACTIONS)} on it",
        )
