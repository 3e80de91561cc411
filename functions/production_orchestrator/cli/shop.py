"""``shop`` commands (show, set-inventory, import, export) and the request flags of ``start``.

shop import PATH|-   JSON -> docs/shop.schema.json -> references, calendar, capacity -> the diff ->
                     guarded (orders applied plans placed, pending plans) -> one conditional write;
                     every problem is listed by JSON path and record id (exit 2, nothing changed);
                     --dry-run prints the diff, --replace overrides the guard
shop receive MATERIAL QTY [--ref TEXT]   a delivery: on hand grows, its procurement lines close
shop export PATH|-   the same format; importing it gives the same domain digest
shop show [--json]   the shop at a glance, or the same document plus revision and procurement; the
                     requests waiting beside the shop apart (--json: "pending")
shop set-inventory   an out-of-band count of a material the shop has
start --request PATH|- [--as-of DAY]   plan a customer's e-mail on this data dir's shop
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..domain.errors import ShopFileError, ValidationError
from ..domain.ports import ShopStore
from ..domain.presentation import describe_existing_shortages, render_shop
from ..domain.records import audit_event
from ..domain.scenarios import SCENARIOS
from ..domain.shop.file_format import Problem, json_path, read_shop, write_shop
from ..domain.shop.model import ShopState, parse_day
from ..services.evidence import current_state
from ..services.runs.plan_request import PlanRequest, on_current_shop
from ..services.runs.requests import pending_requests
from ..services.shop.importing import ImportResult, import_shop, plan_import
from ..services.shop.life import existing_shortages, receive
from . import inputs
from .given import add_given_flags, given_facts
from .output import EXIT_OK, PROG, say
from .parser import actions, command, data_dir
from .root import DB_NAME, local_runtime, utc_now

DEFAULT_SCENARIO = "rush-order"
MAX_FILE_BYTES = 64 * 1024 * 1024


def read_text(path: str, what: str) -> str:
    """The text of ``path`` (``-``: standard input), as UTF-8 (Latin-1 when it is not)."""
    try:
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1) if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise ValidationError(f"cannot read the {what} {path}: {exc.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValidationError(f"the {what} {path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


@cache
def shop_schema() -> dict[str, Any]:
    """The JSON Schema shop files are validated against (docs/shop.schema.json ships in the package)."""
    return dict(json.loads((resources.files(__package__) / "shop.schema.json").read_text(encoding="utf-8")))


def schema_problems(doc: Any) -> list[Problem]:
    """Every violation of the shop schema, by JSON path (in path order)."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(shop_schema())
    found = [(json_path(*e.absolute_path), e.message) for e in validator.iter_errors(doc)]
    return sorted(found)


