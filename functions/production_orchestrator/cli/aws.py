"""The AWS side of the same commands: ``--table NAME`` runs an operator command on a deployed stack's DynamoDB
table instead of the data dir.

    --table T shop import|export|receive ...     the table's shop (same checks and output as on the data dir)
    --table T order complete|cancel|progress ...  the operator's changes of one order
    --table T audit verify [--audit-key ID] [--receipt-key ID]
                                                  the keyed chain and every vote's receipt (exit 5 broken)
    --table T approvals relink --topic-arn ARN --link-base URL --approval ID --approver EMAIL
                                                  a new link for one approver, sent by SNS as the first was
    --table T approvals wake                      the reconciler: wakes every decided approval whose workflow
                                                  was never told

``--table`` (and the keys) may stand before or after the command words; a command with no AWS meaning refuses
it. The default AWS credential chain is used (and ``AWS_ENDPOINT_URL`` when set); the keys default to
``PO_AUDIT_KEY_ID`` / ``PO_RECEIPT_KEY_ID``. boto3 is imported only when a command runs on a table.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..contracts import ENV_AUDIT_KEY_ID, ENV_RECEIPT_KEY_ID
from ..domain.errors import ValidationError
from ..domain.ports import ApprovalStore, MacKey, ShopStore
from .root import local_runtime

# The commands ``--table`` works with, as the refusal of any other command names them.
AWS_COMMANDS = "shop import|export|receive, order complete|cancel|progress, audit verify, approvals relink|wake"


def add_table_flag(parser: argparse.ArgumentParser, *, keys: tuple[str, ...] = (), aws_only: bool = False) -> None:
    """``--table`` (and ``--audit-key`` / ``--receipt-key`` when ``keys`` names them) on ``parser``; SUPPRESS as
    default, so a value given before the command survives (``aws_only``: the command needs it, and says so when
    it runs). The command is marked as one with an AWS meaning."""
    group = parser.add_argument_group("on AWS (a deployed stack's table instead of the data dir)")
    group.add_argument(
        "--table",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="the stack's DynamoDB table (its TableName output, PO_TABLE_NAME)"
        + (" (required)" if aws_only else ": run this command there instead of on the data dir"),
    )
    if "audit" in keys:
        group.add_argument(
            "--audit-key",
            default=argparse.SUPPRESS,
            metavar="ID",
            help=f"the KMS key of the audit chain (default: ${ENV_AUDIT_KEY_ID})",
        )
    if "receipt" in keys:
        group.add_argument(
            "--receipt-key",
            default=argparse.SUPPRESS,
            metavar="ID",
            help=f"the KMS key of the vote receipts (default: ${ENV_RECEIPT_KEY_ID})",
        )
    parser.set_defaults(aws=True)


def add_global_table_flags(parser: argparse.ArgumentParser) -> None:
    """``--table``, ``--audit-key``, ``--receipt-key`` before the command words."""
    group = parser.add_argument_group("on AWS (operator commands on a deployed stack)")
    group.add_argument(
        "--table",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help=f"run the command on this DynamoDB table instead of the data dir ({AWS_COMMANDS})",
    )
    group.add_argument(
        "--audit-key",
        default=argparse.SUPPRESS,
        metavar="ID",
        help=f"with --table: the KMS key of the audit chain (default: ${ENV_AUDIT_KEY_ID})",
    )
    group.add_argument(
        "--receipt-key",
        default=argparse.SUPPRESS,
        metavar="ID",
        help=f"with --table: the KMS key of the vote receipts (default: ${ENV_RECEIPT_KEY_ID})",
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


def table_stores(
    table: str, audit_key_id: str, receipt_key_id: str
) -> tuple[ShopStore, ApprovalStore, MacKey | None, MacKey | None, Any]:
    """The shop store, approval store, keys and boto3 session of a deployed table."""
    import boto3  # type: ignore[import-untyped]

    from ..adapters.aws.boto_config import BOTO_CONFIG
    from ..adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from ..adapters.aws.dynamodb_store import DynamoShopStore
    from ..adapters.aws.kms_mac import KmsMacKey

    session = boto3.Session()
    dynamodb = session.client("dynamodb", config=BOTO_CONFIG)
    kms = session.client("kms", config=BOTO_CONFIG) if (audit_key_id or receipt_key_id) else None
    audit_key = KmsMacKey(kms, audit_key_id) if audit_key_id else None
    receipt_key = KmsMacKey(kms, receipt_key_id) if receipt_key_id else None
    return DynamoShopStore(dynamodb, table), DynamoApprovalStore(dynamodb, table), audit_key, receipt_key, session


def table_store(table: str) -> ShopStore:
    """The shop store of a deployed table (the operator's shop writes build it without the audit key, as they
    always did)."""
    return table_stores(table, "", "")[0]


def shop_store(args: argparse.Namespace, where: Path) -> ShopStore:
    """The shop store of the data dir ``where``, or with ``--table`` of the deployed table."""
    table = table_of(args)
    return table_store(table) if table is not None else local_runtime(where, create=False).store
