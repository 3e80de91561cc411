"""``show``: the plan a human reviews and its approval's status, as text, JSON or the approval page as a file."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...domain.errors import ValidationError
from .. import inputs
from ..files import write_html
from ..output import EXIT_OK, READ_ONLY, emit_json, terminal_safe
from ..parser import GROUP_RUNS, command, data_dir
from ..root import local_approvals, local_runtime, utc_now

if TYPE_CHECKING:  # what the command reads loads when it runs, not when the parser is built
    from ...domain.planning.proposal import ProposalContent
    from ...domain.ports import ApprovalStore, ShopStore
    from ...domain.records import Checkpoint

GROUP = GROUP_RUNS


def _meaning(label: str, who: str, checkpoint: Checkpoint, zone: str) -> str:
    from ...domain.presentation import shop_time

    expires = shop_time(checkpoint.expires_at, zone)
    return {
        "pending": f"waiting for a decision until {expires}",
        "resuming": f"decided by {who}; the resume has not finished (run it again to finish it)",
        "approved": f"approved by {who}",
        "rejected": f"rejected by {who}; nothing was applied",
        "expired": f"the approval window closed at {expires}; nothing was applied",
        "superseded": "replaced by a new plan (propose again or a revision); the approvers' links open the new one",
    }.get(label, label)


def _show(args: argparse.Namespace) -> int:
    from ...domain.presentation import render_review, shop_zone
    from ...services.evidence import review
    from ...services.runs.held import held_for
    from ...services.status import checkpoint_status, plan_version

    if args.json and args.html is not None:
        raise ValidationError("--json and --html: choose one")
    if args.held is not None:
        return _show_held(args)
    where = data_dir(args)
    rt = local_runtime(where, create=False)
    store = rt.store
    checkpoint, proposal = review(store, args.checkpoint)
    label, who = checkpoint_status(rt, checkpoint, rt.clock())
    held = held_for(rt, checkpoint.checkpoint_id)  # requests held as possible duplicates of this run
    if args.json:
        emit_json(
            {
                "status": label,
                "decided_by": who,
                "checkpoint": checkpoint.model_dump(mode="json"),
                "proposal_hash": checkpoint.proposal_hash,
                "proposal": proposal.model_dump(mode="json"),
                "possible_duplicates": [{"held_id": h.held_id, "sender": h.sender, "subject": h.subject} for h in held],
                "version": {"version": 1, **plan_version(rt, checkpoint)},
            }
        )
        return EXIT_OK
    zone = shop_zone(store.load_state())
    status_line = f"{label} ({_meaning(label, who, checkpoint, zone)})"
    if args.html is not None:
        body = _html(store, local_approvals(where), checkpoint, proposal, status_line, utc_now())
        write_html(args.html, body)
        print(f"HTML={args.html}")
        return EXIT_OK
    # What a customer or approver wrote (names, reasons, the request) is shown escaped, never obeyed.
    print(terminal_safe(f"Status: {status_line}"))
    print()
    print(terminal_safe(render_review(checkpoint, proposal, zone), keep_newlines=True))
    version = plan_version(rt, checkpoint)
    if version.get("version_changes"):
        print()
        print(f"Changed since version {version['version'] - 1}:")
        print("".join(f"  - {terminal_safe(line)}\n" for line in version["version_changes"]), end="")
    if version.get("superseded_by"):
        after = version["superseded_by"]
        print()
        replaced = f"Revised: version {after['version']} replaces this one (proposal {after['proposal_hash']})"
        print(terminal_safe(replaced))
    for h in held:
        print(
            terminal_safe(
                f"Held as a possible duplicate of this run: {h.held_id} from {h.sender or 'an unknown sender'}"
            )
        )
    return EXIT_OK


def _show_held(args: argparse.Namespace) -> int:
    # A held request has no plan yet: what it says, why it waits, and what a person can do with it.
    from ...services.runs.held import held_request

    if args.html is not None:
        raise ValidationError("--html shows a plan: a held request has none yet (show --held ID, or --json)")
    held = held_request(local_runtime(data_dir(args), create=False), args.held)
    if args.json:
        emit_json({"held": held.model_dump(exclude={"schema_version"})})
        return EXIT_OK
    print(terminal_safe(f"Held request {held.held_id}: {held.status}, {held.why}"))
    print(terminal_safe(f"From: {held.sender or '(unknown sender)'}  Subject: {held.subject or '(none)'}"))
    if held.is_open:
        then = (
            f"request complete {held.held_id} --product CODE --quantity N --due YYYY-MM-DD"
            if held.kind == "needs_facts"
            else "start --request FILE --again"
        )
        print(terminal_safe(f"Next: {then}, or request drop {held.held_id}"))
    elif held.started_as:
        print(terminal_safe(f"Started as run {held.started_as}"))
    print()
    print(terminal_safe(held.text, keep_newlines=True))
    return EXIT_OK


def _html(
    store: ShopStore,
    approvals: ApprovalStore,
    checkpoint: Checkpoint,
    proposal: ProposalContent,
    status_line: str,
    now: datetime,
) -> str:
    """The approval page of ``checkpoint`` as a file: what its approvers see, without the forms."""
    from ...approval_web.pages import render_for_file
    from ...domain.presentation import shop_zone
    from ...services.deciding.review import LinkView
    from ...services.evidence import proposed_on, what_changed

    found = approvals.approvals_for(checkpoint.checkpoint_id)
    if not found:
        raise ValidationError(f"run {checkpoint.checkpoint_id} has no approval record: there is no page to write")
    approval = found[-1]
    view = LinkView(
        approval=approval,
        approver="",
        checkpoint=checkpoint,
        proposal=proposal,
        changes=what_changed(store, checkpoint, now) if approval.is_open(now) else None,
        outcome=store.get_decision(checkpoint.checkpoint_id),
        timezone=shop_zone(store.load_state()),
        base=proposed_on(store, checkpoint),
    )
    return render_for_file(view, now=now, status=status_line)


def register(subparsers: Any) -> None:
    """``show``."""
    show = command(
        subparsers,
        "show",
        summary="the plan a human reviews, and the approval's status",
        description="The approval's status (pending, resuming, approved, rejected, expired, superseded), then "
        "the plan exactly as the approver reviews it: the order, what blocks it, each change, the drafted "
        "messages and the full proposal hash to pass to resume; the requests held as possible duplicates of "
        "it. With --held: a request held for a person instead. Reads only.",
        examples=[
            "show --checkpoint ckpt-...",
            "show --checkpoint ckpt-... --json",
            "show --checkpoint ckpt-... --html plan.html",
            "show --held held-0123456789abcdef",
        ],
        handler=_show,
    )
    which = show.add_mutually_exclusive_group(required=True)
    which.add_argument("--checkpoint", type=inputs.identifier, metavar="ID", help="the CHECKPOINT_ID start printed")
    which.add_argument(
        "--held",
        default=None,
        metavar="HELD_ID",
        help="a request held for a person (request list): what it says and why it waits (needs facts, a possible "
        "duplicate)",
    )
    show.add_argument("--json", action="store_true", help="print one JSON object (status first) instead of text")
    show.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the approval page (summary, before/after timeline, details; no buttons) to PATH instead",
    )
    show.set_defaults(on_interrupt=lambda _: READ_ONLY, read_only=True)
