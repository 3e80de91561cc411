"""``start``: run the agent until it asks a person to approve its plan, then exit.

Checks its input and that the model can be reached before anything is written, then calls one service step
and prints its result (``KEY=value`` lines, or ``--json``): the ids a decision needs and one approval link
per approver. What it plans: a reference scenario, or a customer's e-mail on this data dir's shop
(``--request PATH|- [--as-of DAY]``), with facts the operator gives (``--product``, ``--due``, ...).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ...domain.errors import AlreadyPendingError, PossibleDuplicateError, ValidationError
from ...domain.limits import DEFAULT_NODES, SCENARIO_TITLES
from .. import approval_side, inputs
from ..config import START_KEYS
from ..files import read_text
from ..given import add_given_flags, given_facts
from ..output import EXIT_OK, PROG, emit, say
from ..parser import GROUP_RUNS, add_json_flag, add_provider_flags, command
from ..running import ready, with_dir

if TYPE_CHECKING:  # the services load when the command runs, not when the parser is built
    from ...services.runs.plan_request import PlanRequest
    from ...services.runtime import Runtime

DEFAULT_SCENARIO = "rush-order"

GROUP = GROUP_RUNS


def add_request_flags(start: argparse.ArgumentParser) -> None:
    """``start``'s choice of what to plan: a reference scenario, or a customer's e-mail on this shop."""
    start.add_argument(
        "--scenario",
        default=None,
        choices=sorted(SCENARIO_TITLES),
        help=f"seed and plan a reference scenario (default {DEFAULT_SCENARIO} when no --request)",
    )
    start.add_argument("--request", default=None, metavar="PATH|-", help="a customer e-mail (.eml or plain text)")
    start.add_argument("--as-of", default=None, metavar="YYYY-MM-DD", help="planning day (default: today in the shop)")
    add_given_flags(start)


def plan_request(args: argparse.Namespace, rt: Runtime) -> PlanRequest:
    """What ``start`` plans, from its flags."""
    from ...domain.shop.model import parse_day
    from ...services.runs.plan_request import PlanRequest, on_current_shop

    if args.as_of is not None:
        try:
            parse_day(args.as_of)
        except ValueError as exc:
            raise ValidationError(f"--as-of: {exc}") from None
    text = read_text(args.request, "request") if args.request else None
    if text is not None and rt.progress is not None:
        rt.progress("reading the e-mail")
    if args.scenario or not args.request:
        chosen = PlanRequest.of_scenario(args.scenario or DEFAULT_SCENARIO, text=text, planning_day=args.as_of)
    else:
        chosen = on_current_shop(rt, text or "", args.as_of)
    return dataclasses.replace(chosen, given=given_facts(args))


def _start(args: argparse.Namespace) -> int:
    from ...services.runs.start import StartRun, start_run

    plan = approval_side.link_plan(args)  # a policy nobody can satisfy stops here: nothing created, no model called
    where, rt, binding = ready(args, create=True)
    plan = approval_side.link_plan(args, rt.receipt_key)  # derivable links, now that the data dir has its key
    rt = dataclasses.replace(rt, solver_nodes=args.solver_nodes)
    try:
        run = StartRun(plan_request(args, rt), binding, args.approval_window, plan, again=args.again)
        result = start_run(rt, run)
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
    except PossibleDuplicateError as held:
        # The same sender's same words in another envelope: held beside the earlier run, exit 0, nothing planned.
        emit(
            {
                "held_id": held.held_id,
                "duplicate_of": held.checkpoint_id,
                "duplicate_order": held.order_id or None,
                "possible_duplicate": 1,
            },
            as_json=args.json,
        )
        say(str(held))
        say(f"  start it anyway: `{PROG} start{with_dir(where)} --request {args.request} --again`; or drop it: "
            f"`{PROG} request drop{with_dir(where)} {held.held_id}`")  # fmt: skip
        return EXIT_OK
    links = approval_side.issued_links(args, where, result, plan)
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
        say(f"approval requests for {', '.join(mailed)} wait in the outbox: `{PROG} outbox send{with_dir(where)} "
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
    d = with_dir(where)
    serve = f"`{PROG} serve{d}{'' if port == 8765 else f' --port {port}'}`"
    opening = f"run {serve} and open {link}" if local else f"open {link} (served at {args.link_base})"
    say(f"next: {opening},")
    say(f"  or read the plan with `{PROG} show{d} --checkpoint {checkpoint_id}`")
    say(f"  and decide with `{PROG} resume{d} --checkpoint {checkpoint_id} --decision approve|reject ...`")


def register(subparsers: Any) -> None:
    """``start``."""
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
    add_request_flags(start)
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
        help="plan a request that was already decided (approved, rejected or expired), or one held as a possible "
        "duplicate, once more",
    )
    add_json_flag(start)
    approval_side.add_start_flags(start)
    add_provider_flags(start)
    start.set_defaults(
        config_keys=START_KEYS,
        on_interrupt=lambda _: (
            f"interrupted: no approval link was printed; run start again (`{PROG} status` "
            "lists any checkpoint left without one; it expires unused)"
        ),
    )
