"""``status``: the shop's revision and plans applied, and every run with its approval status. Reads only."""

from __future__ import annotations

import argparse
from typing import Any

from .. import inputs
from ..output import EXIT_OK, READ_ONLY, emit_json, terminal_safe
from ..parser import GROUP_RUNS, command, data_dir
from ..root import local_runtime

GROUP = GROUP_RUNS


def _status(args: argparse.Namespace) -> int:
    from ...domain.presentation import shop_stamp
    from ...services.status import StatusQuery, status

    where = data_dir(args)
    report = status(local_runtime(where, create=False), StatusQuery(args.limit or None, args.since))
    if args.json:
        emit_json(report)
        return EXIT_OK
    zone = report["timezone"]
    print(
        terminal_safe(
            f"Shop {report['scenario']}: revision {report['revision']}, plans applied {report['plan_applied_count']}"
        )
    )
    print(f"  times in the shop's time zone, {zone}")
    for a in report["approvals"]:
        who = f" by {a['approver']}" if a["approver"] else ""
        expires = shop_stamp(a["expires_at"], zone) if a["expires_at"] else "?"
        print(
            terminal_safe(
                f"  {a['checkpoint_id']}  {a['status']:<9}{who}  order {a['target_order_id']}  expires {expires}"
            )
        )
        if a["version"] > 1:
            revised = f"version {a['version']} by {a['revised_by']}, supersedes {a['supersedes'][:12]}..."
            print(terminal_safe(f"      {revised}"))
            print("".join(f"        - {terminal_safe(line)}\n" for line in a["version_changes"]), end="")
        if a["superseded_by"]:
            after = a["superseded_by"]
            print(terminal_safe(f"      version {a['version']}: revised, version {after['version']} {_answer(after)}"))
        if a["changes"]:
            print("      stale: the shop changed since it was proposed (approving it would be refused):")
            print("".join(f"        - {terminal_safe(line)}\n" for line in a["changes"]), end="")
        for v in a["votes"]:
            verdict = "approved" if v["approved"] else "rejected"
            why = f': "{v["reason"]}"' if v["reason"] else ""
            print(terminal_safe(f"      vote: {v['approver']} {verdict} at {shop_stamp(v['at'], zone)}{why}"))
    if not report["approvals"]:
        print("  no approvals yet" if not report["runs_total"] else "  no approvals in what --limit/--since chose")
    elif len(report["approvals"]) < report["runs_total"]:
        print(f"  the latest {len(report['approvals'])} of {report['runs_total']} runs (--limit 0: all; --since DAY)")
    _print_held(report["held"])
    return EXIT_OK


def _answer(after: dict[str, Any]) -> str:
    """What became of the version a revision asked for: it replaces this one, or (AWS) is being planned, or could
    not be planned."""
    if after["approval_id"]:
        return "replaces it"
    if after["not_planned"]:
        return f"could not be planned ({after['not_planned']}): start the request again"
    return "is being planned (its approvers get new links)"


def _print_held(held: list[dict[str, Any]]) -> None:
    if held:
        print("  requests held for a person (request list; request complete, request drop or start --again):")
    for h in held:
        who = h["sender"] or "an unknown sender"
        print(terminal_safe(f"  {h['held_id']}  held      from {who}  {h['about']!r}  {h['why']}"))


def register(subparsers: Any) -> None:
    """``status``."""
    stat = command(
        subparsers,
        "status",
        summary="the shop's revision, plans applied and every approval",
        description="The shop's revision and plans applied, and every run with its approval status. Reads only.",
        examples=["status", "--data-dir /srv/shop status --json"],
        handler=_status,
    )
    stat.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    stat.add_argument(
        "--limit", type=inputs.zero_or_more, default=100, metavar="N", help="the latest N runs (default 100; 0: all)"
    )
    stat.add_argument("--since", type=inputs.day, default=None, metavar="YYYY-MM-DD", help="runs created on or after")
    stat.set_defaults(on_interrupt=lambda _: READ_ONLY, read_only=True)
