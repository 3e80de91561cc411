"""Operator commands against a deployed stack (``python -m production_orchestrator.cli.aws_ops ...``):

    audit-verify --table T [--audit-key ID] [--receipt-key ID]
                                     the keyed chain and every vote's receipt: AUDIT_CHAIN=intact, or
                                     broken with BROKEN_AT=<position>, BROKEN_SEQ=<seq> and the reason
    wake-decided --table T           the reconciler: wakes every decided approval whose workflow was
                                     never told
    shop-import  --table T PATH|-    create or replace the table's shop from a shop file (same checks as
                                     ``shop import``: every problem by JSON path, exit 2, nothing written)
    shop-export  --table T PATH|-    the table's shop as a shop file
    relink --table T --topic-arn ARN --link-base URL --approval ID --approver EMAIL [--audit-key ID]
                                     a new link for one approver of an open approval, sent by SNS as the
                                     first one was; their old link stops working (audited, no secret)
    shop-receive --table T MATERIAL QTY [--ref TEXT]
                                     a delivery (same rule as ``shop receive``)
    order-complete --table T ID | order-cancel --table T ID --reason TEXT |
    order-progress --table T ID --minutes N
                                     the operator's changes of one order (same rules as ``order ...``)

Uses the default AWS credential chain (and ``AWS_ENDPOINT_URL`` when set). Exit 0 done (chain intact),
5 chain broken, 2 bad input. The keys default to ``PO_AUDIT_KEY_ID`` / ``PO_RECEIPT_KEY_ID``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ..contracts import ENV_AUDIT_KEY_ID, ENV_RECEIPT_KEY_ID
from ..domain.errors import OrchestratorError, ValidationError
from ..domain.ports import ApprovalStore, MacKey, ShopStore
from ..domain.shop.file_format import write_shop
from ..services.shop.importing import import_shop
from .printers import print_chain_report


def table_store(table: str) -> ShopStore:
    """The shop store of a deployed table."""
    return _aws(table, "", "")[0]


def shop_import(table: str, path: str, *, dry_run: bool = False, replace: bool = False) -> int:
    """Create or change the table's shop to the shop file at ``path`` (``-``: stdin); the same guard and
    ``--dry-run`` as ``shop import``."""
    from .files import parse_shop_file, read_text
    from .printers import dry_run_report, report_import

    state = parse_shop_file(read_text(path, "shop file"))
    if dry_run:
        return dry_run_report(table_store(table), state)
    return report_import(import_shop(table_store(table), state, datetime.now(UTC), replace=replace), state)


def shop_change(table: str, args: argparse.Namespace) -> int:
    """``shop-receive`` and ``order-*`` on the table: the same lifecycle steps as the local commands."""
    from ..services.shop import life as shop_life
    from .printers import report_change

    store, now = table_store(table), datetime.now(UTC)
    if args.command == "shop-receive":
        applied = shop_life.receive(store, args.material, args.quantity, args.ref, now)
        return report_change(applied, material=applied.change.detail["material_id"])
    if args.command == "order-complete":
        applied = shop_life.complete(store, args.order_id, now)
    elif args.command == "order-cancel":
        applied = shop_life.cancel(store, args.order_id, args.reason, now)
    else:
        applied = shop_life.progress(store, args.order_id, args.minutes, now)
    return report_change(applied, order=applied.change.detail["order_id"])


def shop_export(table: str, path: str) -> int:
    """Write the table's shop as a shop file."""
    from .files import write_shop_file

    state = table_store(table).load_state()
    if state is None:
        raise ValidationError(f"table {table} holds no shop yet (shop-import first)")
    write_shop_file(write_shop(state), path)
    return 0


def _aws(
    table: str, audit_key_id: str, receipt_key_id: str
) -> tuple[ShopStore, ApprovalStore, MacKey | None, MacKey | None, object]:
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


def wake_decided(table: str) -> int:
    """The reconciler: wake every decided approval whose workflow was never told; print what happened."""
    from ..adapters.aws.boto_config import SEND_TASK_CONFIG
    from ..adapters.aws.step_functions import StepFunctionsCallback
    from ..services.deciding.wake import reconcile

    _, approvals, _, _, session = _aws(table, "", "")
    callback = StepFunctionsCallback(session.client("stepfunctions", config=SEND_TASK_CONFIG))  # type: ignore[attr-defined]
    outcomes = reconcile(approvals, callback, datetime.now(UTC))
    for approval_id, outcome in sorted(outcomes.items()):
        print(f"WAKE {approval_id}={outcome}")
    print(f"WOKEN={sum(1 for o in outcomes.values() if o == 'woken')}")
    return 0


