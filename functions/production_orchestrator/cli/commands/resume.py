"""``resume``: verify a checkpoint and apply (or reject) the plan a person reviewed, typed at the CLI.

In a fresh process: the checkpoint is verified against everything stored and refused on any mismatch before
anything is written (exit 3, ``REFUSED=<CODE>``); the typed decision is a vote under the run's policy, then the
resume claims the decision once and answers the agent's interrupt.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import Any

from ...contracts import ENV_DECISION_LEASE
from ...domain.errors import ResumeRefusedError, ValidationError
from ...domain.limits import MAX_REASON_CHARS
from .. import inputs
from ..parser import GROUP_RUNS, add_json_flag, add_provider_flags, command
from ..preflight import check_provider
from ..running import interrupted_resume, ready, refused_resume, resumed

GROUP = GROUP_RUNS


def _resume(args: argparse.Namespace) -> int:
    from ...domain.approval.verification import ResumeRequest

    if args.decision == "reject" and not args.reason.strip():
        raise ValidationError("a rejection needs a reason: pass --reason TEXT (the approval page asks for one too)")
    where, rt, binding = ready(args, create=False)
    rt = dataclasses.replace(rt, lease=args.lease)
    request = ResumeRequest(
        checkpoint_id=args.checkpoint,
        approved=args.decision == "approve",
        reviewed_hash=args.reviewed_hash,
        interrupt_id=args.interrupt_id,
        session_id=args.session_id,
    )
    approver = args.approver or os.environ.get("USER") or "operator"
    from ...services.deciding.resume_approval import ResumeDirect, resume_direct

    try:
        # The typed decision is a vote under the run's policy, then the resume, at once.
        decided = ResumeDirect(
            request, binding, approver=approver, reason=args.reason, before_claim=lambda: check_provider(binding)
        )
        result = resume_direct(rt, decided)
    except ResumeRefusedError as refusal:
        return refused_resume(args, where, refusal)
    return resumed(args, result)


def register(subparsers: Any) -> None:
    """``resume``."""
    resume = command(
        subparsers,
        "resume",
        summary="verify a checkpoint and apply (or reject) the plan you reviewed",
        description="In a fresh process: verify the checkpoint against everything stored, refuse on any "
        "mismatch before anything is written (exit 3, REFUSED=<CODE>), then claim the decision once and "
        "answer the agent's interrupt. Approve applies exactly the reviewed plan, once; reject needs a reason.",
        examples=[
            "resume --checkpoint ckpt-... --decision approve --reviewed-hash <PROPOSAL_HASH>",
            "resume --checkpoint ckpt-... --decision reject --reviewed-hash <PROPOSAL_HASH> --reason 'not this week'",
        ],
        handler=_resume,
    )
    ids = resume.add_argument_group("what you decide on")
    ids.add_argument(
        "--checkpoint", required=True, type=inputs.identifier, metavar="ID", help="the CHECKPOINT_ID start printed"
    )
    ids.add_argument("--decision", required=True, choices=("approve", "reject"), help="approve or reject the plan")
    ids.add_argument(
        "--reviewed-hash",
        required=True,
        type=inputs.proposal_hash,
        metavar="HASH",
        help="the full PROPOSAL_HASH you reviewed (64 hex, any case)",
    )
    ids.add_argument(
        "--reason",
        type=inputs.reason,
        default="",
        metavar="TEXT",
        help=f"why; required to reject (at most {MAX_REASON_CHARS} characters)",
    )
    ids.add_argument("--approver", default=None, metavar="NAME", help="who decides (default: the OS user)")
    ids.add_argument("--interrupt-id", default=None, metavar="ID", help="INTERRUPT_ID; must match the checkpoint")
    ids.add_argument("--session-id", default=None, type=inputs.identifier, metavar="ID", help="SESSION_ID; must match")
    ids.add_argument(
        "--lease",
        type=inputs.duration,
        default=os.environ.get(ENV_DECISION_LEASE) or "10m",
        metavar="DURATION",
        help=f"how long this resume holds the decision before a re-run may finish it (or ${ENV_DECISION_LEASE})",
    )
    add_json_flag(resume)
    add_provider_flags(resume)
    resume.set_defaults(on_interrupt=interrupted_resume, binding_from_checkpoint=True)
