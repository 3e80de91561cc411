"""The operator function: the CLI's ``--table`` shop writes get their audit-chain MACs from it, because the audit
key's ``GenerateMac`` belongs to the stack's functions only (the key policy withholds it from the account).

    production-orchestrator --table T --operator-function F shop import|receive, order complete|cancel|progress
        -> lambda:InvokeFunction F {link or head message} -> MAC (operator events only, after the stored head)

Its role: GenerateMac on the audit key and GetItem on the audit partition (the stored head), nothing else. Who
may invoke it is whoever the account's identity policies allow ``lambda:InvokeFunction`` on
``OperatorFunctionName`` (the operators).

The table carries a tag naming the function (``OPERATOR_FUNCTION_TAG``), so ``--table T`` alone finds it. The
function's name is therefore set, ``<stack name>-operator-audit``: a tag holding a reference to a generated name
would make the table depend on the function, which depends on the table (its environment, its role).
"""

from __future__ import annotations

from aws_cdk import Duration, Stack, Tags
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from production_orchestrator.contracts import OPERATOR_FUNCTION_TAG

from ..constants import SIGN_OPERATOR_AUDIT_HANDLER
from ..outputs import output
from ..permissions import AUDIT_KEY_ACTIONS, TABLE_ACCESS
from .agent_functions import AgentFunctions
from .state_store import StateStore

OPERATOR_FUNCTION_OUTPUT = "OperatorFunctionName"
OPERATOR_FUNCTION_ARN_OUTPUT = "OperatorFunctionArn"
# A Lambda function's name is at most 64 characters (the stack's name is at most 43: infra/settings.py).
MAX_FUNCTION_NAME = 64


def operator_function_name(stack_name: str) -> str:
    """The operator function's name in the stack ``stack_name`` (one per shop, like every physical name)."""
    name = f"{stack_name}-operator-audit"
    assert len(name) <= MAX_FUNCTION_NAME, name
    return name


class OperatorAccess(Construct):
    """The operator function and the output naming it."""

    def __init__(self, scope: Construct, construct_id: str, *, store: StateStore, functions: AgentFunctions) -> None:
        super().__init__(scope, construct_id)
        self.function = functions.add_strands_free(
            "OperatorAudit",
            SIGN_OPERATOR_AUDIT_HANDLER,
            "MACs the audit events of the operator's own shop writes",
            Duration.seconds(15),
        )
        name = operator_function_name(Stack.of(self).stack_name)
        cfn = self.function.node.default_child
        assert isinstance(cfn, lambda_.CfnFunction)
        cfn.function_name = name
        Tags.of(store.table).add(OPERATOR_FUNCTION_TAG, name)
        store.grant_table(self.function, TABLE_ACCESS["sign_operator_audit"])
        functions.grant_key(functions.audit_key, self.function, AUDIT_KEY_ACTIONS["sign_operator_audit"])
        output(
            Stack.of(self),
            OPERATOR_FUNCTION_OUTPUT,
            self.function.function_name,
            "the operator function, which MACs the CLI's --table shop writes (the table's tag names it)",
        )
        output(
            Stack.of(self),
            OPERATOR_FUNCTION_ARN_OUTPUT,
            self.function.function_arn,
            "the resource of the operators' lambda:InvokeFunction permission (deploy guide, step 6)",
        )
        # audit verify --audit-key / --receipt-key: the operators' kms:VerifyMac (the key policies give the account
        # VerifyMac, never GenerateMac), on the keys named here.
        for name, key, what in (
            ("AuditKeyArn", functions.audit_key, "audit chain"),
            ("ReceiptKeyArn", functions.receipt_key, "vote receipts"),
        ):
            output(
                Stack.of(self), name, key.key_arn, f"the {what}' HMAC key: audit verify and the operators' VerifyMac"
            )