def relink_aws(args: argparse.Namespace) -> int:
    """``approvals relink`` against the deployed table: the new link goes out through the approval topic."""
    from ..adapters.aws.boto_config import BOTO_CONFIG
    from ..adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from ..adapters.aws.dynamodb_store import DynamoShopStore
    from ..adapters.aws.sns_notifier import SnsApprovalNotifier
    from ..services.asking.relink import relink

    _, _, audit_key, _, session = _aws(args.table, args.audit_key, "")
    dynamodb = session.client("dynamodb", config=BOTO_CONFIG)  # type: ignore[attr-defined]
    done = relink(
        DynamoShopStore(dynamodb, args.table, audit_key=audit_key),  # the keyed chain goes on with its key
        DynamoApprovalStore(dynamodb, args.table),
        SnsApprovalNotifier(session.client("sns", config=BOTO_CONFIG), args.topic_arn),  # type: ignore[attr-defined]
        approval_id=args.approval.strip().lower(),
        approver=args.approver,
        link_base_url=args.link_base,
        now=datetime.now(UTC),
    )
    print(f"APPROVAL_ID={done.approval_id}")
    print(f"APPROVER={done.approver}")
    print("SENT=sns")  # the link itself only in the message
    return 0


def _change_parsers(sub: Any) -> None:
    from .inputs import whole

    receive = sub.add_parser("shop-receive", help="a delivery: on hand grows, its procurement lines close")
    receive.add_argument("material", metavar="MATERIAL")
    receive.add_argument("quantity", type=whole, metavar="QTY")
    receive.add_argument("--ref", default="", metavar="TEXT")
    for name in ("order-complete", "order-cancel", "order-progress"):
        command = sub.add_parser(name, help=f"{name.replace('-', ' ')} (as the local command)")
        command.add_argument("order_id", metavar="ID")
        if name == "order-cancel":
            command.add_argument("--reason", required=True, metavar="TEXT")
        if name == "order-progress":
            command.add_argument("--minutes", required=True, type=whole, metavar="N")
    for command in (receive, *(sub.choices[n] for n in ("order-complete", "order-cancel", "order-progress"))):
        command.add_argument("--table", required=True, help="the DynamoDB table (PO_TABLE_NAME)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one operator command."""
    parser = argparse.ArgumentParser(prog="python -m production_orchestrator.cli.aws_ops", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    verify = sub.add_parser("audit-verify", help="check the keyed audit chain and every vote's receipt")
    verify.add_argument("--table", required=True, help="the DynamoDB table (PO_TABLE_NAME)")
    verify.add_argument("--audit-key", default=os.environ.get(ENV_AUDIT_KEY_ID, ""), help="KMS key of the chain")
    verify.add_argument("--receipt-key", default=os.environ.get(ENV_RECEIPT_KEY_ID, ""), help="KMS key of receipts")
    wake = sub.add_parser("wake-decided", help="wake decided approvals whose workflow was never told")
    wake.add_argument("--table", required=True)
    for name, help_text in (("shop-import", "create or change the shop from a shop file"), ("shop-export", "")):
        command = sub.add_parser(name, help=help_text or "write the shop as a shop file")
        command.add_argument("--table", required=True, help="the DynamoDB table (PO_TABLE_NAME)")
        command.add_argument("path", metavar="PATH|-")
        if name == "shop-import":
            command.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
            command.add_argument("--replace", action="store_true", help="import even when plans rely on it")
    _change_parsers(sub)
    again = sub.add_parser("relink", help="a new link for one approver (sent by SNS); their old one stops working")
    again.add_argument("--table", required=True, help="the DynamoDB table (PO_TABLE_NAME)")
    again.add_argument("--topic-arn", required=True, help="the approval topic (PO_TOPIC_ARN)")
    again.add_argument("--link-base", required=True, help="the decision endpoint's URL (PO_LINK_BASE_URL)")
    again.add_argument("--approval", required=True, help="the approval id")
    again.add_argument("--approver", required=True, help="who gets the new link")
    again.add_argument("--audit-key", default=os.environ.get(ENV_AUDIT_KEY_ID, ""), help="KMS key of the chain")
    args = parser.parse_args(argv)
    try:
        if args.command == "relink":
            return relink_aws(args)
        if args.command == "shop-import":
            return shop_import(args.table, args.path, dry_run=args.dry_run, replace=args.replace)
        if args.command in ("shop-receive", "order-complete", "order-cancel", "order-progress"):
            return shop_change(args.table, args)
        if args.command == "shop-export":
            return shop_export(args.table, args.path)
        if args.command == "wake-decided":
            return wake_decided(args.table)
        store, approvals, audit_key, receipt_key, _ = _aws(args.table, args.audit_key, args.receipt_key)
        return print_chain_report(store, approvals, audit_key=audit_key, receipt_key=receipt_key)
    except OrchestratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
