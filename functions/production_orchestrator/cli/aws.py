"""The AWS side of the same commands: ``--table NAME`` runs an operator command on a deployed stack's DynamoDB
table instead of the data dir.

    --table T shop import|export|receive ...     the table's shop (same checks and output as on the data dir)
    --table T order complete|cancel|progress ...  the operator's changes of one order
    --table T audit verify [--audit-key ID] [--receipt-key ID]
                                                  the keyed chain and every vote's receipt (exit 5 broken)
    --table T approvals relink --topic-arn ARN --link-base URL --approval ID --approver EMAIL
                                                  a new link for one approver, sent by SNS as the first was
    --table T request list [--all] [--json]       the held requests (a received e-mail that needs facts)
    --table T approvals wake                      the reconciler: wakes every decided approval whose workflow
                                                  was never told

``--table`` (and the keys) may stand before or after the command words; a command with no AWS meaning refuses
it. The default AWS credential chain is used (and ``AWS_ENDPOINT_URL`` when set); the keys default to
``PO_AUDIT_KEY_ID`` / ``PO_RECEIPT_KEY_ID``. The shop writes find the stack's operator function by the table's
tag, and refuse to break a keyed chain without it (cli/operator_key.py). boto3 is imported only when a command
runs on a table.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contracts import ENV_AUDIT_KEY_ID, ENV_OPERATOR_FUNCTION, ENV_RECEIPT_KEY_ID, OPERATOR_FUNCTION_TAG
from ..domain.errors import ValidationError
from .operator_key import operator_function, write_signer

if TYPE_CHECKING:
    from ..bootstrap import AwsPort
    from ..services.runtime import Runtime

# The commands ``--table`` works with, as the refusal of any other command names them.
AWS_COMMANDS = (
    "shop import|export|receive, order complete|cancel|progress, audit verify, approvals relink|wake, request list"
)


def add_table_flag(
    parser: argparse.ArgumentParser, *, keys: tuple[str, ...] = ("operator",), aws_only: bool = False
) -> None:
    """``--table`` (and ``--audit-key`` / ``--receipt-key`` when ``keys`` names them) on ``parser``; SUPPRESS as
    default, so a value given before the command survives (``aws_only``: the command needs it, and says so when
    it runs). The command is marked as one with an AWS meaning."""
    group = parser.add_argument_group("on AWS (a deployed stack's table instead of the data dir)")
    _add_flags(
        group,
        "the stack's DynamoDB table (its TableName output, PO_TABLE_NAME)"
        + (" (required)" if aws_only else ": run this command there instead of on the data dir"),
        keys,
    )
    parser.set_defaults(aws=True)


def add_global_table_flags(parser: argparse.ArgumentParser) -> None:
    """``--table``, ``--audit-key``, ``--receipt-key`` before the command words."""
    group = parser.add_argument_group("on AWS (operator commands on a deployed stack)")
    _add_flags(
        group,
        f"run the command on this DynamoDB table instead of the data dir ({AWS_COMMANDS})",
        ("audit", "receipt", "operator"),
        key_prefix="with --table: ",
    )


def _add_flags(group: Any, table_help: str, keys: tuple[str, ...], *, key_prefix: str = "") -> None:
    """The one definition of ``--table`` and the key flags, wherever they stand (SUPPRESS: a value given before
    the command words survives the sub-parser)."""
    group.add_argument("--table", default=argparse.SUPPRESS, metavar="NAME", help=table_help)
    group.add_argument(
        "--region",
        default=argparse.SUPPRESS,
        metavar="REGION",
        help=f"{key_prefix}the stack's region (default: $AWS_REGION, the profile's)",
    )
    group.add_argument(
        "--profile",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help=f"{key_prefix}the AWS profile (default: $AWS_PROFILE)",
    )
    if "operator" in keys:
        group.add_argument(
            "--operator-function",
            default=argparse.SUPPRESS,
            metavar="NAME",
            help=f"{key_prefix}the stack's OperatorFunctionName output: it MACs the shop writes' audit events "
            f"(default: ${ENV_OPERATOR_FUNCTION}, else the one the table's {OPERATOR_FUNCTION_TAG} tag names)",
        )
        group.add_argument(
            "--unkeyed",
            action="store_true",
            default=argparse.SUPPRESS,
            help=f"{key_prefix}write without the operator function: the audit event carries no MAC (warned), "
            "and a keyed `audit verify` reports the chain broken there; without it a write on a keyed chain "
            "that finds no operator function is refused (NO_OPERATOR_FUNCTION)",
        )
    for key, flag, what, variable in (
        ("audit", "--audit-key", "the audit chain", ENV_AUDIT_KEY_ID),
        ("receipt", "--receipt-key", "the vote receipts", ENV_RECEIPT_KEY_ID),
    ):
        if key in keys:
            group.add_argument(
                flag,
                default=argparse.SUPPRESS,
                metavar="ID",
                help=f"{key_prefix}the KMS key of {what} (default: ${variable})",
            )


def required_table(args: argparse.Namespace, what: str) -> str:
    """The table of a command that only runs on AWS, else ValidationError saying so."""
    table = table_of(args)
    if table is None:
        raise ValidationError(f"{what} runs on a deployed stack: pass --table NAME (its TableName output)")
    return table


def table_of(args: argparse.Namespace) -> str | None:
    """The table ``--table`` names (before or after the command), or None: the data dir."""
    table = getattr(args, "table", None)
    return str(table) if table is not None else None


def audit_key_id(args: argparse.Namespace) -> str:
    """``--audit-key``, else ``$PO_AUDIT_KEY_ID``, else "" (no key)."""
    return str(getattr(args, "audit_key", None) or os.environ.get(ENV_AUDIT_KEY_ID, ""))


def receipt_key_id(args: argparse.Namespace) -> str:
    """``--receipt-key``, else ``$PO_RECEIPT_KEY_ID``, else "" (no key)."""
    return str(getattr(args, "receipt_key", None) or os.environ.get(ENV_RECEIPT_KEY_ID, ""))


def table_runtime(
    table: str,
    *ports: AwsPort,
    audit_key_id: str = "",
    receipt_key_id: str = "",
    topic_arn: str = "",
    args: argparse.Namespace | None = None,
) -> Runtime:
    """The runtime of a deployed table (bootstrap.aws): its stores, the keys named (none: unkeyed) and ``ports``,
    on the session ``args`` name (``--region``, ``--profile``, else ``$AWS_REGION``, the profile's region, the
    credential chain). With ``--operator-function`` (``$PO_OPERATOR_FUNCTION``) audit events are MACed by the
    stack's operator function, which holds the audit key; a shop write takes :func:`write_runtime` instead."""
    from ..bootstrap import AwsTarget, aws

    target = AwsTarget(
        table_name=table,
        audit_key_id=audit_key_id or None,
        receipt_key_id=receipt_key_id or None,
        topic_arn=topic_arn or None,
        operator_function=operator_function(args) or None,
    )
    return aws(target, ports=ports, session=aws_session(args))


