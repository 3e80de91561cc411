"""``request`` commands: customer requests that wait for a person before anything is planned for them.

``request list`` shows the held ones (a *possible duplicate*: the same sender's same words in another envelope,
beside the earlier run it may repeat); ``request drop HELD_ID`` closes one with nothing planned. A held request
is started with ``start --request FILE --again``.
"""

from __future__ import annotations

import argparse
import getpass
from typing import Any

from ..aws import add_table_flag, table_of, table_runtime
from ..config import PROVIDER_KEYS
from ..output import EXIT_OK, READ_ONLY, emit, emit_json, say, terminal_safe
from ..parser import GROUP_RUNS, actions, add_json_flag, add_provider_flags, command, data_dir
from ..root import local_runtime

GROUP = GROUP_RUNS


def _list(args: argparse.Namespace) -> int:
    from ...services.runs.held import held_requests

    table = table_of(args)
    rt = table_runtime(table, args=args) if table else local_runtime(data_dir(args), create=False)
    held = held_requests(rt, open_only=not args.all)
    if args.json:
        emit_json({"held": [h.model_dump(exclude={"text", "schema_version"}) for h in held]})
        return EXIT_OK
    for h in held:
        print(terminal_safe(h.line()))
    if not held:
        print("no held requests")
    return EXIT_OK


def _drop(args: argparse.Namespace) -> int:
    from ...services.runs.held import DropHeld, drop_held

    rt = local_runtime(data_dir(args), create=False)
    dropped = drop_held(rt, DropHeld(args.held_id, args.by or getpass.getuser(), args.reason or ""))
    emit(
        {"held_id": dropped.held_id, "status": dropped.status, "duplicate_of": dropped.duplicate_of}, as_json=args.json
    )
    say(f"dropped {dropped.held_id}: nothing was planned for it")
    return EXIT_OK


def _complete(args: argparse.Namespace) -> int:
    # The run starts as `start --held` starts it (one code path: approval links, checks, output), with the facts
    # given here recorded as given by the person, beside what the e-mail said.
    from ..main import main
    from ..running import provider_argv

    flags = ("product", "quantity", "due", "customer", "as_of", "approval_window")
    given = [f"--{flag.replace('_', '-')}={value}" for flag in flags if (value := getattr(args, flag))]
    start = ["--data-dir", str(data_dir(args)), "start", "--held", args.held_id, *given, *provider_argv(args)]
    return main(start)


def register(subparsers: Any) -> None:
    """``request list``, ``request drop``, ``request complete``."""
    request = command(
        subparsers,
        "request",
        summary="customer requests held for a person (possible duplicates, needs facts): list, complete or drop them",
        description="A request the same sender already sent in another envelope (no Message-ID, pasted text, a new "
        "Message-ID) is held beside the earlier run instead of being planned twice; one the intake cannot read (a "
        "product, quantity or due date missing or unclear) waits as needs facts with what was read. List the held "
        "requests, complete one (`request complete`), drop one, or start a duplicate with `start --request FILE "
        "--again`.",
        examples=["request list", "request drop held-0123456789abcdef --reason 'the same order'"],
    )
    what = actions(request, metavar="ACTION", title="actions")
    listing = command(
        what,
        "list",
        summary="the held requests, each with the run it may repeat",
        description="Each held request: its id, status, sender, subject and the earlier run it may repeat. Reads "
        "only. --json: one object with 'held'.",
        examples=["request list", "request list --all --json", "request list --table po-shop"],
        handler=_list,
    )
    listing.add_argument("--all", action="store_true", help="also the requests already started or dropped")
    listing.add_argument("--json", action="store_true", help="one JSON object on stdout")
    add_table_flag(listing, keys=())  # on AWS: what receive_email's runs held (a request that needs facts)
    listing.set_defaults(on_interrupt=lambda _: READ_ONLY)
    drop = command(
        what,
        "drop",
        summary="close a held request: nothing is planned for it",
        description="Close a held request as dropped, with who and why in the audit trail. Refused with nothing "
        "written when the id is malformed (HELD_ID_INVALID), unknown (NOT_FOUND) or no longer held "
        "(REQUEST_NOT_HELD).",
        examples=["request drop held-0123456789abcdef", "request drop held-0123456789abcdef --reason 'resent'"],
        handler=_drop,
    )
    drop.add_argument("held_id", metavar="HELD_ID", help="the held request's id (request list)")
    drop.add_argument("--reason", default=None, metavar="TEXT", help="why (kept in the audit trail)")
    drop.add_argument("--by", default=None, metavar="WHO", help="who drops it (default: the login name)")
    add_json_flag(drop)
    drop.set_defaults(on_interrupt=lambda _: "interrupted: a drop is written whole or not at all; see request list")
    complete = command(
        what,
        "complete",
        summary="give a held request the facts it lacks; its run starts from there",
        description="A request held as needs facts (the e-mail did not say a product, quantity or due date "
        "plainly) is planned with the facts given here, recorded as given by you beside what the e-mail said; "
        "the hold closes as started. Runs `start --held HELD_ID` with these facts (start --held takes the rest).",
        examples=[
            "request complete held-0123456789abcdef --product DP-SS-6X30 --quantity 1200 --due 2027-01-15",
            "request complete held-0123456789abcdef --due 2027-01-20 --as-of 2027-01-11",
        ],
        handler=_complete,
    )
    complete.add_argument("held_id", metavar="HELD_ID", help="the held request's id (request list)")
    complete.add_argument("--product", default=None, metavar="CODE", help="the product")
    complete.add_argument("--quantity", default=None, metavar="N", help="how many")
    complete.add_argument("--due", default=None, metavar="YYYY-MM-DD", help="the due day")
    complete.add_argument("--customer", default=None, metavar="NAME", help="the customer's name")
    complete.add_argument(
        "--as-of", default=None, metavar="YYYY-MM-DD", help="planning day (default: today in the shop)"
    )
    complete.add_argument(
        "--approval-window", default=None, metavar="DURATION", help="how long the approval stays open (as start's)"
    )
    add_provider_flags(complete)
    complete.set_defaults(config_keys=PROVIDER_KEYS)
