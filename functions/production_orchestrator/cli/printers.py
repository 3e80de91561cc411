"""What several commands print the same way: a change of the shop (``shop receive``, ``order ...``, on the data
dir or on a table), an import and its dry run, the audit chain's verdict (``audit verify``), and the decision
history (``history``, ``audit show``).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from . import inputs
from .output import EXIT_AUDIT_BROKEN, EXIT_OK, READ_ONLY, emit_json, say, terminal_safe
from .parser import data_dir

if TYPE_CHECKING:  # the services load when a command runs, not when the parser is built
    from ..domain.shop.model import ShopState
    from ..services.runtime import Runtime
    from ..services.shop import life as shop_life
    from ..services.shop.importing import ImportResult


def report_change(applied: shop_life.Applied, **values: Any) -> int:
    """Print a written change: its ids, the revision and digest, the plans it made stale."""
    state = applied.change.state
    for key, value in values.items():
        print(f"{key.upper()}={value}")
    print(f"STATE_REVISION={state.revision}")
    print(f"DOMAIN_DIGEST={state.digest()}")
    print(f"STALE_PLANS={len(applied.stale_checkpoints)}")
    say(applied.change.summary)
    if applied.stale_checkpoints:
        say(f"{len(applied.stale_checkpoints)} pending plan(s) now stale: {', '.join(applied.stale_checkpoints)}")
    return EXIT_OK


def shortage_lines(state: ShopState) -> list[str]:
    """Material the shop's scheduled orders already lack (none of any customer's plan), with who waits for it."""
    from ..domain.presentation import describe_existing_shortages
    from ..services.shop.life import existing_shortages
    from .root import utc_now

    return describe_existing_shortages(existing_shortages(state, state.today(utc_now())))


def report_import(result: ImportResult, state: ShopState) -> int:
    """Print what an import did: ``SHOP=``, ``STATE_REVISION=``, ``DOMAIN_DIGEST=``, ``STALE_PLANS=``."""
    stale = len(result.stale_checkpoints)
    print(f"SHOP={result.state.name}")
    print(f"STATE_REVISION={result.state.revision}")
    print(f"DOMAIN_DIGEST={result.state.digest()}")
    print(f"STALE_PLANS={stale}")
    if not result.changed:
        print("the shop is already exactly this; nothing changed", file=sys.stderr)
    else:
        what = "created" if result.created else "changed"
        counts = f"{len(state.machines)} machines, {len(state.products)} products, {len(state.orders)} orders"
        tail = f"; {stale} pending plan(s) now stale: {', '.join(result.stale_checkpoints)}" if stale else ""
        print(f"shop {result.state.name!r} {what} ({counts}){tail}", file=sys.stderr)
        for line in result.diff.lines() if result.diff else []:
            say(f"  {line}")
    for line in shortage_lines(result.state):
        say(f"warning: already short before any new request: {line}")
    return 0


def dry_run_report(rt: Runtime, state: ShopState) -> int:
    """Print what the import would change and what it would need ``--replace`` for; write nothing."""
    from ..services.shop.importing import plan_import

    plan = plan_import(rt, state)
    problems = plan.problems()
    print("DRY_RUN=1")
    print(f"CHANGED={1 if plan.changed else 0}")
    print(f"STATE_REVISION={plan.state.revision}")
    print(f"NEEDS_REPLACE={1 if problems else 0}")
    say("dry run: nothing was written; the import would change:")
    for line in plan.diff.lines() if plan.diff else ["everything: there is no shop yet"]:
        say(f"  {line}")
    for line in problems:
        say(f"  needs --replace: {line}")
    for line in shortage_lines(plan.state):
        say(f"warning: already short before any new request: {line}")
    return EXIT_OK


def print_chain_report(rt: Runtime) -> int:
    """Verify the keyed chain (``rt.audit_key``) and the votes' receipts (``rt.receipt_key``) and print the
    verdict (shared with ``audit verify``)."""
    from ..services.audit import verify_audit

    report = verify_audit(rt)
    print(f"AUDIT_EVENTS={report.events}")
    print(f"AUDIT_KEYED={'yes' if rt.audit_key is not None else 'no'}")
    if report.intact:
        print("AUDIT_CHAIN=intact")
        return 0
    print("AUDIT_CHAIN=broken")
    print(f"BROKEN_AT={report.broken_at}")
    if report.seq is not None:
        print(f"BROKEN_SEQ={report.seq}")
    print(f"error: {report.problem}", file=sys.stderr)
    return EXIT_AUDIT_BROKEN


def history_command(args: argparse.Namespace) -> int:
    """Print the decision history (also ``audit show``)."""
    from ..domain.presentation import shop_stamp, shop_zone
    from ..services.history import HistoryQuery, history_page
    from .root import local_runtime

    where = data_dir(args)
    rt = local_runtime(where, create=False)
    store = rt.store
    entries, total = history_page(rt, HistoryQuery(args.checkpoint, args.limit or None, args.since))
    zone = shop_zone(store.load_state())
    if args.json:
        emit_json({"history": [asdict(e) for e in entries]})
        return EXIT_OK
    for e in entries:
        verdict = f" {e.decision}" if e.decision else ""
        who = f" {e.approver}" if e.approver else ""
        why = f' "{e.reason}"' if e.reason else ""
        note = f" ({e.note})" if e.note else ""
        print(terminal_safe(f"{shop_stamp(e.at, zone)}  {e.event:<10} {e.checkpoint_id}{who}{verdict}{why}{note}"))
    if not entries:
        print("no decisions yet" if not total else "no decisions in what --limit/--since chose")
    elif len(entries) < total:
        more = total - len(entries)
        print(f"{more} earlier step(s) not shown: the latest {len(entries)} of {total} (--limit 0: all; --since DAY)")
    return EXIT_OK


def add_history_flags(parser: argparse.ArgumentParser) -> None:
    """``--checkpoint`` and ``--json`` of ``history`` / ``audit show``."""
    parser.add_argument(
        "--checkpoint", default=None, type=inputs.identifier, metavar="ID", help="only this run (default: all)"
    )
    parser.add_argument("--json", action="store_true", help='print {"history": [...]} instead of lines')
    parser.add_argument(
        "--limit", type=inputs.zero_or_more, default=100, metavar="N", help="the latest N steps (default 100; 0: all)"
    )
    parser.add_argument("--since", type=inputs.day, default=None, metavar="YYYY-MM-DD", help="steps on or after")
    parser.set_defaults(on_interrupt=lambda _: READ_ONLY, read_only=True)