def write_runtime(args: argparse.Namespace, table: str, *ports: AwsPort, topic_arn: str = "") -> Runtime:
    """The runtime of an operator's write on ``table`` (a shop write, a relink): its audit events MACed by the
    operator function cli/operator_key.py finds (or the write refused, or warned, before anything is written)."""
    from ..adapters.aws.boto_config import BOTO_CONFIG
    from ..bootstrap import AwsTarget, aws

    session = aws_session(args)
    signer = write_signer(args, table, session.client("dynamodb", config=BOTO_CONFIG))
    target = AwsTarget(table_name=table, operator_function=signer or None, topic_arn=topic_arn or None)
    return aws(target, ports=ports, session=session)


def aws_session(args: argparse.Namespace | None) -> Any:
    """The boto3 session of ``--region`` / ``--profile`` (else ``$AWS_REGION``, the profile's, the chain)."""
    import boto3  # type: ignore[import-untyped]

    region, profile = aws_region(args), aws_profile(args)
    return boto3.Session(profile_name=profile or None, region_name=region or None)


def aws_region(args: argparse.Namespace | None) -> str:
    """``--region``, else ``$AWS_REGION`` (which boto3 itself does not read), else "" (the profile's, or
    ``$AWS_DEFAULT_REGION``)."""
    return str(getattr(args, "region", None) or os.environ.get("AWS_REGION", ""))


def aws_profile(args: argparse.Namespace | None) -> str:
    """``--profile``, else "" (``$AWS_PROFILE`` or the default profile, as boto3 reads them)."""
    return str(getattr(args, "profile", None) or "")


def shop_runtime(args: argparse.Namespace, where: Path) -> Runtime:
    """The runtime of the data dir ``where``, or with ``--table`` of the deployed table (a shop write's)."""
    from .root import local_runtime

    table = table_of(args)
    if table is None:
        return local_runtime(where, create=False)
    return write_runtime(args, table)
