"""``shop`` commands: show, set-inventory, receive, import, export.

shop import PATH|-   JSON -> docs/shop.schema.json -> references, calendar, capacity -> the diff ->
                     guarded (orders applied plans placed, pending plans) -> one conditional write;
                     every problem is listed by JSON path and record id (exit 2, nothing changed);
                     --dry-run prints the diff, --replace overrides the guard
shop receive MATERIAL QTY [--ref TEXT]   a delivery: on hand grows, its procurement lines close
shop export PATH|-   the same format; importing it gives the same domain digest
shop show [--json]   the shop at a glance, or the same document plus revision and procurement; the
                     requests waiting beside the shop apart (--json: "pending")
shop show --html PATH  every machine over the days ahead, the pending plans over it, as a page
                     (approval_web/schedule_page.py); a path it cannot write or no shop: exit 2, no file
shop set-inventory   an out-of-band count of a material the shop has

With ``--table NAME`` import, export and receive run on a deployed stack's table (cli/aws.py) instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...domain.errors import ValidationError
from .. import inputs
from ..aws import add_table_flag, shop_runtime, table_of, table_runtime, write_runtime
from ..files import check_html_path, parse_shop_file, read_text, write_html, write_shop_file
from ..output import EXIT_OK, PROG, say, terminal_safe
from ..parser import GROUP_SHOP, actions, command, data_dir
from ..printers import dry_run_report, report_change, report_import, shortage_lines
from ..root import db_path, local_runtime, utc_now

if TYPE_CHECKING:  # the shop and its services load when a command runs, not when the parser is built
    from ...domain.shop.model import ShopState

GROUP = GROUP_SHOP
# The operator commands' old spellings (python -m production_orchestrator.cli.aws_ops shop-import ...).
ALIASES = {"shop-import": ("shop", "import"), "shop-export": ("shop", "export"), "shop-receive": ("shop", "receive")}


def _import(args: argparse.Namespace) -> int:
    from ...services.shop.importing import ImportShop, import_shop

    state = parse_shop_file(read_text(args.path, "shop file"))
    table = table_of(args)
    if table is not None:  # the table's shop: the same guard and --dry-run
        if args.dry_run:
            return dry_run_report(table_runtime(table, args=args), state)
        rt = write_runtime(args, table)
        return report_import(import_shop(rt, ImportShop(state, replace=args.replace)), state)
    if args.dry_run:
        if not db_path(data_dir(args)).is_file():
            print("DRY_RUN=1\nCHANGED=1\nSTATE_REVISION=1\nNEEDS_REPLACE=0")
            say(f"dry run: nothing was written; there is no shop in {data_dir(args)} yet: the import would create it")
            return EXIT_OK
        return dry_run_report(local_runtime(data_dir(args), create=False), state)
    rt = local_runtime(data_dir(args), create=True)
    return report_import(import_shop(rt, ImportShop(state, replace=args.replace)), state)


def _receive(args: argparse.Namespace) -> int:
    from ...services.shop.life import Receive, receive

    applied = receive(shop_runtime(args, data_dir(args)), Receive(args.material, args.quantity, args.ref))
    detail = applied.change.detail
    return report_change(applied, material=detail["material_id"], on_hand=detail["on_hand"])


def _current(args: argparse.Namespace) -> ShopState:
    from ...services.evidence import current_state

    return current_state(local_runtime(data_dir(args), create=False).store)


def _show(args: argparse.Namespace) -> int:
    from ...domain.presentation import render_shop
    from ...domain.shop.file_format import write_shop
    from ...services.evidence import current_state
    from ...services.runs.held import held_requests
    from ...services.runs.requests import pending_requests

    if args.html is not None:
        return _show_html(args)
    rt = local_runtime(data_dir(args), create=False)
    state = current_state(rt.store)
    # Requests wait beside the shop, held with their runs: listed apart from the shop's own orders; so do the
    # requests held for a person (needs facts, possible duplicates), before any run.
    pending = pending_requests(rt)
    held = held_requests(rt)
    if args.json:
        listed = [h.model_dump(exclude={"text", "schema_version"}) for h in held]
        write_shop_file({**write_shop(state), "pending": [r.as_json() for r in pending], "held": listed}, "-")
    else:
        print(render_shop(state))
        print("\nRequests waiting for a decision (not in the shop until their plan applies):")
        for r in pending:
            print(
                terminal_safe(
                    f"  {r.order.id} ({r.customer}): {r.order.quantity} {r.order.product} due {r.order.due}, "
                    f"{r.status}, checkpoint {r.checkpoint_id}"
                )
            )
        if not pending:
            print("  none")
        print("\nRequests held for a person (request list; request complete, request drop or start --again):")
        print("".join(f"  {terminal_safe(h.line())}\n" for h in held) or "  none\n", end="")
        print("\nShortages already in the shop (not part of any plan):")
        print("\n".join(f"  {line}" for line in shortage_lines(state)) or "  none")
        if state.closed_orders:
            print("\nClosed orders:")
            for closed in state.closed_orders:
                reason = f": {closed.reason}" if closed.reason else ""
                print(f"  {closed.order.id} {closed.status} on {closed.closed_on}{reason}")
    return EXIT_OK


def _show_html(args: argparse.Namespace) -> int:
    from ...approval_web.schedule_page import render_schedule
    from ...services.shop.schedule import shop_schedule

    if args.json:
        raise ValidationError("--json and --html: choose one")
    check_html_path(args.html)  # before anything is read: a path that cannot be written is said first
    schedule = shop_schedule(local_runtime(data_dir(args), create=False))
    write_html(args.html, render_schedule(schedule, served=False))
    print(f"HTML={args.html}")
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    from ...domain.shop.file_format import write_shop

    table = table_of(args)
    if table is None:
        write_shop_file(write_shop(_current(args)), args.path)
        return EXIT_OK
    state = table_runtime(table, args=args).store.load_state()
    if state is None:
        raise ValidationError(f"table {table} holds no shop yet (shop import --table {table} first)")
    write_shop_file(write_shop(state), args.path)
    return EXIT_OK


def _set_inventory(args: argparse.Namespace) -> int:
    from ...domain.records import audit_event
    from ...domain.shop import life
    from ...services.evidence import current_state

    store = local_runtime(data_dir(args), create=False).store
    quantity = life.counted(args.quantity, "the counted quantity")
    materials = current_state(store).materials
    # Ids are case-sensitive, but a count typed in another case names the one material it can only mean.
    same = [m.id for m in materials if m.id == args.material] or [
        m.id for m in materials if m.id.casefold() == args.material.casefold()
    ]
    material = same[0] if len(same) == 1 else args.material
    # A typo must not touch the shop: the new digest would make every pending plan stale.
    if len(same) != 1:
        known = ", ".join(m.id for m in materials) or "none"
        raise ValidationError(
            f"{material} is not a material of this shop (known: {known}): check the spelling; a new material "
            f"needs its supplier and lead time, so add it to the shop file ({PROG} shop export -) and shop import it"
        )
    event = audit_event("inventory_set", utc_now(), material_id=material, quantity=quantity)
    try:
        state = store.set_inventory(material, quantity, event)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    print(f"{material} set to {quantity}; revision {state.revision}, digest {state.digest()[:12]}")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``shop show``, ``shop set-inventory``, ``shop import``, ``shop export``."""
    shop = command(
        subparsers,
        "shop",
        summary="look at, import or export the shop, or record an out-of-band change",
        description="The shop at a glance, your own shop from a shop file (docs/shop.schema.json), or an "
        "inventory count made outside the agent (a delivery, a stock take). A pending plan a change no "
        "longer lets hold is refused as stale; one that only frees capacity or stock stales none.",
        examples=[
            "shop show",
            "shop import my-shop.json",
            "shop receive THREAD-RED-40 600 --ref 'delivery note 4711'",
            "shop set-inventory THREAD-RED-40 1500",
        ],
    )
    interrupted = f"interrupted: a change is written whole or not at all; see {PROG} shop show"
    shop.set_defaults(on_interrupt=lambda _: interrupted)
    what = actions(shop, metavar="ACTION", title="actions")
    show = command(
        what,
        "show",
        summary="schedule, inventory and procurement at the current revision",
        description="The shop at a glance: revision, each machine's schedule per day, inventory, procurement. "
        "--json prints the shop file format plus revision and the procurement list. --html writes the schedule "
        "as a page: every machine over the days ahead, closed days, due dates, and what each pending plan would "
        "change laid over the booked work, each with how to reach its approval (the page holds no link).",
        examples=["shop show", "shop show --json", "shop show --html schedule.html"],
        handler=_show,
    )
    show.add_argument("--json", action="store_true", help="the shop file format plus revision and procurement")
    show.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the schedule page (drawn and in words, the pending plans over it) to PATH instead",
    )
    inv = command(
        what,
        "set-inventory",
        summary="record a counted or delivered quantity",
        description="Record the counted quantity on hand of a material the shop has. A pending plan the count "
        "leaves short is refused as STALE_DOMAIN_STATE (propose again); a count that finds more stales none. "
        "A new material comes in through shop import.",
        examples=["shop set-inventory THREAD-RED-40 1500"],
        handler=_set_inventory,
    )
    inv.add_argument("material", metavar="MATERIAL", help="material id, e.g. THREAD-RED-40")
    inv.add_argument("quantity", type=inputs.zero_or_more, metavar="QUANTITY", help="the counted quantity (0 or more)")
    rec = command(
        what,
        "receive",
        summary="record a delivery: on hand grows, its procurement lines close",
        description="A delivery of a material the shop has: on hand grows by QTY, and the open procurement lines "
        "of that material close oldest first (a partial delivery reduces the line), then what was on order, so "
        "nothing counts twice. One audited write; refused with exit 2 and nothing written for an unknown "
        "material or a quantity under 1.",
        examples=[
            "shop receive THREAD-RED-40 600",
            "shop receive CAP-BLANK 200 --ref 'delivery note 4711'",
            "--table NAME shop receive CAP-BLANK 200",
        ],
        handler=_receive,
    )
    rec.add_argument("material", metavar="MATERIAL", help="material id, e.g. THREAD-RED-40")
    rec.add_argument("quantity", type=inputs.whole, metavar="QTY", help="how much was delivered (1 or more)")
    rec.add_argument("--ref", default="", metavar="TEXT", help="delivery note or other reference, kept in the audit")
    add_table_flag(rec)
    imp = command(
        what,
        "import",
        summary="create this data dir's shop from a shop file, or change it to the file's",
        description="Read a shop file (JSON, docs/shop.schema.json; - for stdin), check it whole, and create "
        "or change the shop in one write; the revision moves up on every change. Every problem is listed by "
        "JSON path and the record's id, and nothing changes (exit 2). --dry-run prints what would change "
        "(orders, machines, materials, products added, removed, changed) and writes nothing. An import that "
        "would remove or reschedule an order an applied plan placed, or make a pending plan stale, is refused "
        "(IMPORT_CONFLICT, exit 2, listing them) unless --replace.",
        examples=[
            "shop import my-shop.json",
            "shop import --dry-run my-shop.json",
            "shop import - < my-shop.json",
            "--table NAME shop import my-shop.json",
        ],
        handler=_import,
    )
    imp.add_argument("path", metavar="PATH|-", help="the shop file, or - for standard input")
    imp.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    imp.add_argument(
        "--replace", action="store_true", help="import even when applied or pending plans rely on what it changes"
    )
    add_table_flag(imp)
    exp = command(
        what,
        "export",
        summary="write the shop as a shop file",
        description="Write the shop in the format shop import reads; importing it gives the same domain digest.",
        examples=["shop export my-shop.json", "shop export -", "--table NAME shop export -"],
        handler=_export,
    )
    exp.add_argument("path", metavar="PATH|-", help="where to write, or - for standard output")
    add_table_flag(exp)
