"""The local entry point: ``python -m production_orchestrator start|resume|status|show|shop``.

Exit codes: 0 done, 2 bad input or a state that forbids the command, 3 resume refused (REFUSED=<CODE>),
4 the decision was recorded but the plan could not be applied, 1 an unexpected internal error.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from ..agent.providers import PROVIDERS, ModelSettings, build_binding
from ..domain.durations import parse_duration
from ..domain.errors import OrchestratorError, PlanNotAppliedError, ResumeRefusedError, ValidationError
from ..domain.presentation import render_review, render_shop
from ..domain.records import ProviderBinding, require_hash, utc_iso
from ..domain.scenarios import SCENARIOS
from ..domain.verification import ResumeRequest
from ..lifecycle.evidence import review
from ..lifecycle.runtime import Runtime
from ..lifecycle.start import start_run
from ..lifecycle.status import status
from . import approvals as cli_approvals
from .root import local_runtime, log_refusal, utc_now

DEFAULT_DATA_DIR = ".production-orchestrator"
ENV_LEASE = "PO_DECISION_LEASE"
EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_REFUSED, EXIT_NOT_APPLIED = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One clear line, not a usage dump.
        self.exit(EXIT_USAGE, f"error: {message} (see --help)\n")


def _provider_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", default="deterministic", choices=PROVIDERS)
    parser.add_argument("--model", default=None, help="model id (each provider has a default)")
    parser.add_argument("--region", default=None)
    parser.add_argument("--profile", default=None, help="AWS profile name (bedrock)")
    parser.add_argument(
        "--bedrock-endpoint", default=None, metavar="URL", help="Bedrock Runtime endpoint override (private endpoint)"
    )
    parser.add_argument("--ollama-host", default=None, metavar="URL", help="Ollama server (default 127.0.0.1:11434)")
    parser.add_argument(
        "--bedrock-streaming",
        default=True,
        action=argparse.BooleanOptionalAction,
        help="use ConverseStream (default) or Converse",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m production_orchestrator", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def data_dir(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-dir", type=Path, default=Path(DEFAULT_DATA_DIR))

    start = sub.add_parser("start", help="run the agent until it asks for approval, then exit")
    data_dir(start)
    start.add_argument("--scenario", default="rush-order", choices=sorted(SCENARIOS))
    _provider_flags(start)
    start.add_argument("--approval-window", default="7d", help="e.g. 90s, 30m, 7d (default 7d)")
    cli_approvals.add_start_flags(start)

    resume = sub.add_parser("resume", help="verify a checkpoint and submit the human decision")
    data_dir(resume)
    resume.add_argument("--checkpoint", required=True)
    resume.add_argument("--decision", required=True, choices=("approve", "reject"))
    resume.add_argument("--reviewed-hash", required=True, help="the full 64-hex proposal hash you reviewed")
    resume.add_argument("--reason", default="")
    resume.add_argument("--approver", default=None, help="who decides (default: the OS user)")
    resume.add_argument("--interrupt-id", default=None)
    resume.add_argument("--session-id", default=None)
    resume.add_argument(
        "--lease",
        default=os.environ.get(ENV_LEASE) or "10m",
        help=f"how long this resume holds the decision before a re-run may finish it (default 10m, or ${ENV_LEASE})",
    )
    _provider_flags(resume)

    stat = sub.add_parser("status", help="revision, applications and every approval")
    data_dir(stat)
    stat.add_argument("--json", action="store_true")

    show = sub.add_parser("show", help="the plan a human reviews")
    data_dir(show)
    show.add_argument("--checkpoint", required=True)

    shop = sub.add_parser("shop", help="look at the shop or record an out-of-band change")
    data_dir(shop)
    shop_sub = shop.add_subparsers(dest="shop_command", required=True, parser_class=_Parser)
    shop_sub.add_parser("show")
    inv = shop_sub.add_parser("set-inventory", help="record a counted or delivered quantity")
    inv.add_argument("material")
    inv.add_argument("quantity", type=int)

    decided = sub.add_parser("resume-approval", help="resume with the decision recorded on an approval page")
    data_dir(decided)
    decided.add_argument("--checkpoint", required=True)
    decided.add_argument("--approval", required=True)
    _provider_flags(decided)

    again = sub.add_parser("repropose", help="plan again on the current shop after a stale refusal")
    data_dir(again)
    again.add_argument("--approval", default=None)
    again.add_argument("--checkpoint", default=None)
    _provider_flags(again)

    serve = sub.add_parser("serve", help="the approval pages on 127.0.0.1")
    data_dir(serve)
    serve.add_argument("--port", type=int, default=8765)
    _provider_flags(serve)

    audit = sub.add_parser("audit", help="check the audit trail's hash chain")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True, parser_class=_Parser)
    data_dir(audit_sub.add_parser("verify", help="name the first broken link, if any"))
    return parser


def _binding(args: argparse.Namespace) -> ProviderBinding:
    return build_binding(
        args.provider,
        args.model,
        args.region,
        args.profile,
        bedrock_endpoint=args.bedrock_endpoint,
        ollama_host=args.ollama_host,
    )


def _agent_runtime(args: argparse.Namespace, *, create: bool) -> Runtime:
    rt = local_runtime(args.data_dir, create=create)
    return dataclasses.replace(rt, model_settings=ModelSettings(streaming=args.bedrock_streaming))


def _start(args: argparse.Namespace) -> int:
    window = parse_duration(args.approval_window)
    binding = _binding(args)
    plan = cli_approvals.link_plan(args)  # a policy that cannot be satisfied stops here: nothing is written
    rt = _agent_runtime(args, create=True)
    result = start_run(rt, args.scenario, binding, window, plan)
    cp = result.checkpoint
    print(f"SESSION_ID={cp.session_id}")
    print(f"CHECKPOINT_ID={cp.checkpoint_id}")
    print(f"INTERRUPT_ID={cp.interrupt_id}")
    print(f"PROPOSAL_HASH={cp.proposal_hash}")
    print(f"EXPIRES_AT={cp.expires_at}")
    print(f"START_PID={cp.start_pid}")
    print(f"STOP_REASON={result.stop_reason}")
    cli_approvals.print_links(args, result, plan)
    return EXIT_OK


def _refused(args: argparse.Namespace, refusal: ResumeRefusedError) -> int:
    """Report a refusal: the code on stdout, the reason on stderr, one line in refusals.jsonl; nothing else."""
    print(f"REFUSED={refusal.code.value}")
    print(f"refused: {refusal.human_message}", file=sys.stderr)
    cli_approvals.print_stale(args, refusal)
    log_refusal(
        args.data_dir,
        {
            "at": utc_iso(utc_now()),
            "code": refusal.code.value,
            "message": refusal.human_message,
            "checkpoint_id": args.checkpoint,
            "pid": os.getpid(),
        },
    )
    return EXIT_REFUSED


def _resume(args: argparse.Namespace) -> int:
    try:
        require_hash(args.reviewed_hash, "--reviewed-hash")
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    lease = parse_duration(args.lease)
    binding = _binding(args)
    rt = dataclasses.replace(_agent_runtime(args, create=False), lease=lease)
    request = ResumeRequest(
        checkpoint_id=args.checkpoint,
        approved=args.decision == "approve",
        reviewed_hash=args.reviewed_hash,
        interrupt_id=args.interrupt_id,
        session_id=args.session_id,
    )
    approver = args.approver or os.environ.get("USER") or "operator"
    try:
        result = cli_approvals.resume(rt, request, binding, approver, args.reason)
    except ResumeRefusedError as refusal:
        return _refused(args, refusal)
    print(f"DECISION={'approved' if result.decision.approved else 'rejected'}")
    print(f"STATE_REVISION={result.revision}")
    print(f"PLAN_APPLIED_COUNT={result.plan_applied_count}")
    print(f"START_PID={result.checkpoint.start_pid}")
    print(f"RESUME_PID={result.resume_pid}")
    print(f"FINAL_STOP_REASON={result.stop_reason}")
    if result.outcome == "not_applied":
        print(
            f"error: the approval was recorded but the plan did not apply: {result.final_text}\n"
            "action needed: nothing was written to the shop and re-running this decision will not apply it; "
            "check the shop (shop show), then start a new run to propose a plan on the current state",
            file=sys.stderr,
        )
        return EXIT_NOT_APPLIED
    return EXIT_OK


def _status(args: argparse.Namespace) -> int:
    report = status(local_runtime(args.data_dir, create=False).store, utc_now())
    cli_approvals.superseded_labels(args.data_dir, report)
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return EXIT_OK
    print(f"Shop {report['scenario']}: revision {report['revision']}, plans applied {report['plan_applied_count']}")
    for a in report["approvals"]:
        who = f" by {a['approver']}" if a["approver"] else ""
        print(f"  {a['checkpoint_id']}  {a['status']:<9}{who}  order {a['target_order_id']}  expires {a['expires_at']}")
    if not report["approvals"]:
        print("  no approvals yet")
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    checkpoint, proposal = review(local_runtime(args.data_dir, create=False).store, args.checkpoint)
    print(render_review(checkpoint, proposal))
    return EXIT_OK


def _shop(args: argparse.Namespace) -> int:
    rt = local_runtime(args.data_dir, create=False)
    if args.shop_command == "set-inventory":
        from ..agent.context import RunContext

        ctx = RunContext(store=rt.store, session_id="", checkpoint_id="", clock=rt.clock)
        try:
            state = rt.store.set_inventory(
                args.material,
                args.quantity,
                ctx.event("inventory_set", material_id=args.material, quantity=args.quantity),
            )
        except ValueError as exc:
            raise ValidationError(str(exc)) from None
        print(f"{args.material} set to {args.quantity}; revision {state.revision}, digest {state.digest()[:12]}")
        return EXIT_OK
    current = rt.store.load_state()
    if current is None:
        raise ValidationError("no shop yet; run start first")
    print(render_shop(current))
    return EXIT_OK


def _resume_approval(args: argparse.Namespace) -> int:
    try:
        result = cli_approvals.resume_approval(args, _agent_runtime, _binding(args))
    except ResumeRefusedError as refusal:
        return _refused(args, refusal)
    except PlanNotAppliedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_NOT_APPLIED
    print(f"DECISION={'approved' if result.decision.approved else 'rejected'}")
    print(f"STATE_REVISION={result.revision}")
    print(f"PLAN_APPLIED_COUNT={result.plan_applied_count}")
    print(f"RESUME_PID={result.resume_pid}")
    return EXIT_OK


def _provider_argv(args: argparse.Namespace) -> list[str]:
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


def _serve(args: argparse.Namespace) -> int:
    return cli_approvals.serve(args, _provider_argv(args))


def _repropose(args: argparse.Namespace) -> int:
    return cli_approvals.repropose(args, _agent_runtime, _binding(args))


def _audit(args: argparse.Namespace) -> int:
    return cli_approvals.audit_verify(local_runtime(args.data_dir, create=False))


COMMANDS = {
    "start": _start,
    "resume": _resume,
    "status": _status,
    "show": _show,
    "shop": _shop,
    "resume-approval": _resume_approval,
    "repropose": _repropose,
    "serve": _serve,
    "audit": _audit,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; never a traceback for an expected failure."""
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except ResumeRefusedError as refusal:  # show/status on an invalid checkpoint
        print(f"error: {refusal.code.value}: {refusal.human_message}", file=sys.stderr)
        return EXIT_USAGE
    except OrchestratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # pragma: no cover - the last line of defence
        if os.environ.get("PO_DEBUG"):
            raise
        print(f"internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