def parse_shop_file(text: str) -> ShopState:
    """A shop file's state, or ``ShopFileError`` naming every problem (invalid JSON is one problem)."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ShopFileError([("$", f"invalid JSON: {exc}")]) from None
    except RecursionError:
        raise ShopFileError([("$", "invalid shop file: nested too deeply")]) from None
    return read_shop(doc, schema_problems=schema_problems(doc))


def emit(document: dict[str, Any], path: str) -> None:
    """Write a shop document to ``path`` (``-``: stdout) as indented JSON."""
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ValidationError(f"cannot write {path}: {exc.strerror}") from None


def add_request_flags(start: argparse.ArgumentParser) -> None:
    """``start``'s choice of what to plan: a reference scenario, or a customer's e-mail on this shop."""
    start.add_argument(
        "--scenario",
        default=None,
        choices=sorted(SCENARIOS),
        help=f"seed and plan a reference scenario (default {DEFAULT_SCENARIO} when no --request)",
    )
    start.add_argument("--request", default=None, metavar="PATH|-", help="a customer e-mail (.eml or plain text)")
    start.add_argument("--as-of", default=None, metavar="YYYY-MM-DD", help="planning day (default: today in the shop)")
    add_given_flags(start)


def plan_request(args: argparse.Namespace, store: ShopStore) -> PlanRequest:
    """What ``start`` plans, from its flags."""
    if args.as_of is not None:
        try:
            parse_day(args.as_of)
        except ValueError as exc:
            raise ValidationError(f"--as-of: {exc}") from None
    text = read_text(args.request, "request") if args.request else None
    if args.scenario or not args.request:
        chosen = PlanRequest.of_scenario(args.scenario or DEFAULT_SCENARIO, text=text, planning_day=args.as_of)
    else:
        chosen = on_current_shop(store, text or "", args.as_of, utc_now())
    return dataclasses.replace(chosen, given=given_facts(args))


def shortage_lines(state: ShopState) -> list[str]:
    """Material the shop's scheduled orders already lack (none of any customer's plan), with who waits for it."""
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


def _import(args: argparse.Namespace) -> int:
    state = parse_shop_file(read_text(args.path, "shop file"))
    if args.dry_run:
        if not (data_dir(args) / DB_NAME).is_file():
            print("DRY_RUN=1\nCHANGED=1\nSTATE_REVISION=1\nNEEDS_REPLACE=0")
            say(f"dry run: nothing was written; there is no shop in {data_dir(args)} yet: the import would create it")
            return EXIT_OK
        return dry_run_report(local_runtime(data_dir(args), create=False).store, state)
    rt = local_runtime(data_dir(args), create=True)
    return report_import(import_shop(rt.store, state, utc_now(), replace=args.replace), state)


def dry_run_report(store: ShopStore, state: ShopState) -> int:
    """Print what the import would change and what it would need ``--replace`` for; write nothing."""
    plan = plan_import(store, state, utc_now())
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


def _receive(args: argparse.Namespace) -> int:
    from .orders import report_change

    rt = local_runtime(data_dir(args), create=False)
    applied = receive(rt.store, args.material, args.quantity, args.ref, utc_now())
    detail = applied.change.detail
    return report_change(applied, material=detail["material_id"], on_hand=detail["on_hand"])


def _current(args: argparse.Namespace) -> ShopState:
    return current_state(local_runtime(data_dir(args), create=False).store)


def _show(args: argparse.Namespace) -> int:
    rt = local_runtime(data_dir(args), create=False)
    state = current_state(rt.store)
    # Requests wait beside the shop, held with their runs: listed apart from the shop's own orders.
    pending = pending_requests(rt.store, utc_now(), rt.approvals)
    if args.json:
        emit({**write_shop(state), "pending": [r.as_json() for r in pending]}, "-")
    else:
        print(render_shop(state))
        print("\nRequests waiting for a decision (not in the shop until their plan applies):")
        for r in pending:
            print(
                f"  {r.order.id} ({r.customer}): {r.order.quantity} {r.order.product} due {r.order.due}, "
                f"{r.status}, checkpoint {r.checkpoint_id}"
            )
        if not pending:
            print("  none")
        print("\nShortages already in the shop (not part of any plan):")
        print("\n".join(f"  {line}" for line in shortage_lines(state)) or "  none")
        if state.closed_orders:
            print("\nClosed orders:")
            for closed in state.closed_orders:
                reason = f": {closed.reason}" if closed.reason else ""
                print(f"  {closed.order.id} {closed.status} on {closed.closed_on}{reason}")
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    emit(write_shop(_current(args)), args.path)
    return EXIT_OK


def _set_inventory(args: argparse.Namespace) -> int:
    store = local_runtime(data_dir(args), create=False).store
    quantity = args.quantity
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
        "inventory count made outside the agent (a delivery, a stock take). A change moves the shop's "
        "digest: plans proposed before it are refused as stale.",
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
        "--json prints the shop file format plus revision and the procurement list.",
        examples=["shop show", "shop show --json"],
        handler=_show,
    )
    show.add_argument("--json", action="store_true", help="the shop file format plus revision and procurement")
    inv = command(
        what,
        "set-inventory",
        summary="record a counted or delivered quantity",
        description="Record the counted quantity on hand of a material the shop has. Plans proposed before the "
        "change are refused as STALE_DOMAIN_STATE (propose again). A new material comes in through shop import.",
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
        examples=["shop receive THREAD-RED-40 600", "shop receive CAP-BLANK 200 --ref 'delivery note 4711'"],
        handler=_receive,
    )
    rec.add_argument("material", metavar="MATERIAL", help="material id, e.g. THREAD-RED-40")
    rec.add_argument("quantity", type=inputs.whole, metavar="QTY", help="how much was delivered (1 or more)")
    rec.add_argument("--ref", default="", metavar="TEXT", help="delivery note or other reference, kept in the audit")
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
        examples=["shop import my-shop.json", "shop import --dry-run my-shop.json", "shop import - < my-shop.json"],
        handler=_import,
    )
    imp.add_argument("path", metavar="PATH|-", help="the shop file, or - for standard input")
    imp.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    imp.add_argument(
        "--replace", action="store_true", help="import even when applied or pending plans rely on what it changes"
    )
    exp = command(
        what,
        "export",
        summary="write the shop as a shop file",
        description="Write the shop in the format shop import reads; importing it gives the same domain digest.",
        examples=["shop export my-shop.json", "shop export -"],
        handler=_export,
    )
    exp.add_argument("path", metavar="PATH|-", help="where to write, or - for standard output")
