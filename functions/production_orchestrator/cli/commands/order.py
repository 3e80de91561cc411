"""``order`` commands: the shop's orders with their status, and the operator's changes of one order.

order list [--json]                  every order (scheduled, at risk, complete, cancelled) and the requests
                                     whose plan waits for a decision
order complete ID [--as-of DAY]      made: it leaves the schedule, its machine-days free up
order cancel ID --reason TEXT        its machine-days and reserved material free up
order progress ID --minutes N        work done: N scheduled minutes go, earliest first

Each change is one audited write (exit 0, ``STATE_REVISION=`` and ``STALE_PLANS=``); bad input is one
``error: CODE: ...`` line, exit 2, and nothing written. With ``--table NAME`` complete, cancel and progress
run on a deployed stack's table (cli/aws.py) instead of the data dir.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from ...domain.errors import ValidationError
from .. import inputs
from ..aws import add_table_flag, shop_runtime
from ..output import EXIT_OK, emit_json
from ..parser import GROUP_SHOP, actions, command, data_dir
from ..printers import report_change
from ..root import local_runtime

GROUP = GROUP_SHOP
# The operator commands' old spellings (python -m production_orchestrator.cli.aws_ops order-complete ...).
ALIASES = {f"order-{action}": ("order", action) for action in ("complete", "cancel", "progress")}


def _day(args: argparse.Namespace) -> str | None:
    if args.as_of is None:
        return None
    from ...domain.shop.model import check_day

    try:
        return check_day(args.as_of)
    except ValueError as exc:
        raise ValidationError(f"--as-of: {exc}") from None


def _as_of(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--as-of", default=None, metavar="YYYY-MM-DD", help=f"{what} (default: today in the shop)")


def _list(args: argparse.Namespace) -> int:
    from ...services.shop import life as shop_life
    from ...services.shop import order_list

    rt = local_runtime(data_dir(args), create=False)
    now = rt.clock()
    state = shop_life.current_shop(rt)
    pending = order_list.pending_rows(rt)
    rows = order_list.order_rows(state, _day(args) or state.today(now), pending)
    if args.json:
        orders = [asdict(r) for r in rows if not r.checkpoint]
        for row in orders:
            del row["checkpoint"]
        waiting = [
            {"order": r.order, "checkpoint": r.checkpoint, "customer": r.customer, "status": r.status}
            for r in rows
            if r.checkpoint
        ]
        emit_json({"revision": state.revision, "orders": orders, "pending": waiting})
        return EXIT_OK
    print(f"{'ORDER':<16} {'STATUS':<10} {'DUE':<10} {'QTY':>7} {'PRODUCT':<14} DETAIL")
    for r in rows:
        print(f"{r.order:<16} {r.status:<10} {r.due:<10} {r.quantity:>7} {r.product:<14} {r.detail}")
    return EXIT_OK


def _complete(args: argparse.Namespace) -> int:
    from ...services.shop import life as shop_life

    applied = shop_life.complete(shop_runtime(args, data_dir(args)), shop_life.Complete(args.order_id, _day(args)))
    return report_change(applied, order=applied.change.detail["order_id"], status="complete")


def _cancel(args: argparse.Namespace) -> int:
    from ...services.shop import life as shop_life

    applied = shop_life.cancel(
        shop_runtime(args, data_dir(args)), shop_life.Cancel(args.order_id, args.reason, _day(args))
    )
    return report_change(applied, order=applied.change.detail["order_id"], status="cancelled")


def _progress(args: argparse.Namespace) -> int:
    from ...services.shop import life as shop_life

    applied = shop_life.progress(shop_runtime(args, data_dir(args)), shop_life.Progress(args.order_id, args.minutes))
    detail = applied.change.detail
    return report_change(applied, order=detail["order_id"], scheduled_minutes=detail["scheduled_minutes"])


def register(subparsers: Any) -> None:
    """``order list``, ``order complete``, ``order cancel``, ``order progress``."""
    order = command(
        subparsers,
        "order",
        summary="list the orders, or record that one completed, was cancelled or made progress",
        description="The shop's orders with their status, and the operator's changes of one order. Each change "
        "is one audited write; plans whose footprint it touches become stale (propose again).",
        examples=["order list", "order complete ORD-1001", "order cancel ORD-1002 --reason 'customer withdrew'"],
    )
    order.set_defaults(on_interrupt=lambda _: "interrupted: a change is written whole or not at all; see order list")
    what = actions(order, metavar="ACTION", title="actions")
    listing = command(
        what,
        "list",
        summary="every order with its status, and the pending requests",
        description="Every order: scheduled, at risk (late, not scheduled, or short of material, with why), "
        "complete or cancelled; then each request whose plan waits for a decision. --json: one object with "
        "'orders' and 'pending' (order, checkpoint, customer, status).",
        examples=["order list", "order list --json"],
        handler=_list,
    )
    listing.add_argument("--json", action="store_true", help="one JSON object on stdout")
    _as_of(listing, "the day statuses are judged on")
    done = command(
        what,
        "complete",
        summary="the order is made: it leaves the schedule",
        description="The order leaves the schedule and its machine-days free up; material it still held in "
        "reserve (its first day is today or later) was used and leaves on hand.",
        examples=["order complete ORD-1001", "--table NAME order complete ORD-1001"],
        handler=_complete,
    )
    done.add_argument("order_id", metavar="ID", help="the order id")
    _as_of(done, "the day it was made")
    add_table_flag(done)
    cancel = command(
        what,
        "cancel",
        summary="cancel the order: its machine-days and reserved material free up",
        description="The order leaves the schedule with the reason; its machine-days and the material it reserved "
        "are free for other work.",
        examples=["order cancel ORD-1002 --reason 'customer withdrew'"],
        handler=_cancel,
    )
    cancel.add_argument("order_id", metavar="ID", help="the order id")
    cancel.add_argument("--reason", required=True, metavar="TEXT", help="why (kept with the order and in the audit)")
    _as_of(cancel, "the day it was cancelled")
    add_table_flag(cancel)
    prog = command(
        what,
        "progress",
        summary="record work done on the order",
        description="Work done: that many scheduled minutes are removed, earliest first. All of its work done is "
        "order complete.",
        examples=["order progress ORD-1001 --minutes 120"],
        handler=_progress,
    )
    prog.add_argument("order_id", metavar="ID", help="the order id")
    prog.add_argument("--minutes", required=True, type=inputs.whole, metavar="N", help="minutes of work done")
    add_table_flag(prog)
