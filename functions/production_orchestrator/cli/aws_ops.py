"""Operator commands against a deployed stack (``python -m production_orchestrator.cli.aws_ops ...``):

    audit-verify --table T           AUDIT_CHAIN=intact, or broken with BROKEN_AT=<position>; exit 0 / 5
    shop-import  --table T PATH|-    create or replace the table's shop from a shop file (same checks as
                                     ``shop import``: every problem by JSON path, exit 2, nothing written)
    shop-export  --table T PATH|-    the table's shop as a shop file

Uses the default AWS credential chain (and ``AWS_ENDPOINT_URL`` when set); exit 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from ..domain.audit_chain import verify_chain
from ..domain.errors import OrchestratorError, ValidationError
from ..domain.ports import ShopStore
from ..domain.shop_file import write_shop
from ..lifecycle.shop_import import import_shop


def table_store(table: str) -> ShopStore:
    """The shop store of a deployed table."""
    import boto3  # type: ignore[import-untyped]

    from ..adapters.aws.boto_config import BOTO_CONFIG
    from ..adapters.aws.dynamodb_store import DynamoShopStore

    return DynamoShopStore(boto3.Session().client("dynamodb", config=BOTO_CONFIG), table)


def audit_verify(table: str) -> int:
    """Check the hash chain of the audit trail in ``table``."""
    return print_chain_report(table_store(table))


def shop_import(table: str, path: str) -> int:
    """Create or replace the table's shop from the shop file at ``path`` (``-``: stdin)."""
    from .shop import parse_shop_file, read_text, report_import

    state = parse_shop_file(read_text(path, "shop file"))
    return report_import(import_shop(table_store(table), state, datetime.now(UTC)), state)


def shop_export(table: str, path: str) -> int:
    """Write the table's shop as a shop file."""
    from .shop import emit

    state = table_store(table).load_state()
    if state is None:
        raise ValidationError(f"table {table} holds no shop yet (shop-import first)")
    emit(write_shop(state), path)
    return 0


def print_chain_report(store: ShopStore) -> int:
    """Verify ``store``'s audit chain and print the verdict (shared with the local ``audit verify``)."""
    events, head = store.raw_audit_trail()
    report = verify_chain(events, head)
    print(f"AUDIT_EVENTS={report.events}")
    if report.intact:
        print("AUDIT_CHAIN=intact")
        return 0
    print("AUDIT_CHAIN=broken")
    print(f"BROKEN_AT={report.broken_at}")
    print(f"error: {report.problem}", file=sys.stderr)
    return 5


def main(argv: Sequence[str] | None = None) -> int:
    """Run one operator command."""
    parser = argparse.ArgumentParser(prog="python -m production_orchestrator.cli.aws_ops", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    verify = sub.add_parser("audit-verify", help="check the audit trail's hash chain")
    verify.add_argument("--table", required=True, help="the DynamoDB table (PO_TABLE_NAME)")
    for name, help_text in (("shop-import", "create or replace the shop from a shop file"), ("shop-export", "")):
        command = sub.add_parser(name, help=help_text or "write the shop as a shop file")
        command.add_argument("--table", required=True, help="the DynamoDB table (PO_TABLE_NAME)")
        command.add_argument("path", metavar="PATH|-")
    args = parser.parse_args(argv)
    try:
        if args.command == "shop-import":
            return shop_import(args.table, args.path)
        if args.command == "shop-export":
            return shop_export(args.table, args.path)
        return audit_verify(args.table)
    except OrchestratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
