"""The commands that only read: ``show`` (the plan a human reviews), ``status``, ``history``."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from ..domain.presentation import render_review, terminal_safe
from ..domain.records import Checkpoint
from ..lifecycle.evidence import review
from ..lifecycle.history import history
from ..lifecycle.status import checkpoint_status, status
from . import inputs
from .output import EXIT_OK, emit_json
from .parser import command, data_dir
from .root import local_approvals, local_runtime, utc_now

_READ_ONLY = "interrupted: nothing was changed"


def _meaning(label: str, who: str, checkpoint: Checkpoint) -> str:
    return {
        "pending": f"waiting for a decision until {checkpoint.expires_at}",
        "resuming": f"decided by {who}; the resume has not finished (run it again to finish it)",
        "approved": f"approved by {who}",
        "rejected": f"rejected by {who}; nothing was applied",
        "expired": f"the approval window closed at {checkpoint.expires_at}; nothing was applied",
        "superseded": "replaced by a new plan (propose again); the approvers' links open the new one",
    }.get(label, label)


def _show(args: argparse.Namespace) -> int:
    where = data_dir(args)
    store = local_runtime(where, create=False).store
    checkpoint, proposal = review(store, args.checkpoint)
    label, who = checkpoint_status(store, checkpoint, utc_now(), local_approvals(where))
    if args.json:
        emit_json(
            {
                "status": label,
                "decided_by": who,
                "checkpoint": checkpoint.model_dump(mode="json"),
                "proposal_hash": checkpoint.proposal_hash,
                "proposal": proposal.model_dump(mode="json"),
            }
        )
        return EXIT_OK
    # What a customer or approver wrote (names, reasons, the request) is shown escaped, never obeyed.
    print(terminal_safe(f"Status: {label} ({_meaning(label, who, checkpoint)})"))
    print()
    print(terminal_safe(render_review(checkpoint, proposal), keep_newlines=True))
    return EXIT_OK


def _status(args: argparse.Namespace) -> int:
    where = data_dir(args)
    report = status(local_runtime(where, create=False).store, utc_now(), local_approvals(where))
    if args.json:
        emit_json(report)
        return EXIT_OK
    print(
        terminal_safe(
            f"Shop {report['scenario']}: revision {report['revision']}, plans applied {report['plan_applied_count']}"
        )
    )
    for a in report["approvals"]:
        who = f" by {a['approver']}" if a["approver"] else ""
        label = f"{a['status']} (stale)" if a.get("stale") else a["status"]
        line = f"  {a['checkpoint_id']}  {label:<9}{who}  order {a['target_order_id']}  expires {a['expires_at']}"
        print(terminal_safe(line))
    if not report["approvals"]:
        print("  no approvals yet")
    return EXIT_OK


def history_command(args: argparse.Namespace) -> int:
    """Print the decision history (also ``audit show``)."""
    where = data_dir(args)
    entries = history(local_runtime(where, create=False).store, local_approvals(where), args.checkpoint)
    if args.json:
        emit_json({"history": [asdict(e) for e in entries]})
        return EXIT_OK
    for e in entries:
        verdict = f" {e.decision}" if e.decision else ""
        who = f" {e.approver}" if e.approver else ""
        why = f' "{e.reason}"' if e.reason else ""
        note = f" ({e.note})" if e.note else ""
        print(terminal_safe(f"{e.at}  {e.event:<10} {e.checkpoint_id}{who}{verdict}{why}{note}"))
    if not entries:
        print("no decisions yet")
    return EXIT_OK


def add_history_flags(parser: argparse.ArgumentParser) -> None:
    """``--checkpoint`` and ``--json`` of ``history`` / ``audit show``."""
    parser.add_argument(
        "--checkpoint", default=None, type=inputs.identifier, metavar="ID", help="only this run (default: all)"
    )
    parser.add_argument("--json", action="store_true", help='print {"history": [...]} instead of lines')
    parser.set_defaults(on_interrupt=lambda _: _READ_ONLY)


def register(subparsers: Any) -> None:
    """``show``, ``status``, ``history``."""
    show = command(
        subparsers,
        "show",
        summary="the plan a human reviews, and the approval's status",
        description="The approval's status (pending, resuming, approved, rejected, expired, superseded), then "
        "the plan exactly as the approver reviews it: the order, what blocks it, each change, the drafted "
        "messages and the full proposal hash to pass to resume. Reads only.",
        examples=["show --checkpoint ckpt-...", "show --checkpoint ckpt-... --json"],
        handler=_show,
    )
    show.add_argument(
        "--checkpoint", required=True, type=inputs.identifier, metavar="ID", help="the CHECKPOINT_ID start printed"
    )
    show.add_argument("--json", action="store_true", help="print one JSON object (status first) instead of text")
    show.set_defaults(on_interrupt=lambda _: _READ_ONLY)

    stat = command(
        subparsers,
        "status",
        summary="the shop's revision, plans applied and every approval",
        description="The shop's revision and plans applied, and every run with its approval status. Reads only.",
        examples=["status", "--data-dir /srv/shop status --json"],
        handler=_status,
    )
    stat.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    stat.set_defaults(on_interrupt=lambda _: _READ_ONLY)

    hist = command(
        subparsers,
        "history",
        summary="who decided what, when and why",
        description="Every approval request, vote, decision and outcome from the audit trail, oldest first, "
        "with approver, verdict and reason. Reads only. Also available as `audit show`.",
        examples=["history", "history --checkpoint ckpt-... --json"],
        handler=history_command,
    )
    add_history_flags(hist)
