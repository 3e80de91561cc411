"""``revise``: an approver's "yes, but not like that": the agent plans the same request again with their
guidance, and the result is the next version of the plan, waiting for approval under the same policy and links
(the previous version can no longer be approved; its votes do not carry over).
"""

from __future__ import annotations

import argparse
import os
import re
from typing import TYPE_CHECKING, Any

from ...domain.errors import GuidanceRefusedError, ResumeRefusedError, ValidationError
from ...domain.limits import MAX_NOTE_CHARS
from .. import inputs
from ..config import PROVIDER_KEYS
from ..given import add_given_flags
from ..output import EXIT_OK, PROG, emit, refused, say
from ..parser import GROUP_RUNS, add_json_flag, add_provider_flags, command
from ..preflight import check_provider
from ..running import ready

if TYPE_CHECKING:  # what the command runs loads when it runs, not when the parser is built
    from ...domain.planning.guidance import Guidance, Overtime

GROUP = GROUP_RUNS
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")  # the shop model's id rule, checked again there


def _overtime(text: str) -> Overtime:
    """``MACHINE:DAY:MINUTES`` (e.g. ``EMB-01:2026-08-15:120``)."""
    from ...domain.planning.guidance import read_overtime
    from ...domain.shop.model import MAX_MINUTES_PER_DAY, parse_day

    machine, _, rest = text.strip().partition(":")
    day, _, minutes = rest.rpartition(":")
    if not _ID.fullmatch(machine) or not day or not minutes.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not MACHINE:DAY:MINUTES (e.g. EMB-01:2026-08-15:120)")
    try:
        parse_day(day)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{day!r} in {text!r} is not a day (YYYY-MM-DD)") from None
    if not 1 <= int(minutes) <= MAX_MINUTES_PER_DAY:
        raise argparse.ArgumentTypeError(f"{minutes} minutes: a day holds 1 to {MAX_MINUTES_PER_DAY}")
    try:
        return read_overtime(machine, day, int(minutes))
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _order(text: str) -> str:
    order = text.strip()
    if not _ID.fullmatch(order):
        raise argparse.ArgumentTypeError(f"{text!r} is not an order id")
    return order


def _note(text: str) -> str:
    if len(text) > MAX_NOTE_CHARS:
        raise argparse.ArgumentTypeError(f"a note is at most {MAX_NOTE_CHARS} characters")
    return text.strip()


def guidance_of(args: argparse.Namespace) -> Guidance:
    """The guidance the flags give (``ValidationError`` when it is not well formed)."""
    from ...domain.planning.guidance import read_guidance

    return read_guidance(
        keep=tuple(dict.fromkeys(args.keep)),
        overtime=tuple(args.overtime),
        quantity=args.quantity,
        due=args.due,
        product=args.product,
        note=args.note,
    )


def _revise(args: argparse.Namespace) -> int:
    from ...services.runs.revise import Revise, revise

    guidance = guidance_of(args)
    where, rt, binding = ready(args, create=False)
    actor = args.approver or os.environ.get("USER") or "operator"
    try:
        ask = Revise(args.checkpoint, actor, guidance, binding, before_agent=lambda: check_provider(binding))
        result = revise(rt, ask)
    except (ResumeRefusedError, GuidanceRefusedError) as refusal:
        return refused(refusal.code.value, refusal.human_message, as_json=args.json)
    assert result.approval is not None and result.proposal.revision is not None
    emit(
        {
            "checkpoint_id": result.checkpoint.checkpoint_id,
            "proposal_hash": result.checkpoint.proposal_hash,
            "version": result.proposal.version,
            "supersedes": result.proposal.revision.supersedes,
            "approval_id": result.approval.approval_id,
            "approvals_required": result.approval.required,
            "superseded_approval_id": result.approval.supersedes,
            "on_time": not any(r.order_id == result.proposal.target_order.id for r in result.proposal.at_risk),
            "summary": result.proposal.summary(),
        },
        as_json=args.json,
    )
    say(f"version {result.proposal.version} waits for approval; the approvers' existing links open it")
    say(f"review it: {PROG} show --data-dir {where} --checkpoint {result.checkpoint.checkpoint_id}")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``revise``."""
    again = command(
        subparsers,
        "revise",
        summary="change a waiting plan: the agent plans it again with your guidance (version 2)",
        description="An approver's third answer beside approve and reject: keep orders where they are, add "
        "overtime, correct the request's facts or leave the agent a note. The agent plans the same request "
        "again on the current shop; the result is the next version of the plan (it records what it "
        "supersedes, the guidance and who gave it) and goes through the whole approval policy again. The "
        "previous version can no longer be approved (SUPERSEDED); its votes do not carry over. Guidance the "
        "shop cannot honour as asked, and a revision of a decided or expired plan, are refused with nothing "
        "written.",
        examples=[
            "revise --checkpoint ckpt-... --keep STANDARD-100",
            "revise --checkpoint ckpt-... --overtime EMB-01:2026-08-15:120 --note 'run the lathe on Saturday'",
            "revise --checkpoint ckpt-... --quantity 300 --due 2026-08-18 --json",
        ],
        handler=_revise,
    )
    ids = again.add_argument_group("what you revise")
    ids.add_argument(
        "--checkpoint", required=True, type=inputs.identifier, metavar="ID", help="the CHECKPOINT_ID of the plan"
    )
    ids.add_argument(
        "--approver", default=None, metavar="NAME", help="who asks for the revision (default: the OS user)"
    )
    guide = again.add_argument_group("guidance (at least one)")
    guide.add_argument(
        "--keep",
        action="append",
        default=[],
        type=_order,
        metavar="ORDER",
        help="an order the plan may not move (repeat for more)",
    )
    guide.add_argument(
        "--overtime",
        action="append",
        default=[],
        type=_overtime,
        metavar="MACHINE:DAY:MINUTES",
        help="extra minutes on a working machine-day: a calendar change applied only with the plan (repeatable)",
    )
    guide.add_argument(
        "--note",
        type=_note,
        default="",
        metavar="TEXT",
        help=f"a note to the agent (a real model reads it; at most {MAX_NOTE_CHARS} characters)",
    )
    add_given_flags(again, customer=False)
    add_json_flag(again)
    add_provider_flags(again)
    again.set_defaults(
        config_keys=PROVIDER_KEYS,
        on_interrupt=lambda _: (
            f"interrupted: the plan stays as it was unless CHECKPOINT_ID was printed; see `{PROG} status`"
        ),
    )
