"""Which operator function MACs an operator's write on a deployed table (``--table``), decided before anything is
written, so that a keyed audit chain is never broken by habit:

    --unkeyed                                       -> none, warned (with --operator-function: refused as usage)
    --operator-function F, else $PO_OPERATOR_FUNCTION -> F
    the table's tag production-orchestrator:operator-function (the stack sets it) -> that function
    none known, the chain keyed (its head carries a MAC) -> NO_OPERATOR_FUNCTION, nothing written
    none known, the chain empty or unkeyed           -> none, warned (a chain that was never keyed stays so)

A function known but not reachable refuses at its first MAC, before the write (OPERATOR_FUNCTION_UNREACHABLE,
adapters/aws/operator_signer.py). Read-only commands ask none of this.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..contracts import ENV_OPERATOR_FUNCTION, OPERATOR_FUNCTION_TAG
from ..domain.errors import AuditKeyCode, BackendError, UnkeyedWriteRefusedError, ValidationError

_BROKEN = "a keyed `audit verify` will report the chain broken at it"


def operator_function(args: argparse.Namespace | None) -> str:
    """``--operator-function``, else ``$PO_OPERATOR_FUNCTION``, else "" (none named)."""
    return str(getattr(args, "operator_function", None) or os.environ.get(ENV_OPERATOR_FUNCTION, ""))


def write_signer(args: argparse.Namespace, table: str, dynamodb: Any) -> str:
    """The operator function the write on ``table`` MACs its audit events with, "" for an unkeyed write (warned
    on stderr first); UnkeyedWriteRefusedError when the chain is keyed and no function is known. ``dynamodb``
    reads the table's tags and its chain head."""
    from ..adapters.aws.operator_signer import chain_keyed, tagged_operator_function

    if getattr(args, "unkeyed", False):
        if getattr(args, "operator_function", None):
            raise ValidationError("--unkeyed and --operator-function: choose one")
        _warn(f"warning: --unkeyed: this write's audit event carries no MAC, and {_BROKEN} if the chain is keyed")
        return ""
    named = operator_function(args)
    if named:
        return named
    try:
        tagged, unread = tagged_operator_function(dynamodb, table), ""
    except BackendError as exc:  # no ListTagsOfResource (or DescribeTable): decided by the chain, and said why
        tagged, unread = "", f" ({exc})"
    if tagged:
        return tagged
    untagged = f"table {table} has no {OPERATOR_FUNCTION_TAG} tag{unread}"
    if chain_keyed(dynamodb, table):
        raise UnkeyedWriteRefusedError(
            AuditKeyCode.NO_OPERATOR_FUNCTION,
            f"the audit chain of table {table} is keyed (its head carries a MAC), and no operator function is "
            f"known: {untagged}, and neither --operator-function nor ${ENV_OPERATOR_FUNCTION} names one. Pass "
            "--operator-function with the stack's OperatorFunctionName output (or set the variable); --unkeyed "
            f"writes without a MAC, and {_BROKEN}. Nothing was written.",
        )
    _warn(
        f"warning: no --operator-function (${ENV_OPERATOR_FUNCTION}) and {untagged}: this write's audit event "
        f"carries no MAC, and {_BROKEN}; pass the stack's OperatorFunctionName"
    )
    return ""


def _warn(message: str) -> None:
    # stderr, before the write: stdout stays the command's KEY=value lines.
    print(message, file=sys.stderr)
