"""``request`` commands: customer requests that wait for a person before anything is planned for them.

``request list`` shows the held ones (a *possible duplicate*: the same sender's same words in another envelope,
beside the earlier run it may repeat); ``request drop HELD_ID`` closes one with nothing planned. A held request
is started with ``start --request FILE --again``.
"""

from __future__ import annotations

import argparse
import getpass
from typing import Any

from ..output import EXIT_OK, READ_ONLY, emit, emit_json, say, terminal_safe
from ..parser import GROUP_RUNS, actions, add_json_flag, command, data_dir
from ..root import local_runtime

GROUP = GROUP_RUNS


def _list(args: argparse.Namespace) -> int:
    from ...services.runs.held import held_requests

    held = held_requests(local_runtime(data_dir(args), create=False), open_only=not args.all)
    if args.json:
        emit_json({"held": [h.model_dump(exclude={"text", "schema_version"}) for h in held]})
        return EXIT_OK
    for h in held:
        about = h.subject or h.text.strip().splitlines()[0][:60]
        print(
            terminal_safe(
                f"{h.held_id}  {h.status:<8} {h.kind}  from {h.sender or '(unknown sender)'}  {about!r}  "
                f"like run {h.duplicate_of} (order {h.duplicate_order or '?'})"
            )
        )
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


def register(subparsers: Any) -> None:
    """``request list``, ``request drop``."""
    request = command(
        subparsers,
        "request",
        summary="customer requests held for a person (possible duplicates): list or drop them",
        description="A request the same sender already sent in another envelope (no Message-ID, pasted text, a new "
        "Message-ID) is held beside the earlier run instead of being planned twice. List the held requests, drop "
        "one, or start it with `start --request FILE --again`.",
        examples=["request list", "request drop held-0123456789abcdef --reason 'the same order'"],
    )
    what = actions(request, metavar="ACTION", title="actions")
    listing = command(
        what,
        "list",
        summary="the held requests, each with the run it may repeat",
        description="Each held request: its id, status, sender, subject and the earlier run it may repeat. Reads "
        "only. --json: one object with 'held'.",
        examples=["request list", "request list --all --json"],
        handler=_list,
    )
    listing.add_argument("--all", action="store_true", help="also the requests already started or dropped")
    listing.add_argument("--json", action="store_true", help="one JSON object on stdout")
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
