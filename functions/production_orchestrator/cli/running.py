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
from .config import DEFAULT_PROVIDER
from .output import EXIT_NOT_APPLIED, EXIT_OK, PROG, emit, refused, say
from .parser import DEFAULT_DATA_DIR, data_dir
from .preflight import check_provider
from .progress import terminal_progress
from .root import local_runtime, log_refusal, utc_now

if TYPE_CHECKING:  # the services load when a command runs, not when the parser is built
    from ..domain.errors import ResumeRefusedError
    from ..domain.records import ProviderBinding
    from ..services.deciding.claim import ResumeResult
    from ..services.runtime import Runtime


# The flags that select the model (the provider binding), by attribute.
BINDING_FLAGS = {
    "provider": "--provider",
    "model": "--model",
    "region": "--region",
    "profile": "--profile",
    "bedrock_endpoint": "--bedrock-endpoint",
    "ollama_host": "--ollama-host",
}


def binding_of(args: argparse.Namespace) -> ProviderBinding:
    """The provider binding the flags (and the configuration file under them) name."""
    from ..agent.providers import build_binding  # imports strands: only for commands that run a model

    return build_binding(
        args.provider or DEFAULT_PROVIDER,
        args.model,
        args.region,
        args.profile,
        bedrock_endpoint=args.bedrock_endpoint,
        ollama_host=args.ollama_host,
    )


def typed_binding_flags(args: argparse.Namespace) -> dict[str, str]:
    """The binding flags given on the command line (not filled from a configuration file), by attribute."""
    configured = getattr(args, "configured", {})
    return {
        name: str(getattr(args, name))
        for name in BINDING_FLAGS
        if getattr(args, name, None) is not None and name not in configured
    }


def resume_binding(args: argparse.Namespace, rt: Runtime) -> ProviderBinding:
    """The binding a resume runs with: its checkpoint's, each field a flag gives replaced by the flag's value
    (the resume gate then refuses a binding that differs, PROVIDER_MISMATCH). A checkpoint that cannot be read
    leaves the flags' binding: the gate names that refusal (CHECKPOINT_INVALID)."""
    from ..agent.providers import build_binding
    from ..domain.errors import OrchestratorError
    from ..services.evidence import load_checkpoint

    try:
        recorded = load_checkpoint(rt.store, args.checkpoint).provider_binding
    except (OrchestratorError, ValueError):
        return binding_of(args)
    typed = typed_binding_flags(args)
    if not typed:
        return recorded
    provider = typed.get("provider", recorded.provider)
    same = provider == recorded.provider

    def field(name: str, value: str) -> str | None:
        return typed.get(name, value if same and value else None)

    return build_binding(
        provider,
        field("model", recorded.model_id),
        typed.get("region", recorded.region if same else None),
        field("profile", recorded.profile),
        bedrock_endpoint=field("bedrock_endpoint", recorded.endpoint if provider == "bedrock" else ""),
        ollama_host=field("ollama_host", recorded.endpoint if provider == "ollama" else ""),
    )


def provider_argv(args: argparse.Namespace) -> list[str]:
    """The binding flags typed, for a command run in a fresh process (``serve`` -> ``resume-approval``): a
    value from the configuration file is not passed on, so the resume runs with its checkpoint's binding."""
    argv: list[str] = []
    for name, value in typed_binding_flags(args).items():
        argv += [BINDING_FLAGS[name], value]
    return [*argv, "--bedrock-streaming" if args.bedrock_streaming else "--no-bedrock-streaming"]


def ready(args: argparse.Namespace, *, create: bool) -> tuple[Path, Runtime, ProviderBinding]:
    """The binding, the data dir's runtime. ``start`` checks the model can be reached before it creates the
    data dir or seeds the shop; a resume does so after its gate (``before_claim``), so a refusal stays one. A
    resume (``binding_from_checkpoint``) runs with the binding its checkpoint recorded."""
    where = data_dir(args)
    from_checkpoint = getattr(args, "binding_from_checkpoint", False)
    binding = None if from_checkpoint else binding_of(args)
    if binding is not None and create:
        check_provider(binding)
    rt = local_runtime(where, create=create)
    if binding is None:
        binding = resume_binding(args, rt)
    settings = ModelSettings(streaming=args.bedrock_streaming)
    return where, dataclasses.replace(rt, model_settings=settings, progress=terminal_progress()), binding


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
