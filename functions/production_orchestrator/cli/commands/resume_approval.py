"""``resume-approval``: resume a checkpoint with the decision its approval holds (page votes, receipts verified).

``serve`` runs it in a fresh process after a decision on a page; an operator runs it to retry.
"""

from __future__ import annotations

import argparse
from typing import Any

from ...domain.errors import PlanNotAppliedError, ResumeRefusedError
from .. import approval_side, inputs
from ..output import EXIT_NOT_APPLIED, say
from ..parser import GROUP_RUNS, add_json_flag, add_provider_flags, command
from ..preflight import check_provider
from ..running import interrupted_resume, ready, refused_resume, resumed

GROUP = GROUP_RUNS


def _resume_approval(args: argparse.Namespace) -> int:
    where, rt, binding = ready(args, create=False)
    try:
        result = approval_side.resume_approval(
            where, rt, binding, args.checkpoint, args.approval, before_claim=lambda: check_provider(binding)
        )
    except ResumeRefusedError as refusal:
        return refused_resume(args, where, refusal)
    except PlanNotAppliedError as exc:
        say(f"error: {exc}")
        return EXIT_NOT_APPLIED
    return resumed(args, result)


def register(subparsers: Any) -> None:
    """``resume-approval``."""
    decided = command(
        subparsers,
        "resume-approval",
        summary="resume with the decision recorded on an approval page",
        description="Resume a checkpoint with the decision its approval holds (page votes, receipts "
        "verified). `serve` runs this in a fresh process after a decision; run it yourself to retry.",
        examples=["resume-approval --checkpoint ckpt-... --approval appr-..."],
        handler=_resume_approval,
    )
    decided.add_argument(
        "--checkpoint", required=True, type=inputs.identifier, metavar="ID", help="the CHECKPOINT_ID start printed"
    )
    decided.add_argument(
        "--approval", required=True, type=inputs.identifier, metavar="ID", help="the APPROVAL_ID start printed"
    )
    add_json_flag(decided)
    add_provider_flags(decided)
    decided.set_defaults(on_interrupt=interrupted_resume, binding_from_checkpoint=True)
