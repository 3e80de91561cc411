"""``shop`` commands (show, set-inventory, import, export) and the request flags of ``start``.

shop import PATH|-   JSON -> docs/shop.schema.json -> references, calendar, capacity -> replace the
                     shop in one conditional write; every problem is listed by JSON path (exit 2,
                     nothing changed); pending plans on the replaced shop become stale
shop export PATH|-   the same format; importing it gives the same domain digest
shop show [--json]   the shop at a glance, or the same document plus revision and procurement
start --request PATH|- [--as-of DAY]   plan a customer's e-mail on this data dir's shop
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..domain.errors import ShopFileError, ValidationError
from ..domain.ports import ShopStore
from ..domain.presentation import render_shop
from ..domain.records import audit_event
from ..domain.scenarios import SCENARIOS
from ..domain.shop import ShopState, parse_day
from ..domain.shop_file import Problem, json_path, read_shop, write_shop
from ..lifecycle.shop_import import ImportResult, import_shop
from ..lifecycle.start import PlanRequest, on_current_shop
from .root import local_runtime, utc_now

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


def register(sub: Any, data_dir: Callable[[argparse.ArgumentParser], None], parser_class: type) -> None:
    """Add ``shop`` and its subcommands to the CLI's subparsers."""
    shop = sub.add_parser("shop", help="look at, import, export the shop or record an out-of-band change")
    data_dir(shop)
    shop_sub = shop.add_subparsers(dest="shop_command", required=True, parser_class=parser_class)
    show = shop_sub.add_parser("show", help="the shop at a glance (--json: the shop file plus revision, procurement)")
    show.add_argument("--json", action="store_true")
    inv = shop_sub.add_parser("set-inventory", help="record a counted or delivered quantity on hand")
    inv.add_argument("material")
    inv.add_argument("quantity", type=int)
    imp = shop_sub.add_parser("import", help="create or replace this data dir's shop from a shop file (- : stdin)")
    imp.add_argument("path", metavar="PATH|-")
    exp = shop_sub.add_parser("export", help="write the shop as a shop file (- : stdout)")
    exp.add_argument("path", metavar="PATH|-")


def add_request_flags(start: argparse.ArgumentParser) -> None:
    """``start``'s choice of what to plan: a reference scenario, or a customer's e-mail on this shop."""
    start.add_argument(
        "--scenario",
        default=None,
        choices=sorted(SCENARIOS),
        help=f"seed and plan a reference scenario (default {DEFAULT_SCENARIO} when no --request is given)",
    )
    start.add_argument("--request", default=None, metavar="PATH|-", help="a customer e-mail (.eml or plain text)")
    start.add_argument("--as-of", default=None, metavar="YYYY-MM-DD", help="planning day (default: today in the shop)")


def plan_request(args: argparse.Namespace, store: ShopStore) -> PlanRequest:
    """What ``start`` plans, from its flags."""
    if args.as_of is not None:
        try:
            parse_day(args.as_of)
        except ValueError as exc:
            raise ValidationError(f"--as-of: {exc}") from None
    text = read_text(args.request, "request") if args.request else None
    if args.scenario or not args.request:
        return PlanRequest.of_scenario(args.scenario or DEFAULT_SCENARIO, text=text, planning_day=args.as_of)
    return on_current_shop(store, text or "", args.as_of, utc_now())


def _import(args: argparse.Namespace) -> int:
    state = parse_shop_file(read_text(args.path, "shop file"))
    rt = local_runtime(args.data_dir, create=True)
    return report_import(import_shop(rt.store, state, utc_now()), state)


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
        what = "created" if result.created else "replaced"
        counts = f"{len(state.machines)} machines, {len(state.products)} products, {len(state.orders)} orders"
        tail = f"; {stale} pending plan(s) now stale: {', '.join(result.stale_checkpoints)}" if stale else ""
        print(f"shop {result.state.name!r} {what} ({counts}){tail}", file=sys.stderr)
    return 0


def _current(args: argparse.Namespace) -> ShopState:
    state = local_runtime(args.data_dir, create=False).store.load_state()
    if state is None:
        raise ValidationError("no shop yet; run start or shop import first")
    return state


def _set_inventory(args: argparse.Namespace) -> int:
    store = local_runtime(args.data_dir, create=False).store
    event = audit_event("inventory_set", utc_now(), material_id=args.material, quantity=args.quantity)
    try:
        state = store.set_inventory(args.material, args.quantity, event)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    print(f"{args.material} set to {args.quantity}; revision {state.revision}, digest {state.digest()[:12]}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run one ``shop`` subcommand."""
    if args.shop_command == "import":
        return _import(args)
    if args.shop_command == "set-inventory":
        return _set_inventory(args)
    state = _current(args)
    if args.shop_command == "export":
        emit(write_shop(state), args.path)
    elif args.json:
        emit(write_shop(state), "-")
    else:
        print(render_shop(state))
    return 0
