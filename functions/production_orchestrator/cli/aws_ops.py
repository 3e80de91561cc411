"""Operator commands against a deployed stack:
``python -m production_orchestrator.cli.aws_ops audit-verify --table T``.

Uses the default AWS credential chain (and ``AWS_ENDPOINT_URL`` when set). Prints ``AUDIT_CHAIN=intact`` or
``AUDIT_CHAIN=broken`` with ``BROKEN_AT=<position>`` and the reason; exit 0 intact, 5 broken, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..domain.audit_chain import verify_chain
from ..domain.errors import OrchestratorError
from ..domain.ports import ShopStore


def audit_verify(table: str) -> int:
    """Check the hash chain of the audit trail in ``table``."""
    import boto3  # type: ignore[import-untyped]

    from ..adapters.aws.boto_config import BOTO_CONFIG
    from ..adapters.aws.dynamodb_store import DynamoShopStore

    return print_chain_report(DynamoShopStore(boto3.Session().client("dynamodb", config=BOTO_CONFIG), table))


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
    args = parser.parse_args(argv)
    try:
        return audit_verify(args.table)
    except OrchestratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
