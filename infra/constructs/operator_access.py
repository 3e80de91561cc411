"""The operator function: the CLI's ``--table`` shop writes get their audit-chain MACs from it, because the audit
key's ``GenerateMac`` belongs to the stack's functions only (the key policy withholds it from the account).

    production-orchestrator --table T --operator-function F shop import|receive, order complete|cancel|progress
        -> lambda:InvokeFunction F {link or head message} -> MAC (operator events only, after the stored head)

Its role: GenerateMac on the audit key and GetItem on the audit partition (the stored head), nothing else. Who
may invoke it is whoever the account's identity policies allow ``lambda:InvokeFunction`` on
``OperatorFunctionName`` (the operators).
"""

from __future__ import annotations

from aws_cdk import Duration, Stack
from constructs import Construct

from ..constants import SIGN_OPERATOR_AUDIT_HANDLER
from ..outputs import output
from ..permissions import AUDIT_KEY_ACTIONS, TABLE_ACCESS
from .agent_functions import AgentFunctions
from .state_store import StateStore

OPERATOR_FUNCTION_OUTPUT = "OperatorFunctionName"


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
        store.grant_table(self.function, TABLE_ACCESS["sign_operator_audit"])
        functions.grant_key(functions.audit_key, self.function, AUDIT_KEY_ACTIONS["sign_operator_audit"])
        output(
            Stack.of(self),
            OPERATOR_FUNCTION_OUTPUT,
            self.function.function_name,
            "the operator function: pass it as --operator-function to the CLI's --table shop writes",
        )
