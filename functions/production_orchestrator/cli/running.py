"""What the commands that run the agent share (``start``, ``resume``, ``resume-approval``, ``repropose``, and
``serve`` for the resumes it starts): the provider binding from the flags, the data dir's runtime, the result
of a resume and its refusal printed, and what a Ctrl-C during a resume left.

Strands is imported only when one of them runs, so ``--help``, ``status`` and ``show`` start fast.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent.model_settings import ModelSettings
from .approval_side import print_stale
from .output import EXIT_NOT_APPLIED, EXIT_OK, PROG, emit, refused, say
from .parser import DEFAULT_DATA_DIR, data_dir
from .preflight import check_provider
from .root import local_runtime, log_refusal, utc_now

if TYPE_CHECKING:  # the services load when a command runs, not when the parser is built
    from ..domain.errors import ResumeRefusedError
    from ..domain.records import ProviderBinding
    from ..services.deciding.claim import ResumeResult
    from ..services.runtime import Runtime


def binding_of(args: argparse.Namespace) -> ProviderBinding:
    """The provider binding the flags name."""
    from ..agent.providers import build_binding  # imports strands: only for commands that run a model

    return build_binding(
        args.provider,
        args.model,
        args.region,
        args.profile,
        bedrock_endpoint=args.bedrock_endpoint,
        ollama_host=args.ollama_host,
    )


def provider_argv(args: argparse.Namespace) -> list[str]:
    """The provider flags again, for a command run in a fresh process (``serve`` -> ``resume-approval``)."""
    argv = ["--provider", args.provider]
    for flag, value in (
        ("--model", args.model),
        ("--region", args.region),
        ("--profile", args.profile),
        ("--bedrock-endpoint", args.bedrock_endpoint),
        ("--ollama-host", args.ollama_host),
    ):
        if value:
            argv += [flag, value]
    return [*argv, "--bedrock-streaming" if args.bedrock_streaming else "--no-bedrock-streaming"]


def ready(args: argparse.Namespace, *, create: bool) -> tuple[Path, Runtime, ProviderBinding]:
    """The binding, the data dir's runtime. ``start`` checks the model can be reached before it creates the
    data dir or seeds the shop; a resume does so after its gate (``before_claim``), so a refusal stays one."""
    binding = binding_of(args)
    where = data_dir(args)
    if create:
        check_provider(binding)
    rt = local_runtime(where, create=create)
    return where, dataclasses.replace(rt, model_settings=ModelSettings(streaming=args.bedrock_streaming)), binding


def with_dir(where: Path) -> str:
    return "" if where == Path(DEFAULT_DATA_DIR) else f" --data-dir {where}"


def resumed(args: argparse.Namespace, result: ResumeResult) -> int:
    """Print a resume's outcome; exit 4 when the approval was recorded but the plan did not apply."""
    emit(
        {
            "checkpoint_id": result.checkpoint.checkpoint_id,
            "decision": "approved" if result.decision.approved else "rejected",
            "outcome": result.outcome,
            "state_revision": result.revision,
            "plan_applied_count": result.plan_applied_count,
            "start_pid": result.checkpoint.start_pid,
            "resume_pid": result.resume_pid,
            "final_stop_reason": result.stop_reason,
        },
        as_json=args.json,
    )
    if result.outcome == "not_applied":
        say(
            f"error: the approval was recorded but the plan did not apply: {result.final_text}\n"
            "action needed: nothing was written to the shop and re-running this decision will not apply it; "
            f"check the shop ({PROG} shop show), then start a new run to propose a plan on the current state"
        )
        return EXIT_NOT_APPLIED
    return EXIT_OK


def refused_resume(args: argparse.Namespace, where: Path, refusal: ResumeRefusedError) -> int:
    """The code on stdout, the reason on stderr, one line in refusals.jsonl; nothing else is written."""
    from ..domain.records import utc_iso

    code = refused(refusal.code.value, refusal.human_message, as_json=args.json)
    print_stale(where, args.checkpoint, refusal)
    log_refusal(
        where,
        {
            "at": utc_iso(utc_now()),
            "code": refusal.code.value,
            "message": refusal.human_message,
            "checkpoint_id": args.checkpoint,
            "pid": os.getpid(),
        },
    )
    return code


def interrupted_resume(args: argparse.Namespace) -> str:
    """What a Ctrl-C during a resume left, read back from the store."""
    try:
        record = local_runtime(data_dir(args), create=False).store.get_decision(args.checkpoint)
    except Exception:
        record = None
    if record is None:
        return "interrupted before the decision was recorded: nothing was written; run the same command again"
    if record.completion is None:
        return (
            f"interrupted after the decision was claimed: status shows it as resuming; run the same command "
            f"again after {record.lease_expires_at} to finish it"
        )
    return f"interrupted after the resume finished ({record.completion.outcome}); see `{PROG} status`"
