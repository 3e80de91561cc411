"""The commands that run the agent: ``start``, ``resume``, ``resume-approval``, ``repropose``.

Each checks its input and that the model can be reached before anything is written, then calls one
lifecycle step and prints its result (``KEY=value`` lines, or ``--json``). Strands is imported only when
one of them runs, so ``--help``, ``status`` and ``show`` start fast.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..agent.model_settings import ModelSettings
from ..contracts import ENV_DECISION_LEASE
from ..domain.approval.verification import ResumeRequest
from ..domain.errors import AlreadyPendingError, PlanNotAppliedError, ResumeRefusedError, ValidationError
from ..domain.planning.solver import DEFAULT_NODES
from ..domain.records import MAX_REASON_CHARS, ProviderBinding, utc_iso
from ..services.deciding.claim import ResumeResult
from ..services.runtime import Runtime
from . import approvals as cli_approvals
from . import inputs
from . import shop as cli_shop
from .output import EXIT_NOT_APPLIED, EXIT_OK, PROG, emit, refused, say
from .parser import DEFAULT_DATA_DIR, add_provider_flags, command, data_dir
from .preflight import check_provider
from .root import local_runtime, log_refusal, utc_now


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


def _ready(args: argparse.Namespace, *, create: bool) -> tuple[Path, Runtime, ProviderBinding]:
    """The binding, the data dir's runtime. ``start`` checks the model can be reached before it creates the
    data dir or seeds the shop; a resume does so after its gate (``before_claim``), so a refusal stays one."""
    binding = binding_of(args)
    where = data_dir(args)
    if create:
        check_provider(binding)
    rt = local_runtime(where, create=create)
    return where, dataclasses.replace(rt, model_settings=ModelSettings(streaming=args.bedrock_streaming)), binding


def _with_dir(where: Path) -> str:
    return "" if where == Path(DEFAULT_DATA_DIR) else f" --data-dir {where}"


def _start(args: argparse.Namespace) -> int:
    from ..services.runs.start import start_run

    plan = cli_approvals.link_plan(args)  # a policy nobody can satisfy stops here: nothing created, no model called
    where, rt, binding = _ready(args, create=True)
    plan = cli_approvals.link_plan(args, rt.receipt_key)  # derivable links, now that the data dir has its key
    rt = dataclasses.replace(rt, solver_nodes=args.solver_nodes)
    try:
        result = start_run(
            rt, cli_shop.plan_request(args, rt.store), binding, args.approval_window, plan, again=args.again
        )
    except AlreadyPendingError as pending:
        # The same request started again while its run waits: that run's ids, exit 0, nothing written.
        emit(
            {
                "checkpoint_id": pending.checkpoint_id,
                "proposal_hash": pending.proposal_hash,
                "approval_id": pending.approval_id or None,
                "already_pending": 1,
            },
            as_json=args.json,
        )
        say(str(pending))
        return EXIT_OK
    links = cli_approvals.issued_links(args, where, result, plan)
    cp = result.checkpoint
    values: dict[str, Any] = {
        "session_id": cp.session_id,
        "checkpoint_id": cp.checkpoint_id,
        "interrupt_id": cp.interrupt_id,
        "proposal_hash": cp.proposal_hash,
        "expires_at": cp.expires_at,
        "start_pid": cp.start_pid,
        "stop_reason": result.stop_reason,
        **links.values(),
    }
    if args.json:
        values = {k: v for k, v in values.items() if not k.startswith(("approver_", "approval_url_", "approval_sent_"))}
        values["approvers"] = [
            {"approver": a, "approval_url": link} if link else {"approver": a, "sent": "outbox"}
            for a, link in links.links
        ]
    emit(values, as_json=args.json)
    _next_steps(args, where, cp.checkpoint_id, len(links.links))
    mailed = [a for a, link in links.links if not link]
    if mailed:
        say(f"approval requests for {', '.join(mailed)} wait in the outbox: `{PROG} outbox send{_with_dir(where)} "
            "--smtp HOST:PORT` delivers them (or --to-dir DIR)")  # fmt: skip
        if urlsplit(args.link_base).hostname in ("127.0.0.1", "localhost"):
            say(f"note: their links start with {args.link_base}, which only this computer opens; for a phone, "
                "start with --link-base https://<LAN address>:PORT/approve and `serve --bind` with TLS")  # fmt: skip
    return EXIT_OK


def _next_steps(args: argparse.Namespace, where: Path, checkpoint_id: str, approvers: int) -> None:
    """What a person does now, on stderr: open the link under ``serve``, or review and decide here."""
    base = urlsplit(args.link_base)
    local = base.scheme == "http" and base.hostname in ("127.0.0.1", "localhost") and base.path == "/approve"
    port = base.port or 80
    link = "APPROVAL_URL" if approvers == 1 else "each approver's APPROVAL_URL_<n>"
    d = _with_dir(where)
    serve = f"`{PROG} serve{d}{'' if port == 8765 else f' --port {port}'}`"
    opening = f"run {serve} and open {link}" if local else f"open {link} (served at {args.link_base})"
    say(f"next: {opening},")
    say(f"  or read the plan with `{PROG} show{d} --checkpoint {checkpoint_id}`")
    say(f"  and decide with `{PROG} resume{d} --checkpoint {checkpoint_id} --decision approve|reject ...`")


def _resume(args: argparse.Namespace) -> int:
    if args.decision == "reject" and not args.reason.strip():
        raise ValidationError("a rejection needs a reason: pass --reason TEXT (the approval page asks for one too)")
    where, rt, binding = _ready(args, create=False)
    rt = dataclasses.replace(rt, lease=args.lease)
    request = ResumeRequest(
        checkpoint_id=args.checkpoint,
        approved=args.decision == "approve",
        reviewed_hash=args.reviewed_hash,
        interrupt_id=args.interrupt_id,
        session_id=args.session_id,
    )
    approver = args.approver or os.environ.get("USER") or "operator"
    from ..services.deciding.resume_approval import resume_direct

    try:
        # The typed decision is a vote under the run's policy, then the resume, at once.
        result = resume_direct(
            rt, request, binding, approver=approver, reason=args.reason, before_claim=lambda: check_provider(binding)
        )
    except ResumeRefusedError as refusal:
        return _refused(args, where, refusal)
    return _resumed(args, result)


def _resumed(args: argparse.Namespace, result: ResumeResult) -> int:
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


def _refused(args: argparse.Namespace, where: Path, refusal: ResumeRefusedError) -> int:
    """The code on stdout, the reason on stderr, one line in refusals.jsonl; nothing else is written."""
    code = refused(refusal.code.value, refusal.human_message, as_json=args.json)
    cli_approvals.print_stale(where, args.checkpoint, refusal)
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


def _resume_approval(args: argparse.Namespace) -> int:
    where, rt, binding = _ready(args, create=False)
    try:
        result = cli_approvals.resume_approval(
            where, rt, binding, args.checkpoint, args.approval, before_claim=lambda: check_provider(binding)
        )
    except ResumeRefusedError as refusal:
        return _refused(args, where, refusal)
    except PlanNotAppliedError as exc:
        say(f"error: {exc}")
        return EXIT_NOT_APPLIED
    return _resumed(args, result)


def _repropose(args: argparse.Namespace) -> int:
    if not (args.approval or args.checkpoint):
        raise ValidationError("name the stale run: pass --approval ID or --checkpoint ID")
    where, rt, binding = _ready(args, create=False)
    check_provider(binding)
    emit(cli_approvals.repropose(where, rt, binding, args.approval, args.checkpoint), as_json=args.json)
    say("the approvers' existing links now open the new plan")
    return EXIT_OK


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


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of KEY=value lines")


def register(subparsers: Any) -> None:
    """``start``, ``resume``, ``resume-approval``, ``repropose``."""
    start = command(
        subparsers,
        "start",
        summary="run the agent until it asks for approval, then exit",
        description="Run the agent on the shop until it asks a person to approve its plan. The session, the "
        "proposal and a sealed checkpoint are stored and the process exits; nothing waits in memory. Prints "
        "the ids a decision needs and one approval link per approver (stdout is the local 'e-mail').",
        examples=[
            "start",
            "start --scenario team-jerseys --approvers ana@example.com,ben@example.com --approval-window 1h30m",
            "start --request customer.eml --as-of 2026-12-01",
            "start --provider bedrock --region eu-central-1 --json",
        ],
        handler=_start,
    )
    cli_shop.add_request_flags(start)
    start.add_argument(
        "--approval-window",
        type=inputs.duration,
        default="7d",
        metavar="DURATION",
        help="how long the approval stays open: 90s, 30m, 1h30m, 12h, 7d, 2w",
    )
    start.add_argument(
        "--solver-nodes",
        type=inputs.zero_or_more,
        default=DEFAULT_NODES,
        metavar="N",
        help="the planning solver's budget in work: branch-and-bound nodes per objective stage (0: greedy only)",
    )
    start.add_argument(
        "--again",
        action="store_true",
        help="plan a request that was already decided (approved, rejected or expired) once more",
    )
    _json_flag(start)
    cli_approvals.add_start_flags(start)
    add_provider_flags(start)
    start.set_defaults(
        on_interrupt=lambda _: (
            f"interrupted: no approval link was printed; run start again (`{PROG} status` "
            "lists any checkpoint left without one; it expires unused)"
        )
    )

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
    _json_flag(resume)
    add_provider_flags(resume)
    resume.set_defaults(on_interrupt=interrupted_resume)

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
    _json_flag(decided)
    add_provider_flags(decided)
    decided.set_defaults(on_interrupt=interrupted_resume)

    again = command(
        subparsers,
        "repropose",
        summary="plan again on the current shop after a stale refusal",
        description="When the shop changed since a plan was proposed (STALE_DOMAIN_STATE), run the agent "
        "again on the current shop. The new plan gets a new approval with the same policy; the approvers' "
        "existing links open it.",
        examples=["repropose --checkpoint ckpt-...", "repropose --approval appr-..."],
        handler=_repropose,
    )
    again.add_argument(
        "--approval", default=None, type=inputs.identifier, metavar="ID", help="the APPROVAL_ID start printed"
    )
    again.add_argument(
        "--checkpoint", default=None, type=inputs.identifier, metavar="ID", help="the CHECKPOINT_ID start printed"
    )
    _json_flag(again)
    add_provider_flags(again)
    again.set_defaults(
        on_interrupt=lambda _: (
            f"interrupted: the old plan stays as it was unless CHECKPOINT_ID was printed; see `{PROG} status`"
        )
    )
