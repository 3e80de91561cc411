"""``plan``: the plan the agent would propose for a customer's e-mail, printed and written nowhere.

plan --request PATH|- [--shop PATH] [--as-of DAY] [--solver-nodes N] [--json]
"""

from __future__ import annotations

import argparse
from typing import Any

from ...domain.errors import ValidationError
from ...domain.limits import DEFAULT_NODES
from .. import inputs
from ..files import parse_shop_file, read_text
from ..output import EXIT_OK, emit_json
from ..parser import GROUP_RUNS, command, data_dir
from ..root import local_runtime, utc_now

GROUP = GROUP_RUNS


def _plan(args: argparse.Namespace) -> int:
    from ...domain.presentation import describe_at_risk, describe_blockers, describe_messages, describe_plan
    from ...services.evidence import current_state
    from ...services.runs.preview import preview_plan

    if args.request == "-" and args.shop == "-":
        raise ValidationError("--request and --shop cannot both be read from standard input; give one as a file")
    text = read_text(args.request, "request")
    if args.shop is not None:
        shop = parse_shop_file(read_text(args.shop, "shop file"))
    else:
        shop = current_state(local_runtime(data_dir(args), create=False).store)
    proposal = preview_plan(shop, text, args.as_of or shop.planning_day(utc_now()), args.solver_nodes)
    if args.json:
        emit_json({"proposal_hash": proposal.proposal_hash(), "proposal": proposal.model_dump(mode="json")})
        return EXIT_OK
    print(f"PROPOSAL_HASH={proposal.proposal_hash()}")
    print(f"PLANNED_BY={proposal.planned_by}")
    print(f"Plan for {proposal.target_order.id} from {proposal.planning_day} (nothing was written):")
    for heading, lines in (
        ("What blocks it", describe_blockers(proposal)),
        ("Changes", describe_plan(proposal)),
        ("At risk", describe_at_risk(proposal)),
        ("Messages drafted", describe_messages(proposal)),
    ):
        if lines:
            print(f"\n{heading}:")
            print("\n".join(f"  - {line}" for line in lines))
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``plan``."""
    plan = command(
        subparsers,
        "plan",
        summary="print the plan the agent would propose for a customer's e-mail, writing nothing",
        description="Read a customer's e-mail as the deterministic provider does, take the order in on a copy "
        "of the shop (this data dir's, or a shop file with --shop: no data dir needed) and print the plan the "
        "agent would propose. Nothing is written: no shop change, no session, no audit event. --json prints the "
        "proposal in the shape show --json uses.",
        examples=[
            "plan --request customer.eml",
            "plan --request customer.eml --shop my-shop.json --as-of 2026-12-01 --json",
        ],
        handler=_plan,
    )
    plan.add_argument("--request", required=True, metavar="PATH|-", help="a customer e-mail (.eml or plain text)")
    plan.add_argument("--shop", default=None, metavar="PATH|-", help="plan on this shop file, not the data dir's")
    plan.add_argument("--as-of", default=None, metavar="YYYY-MM-DD", help="planning day (default: today in the shop)")
    plan.add_argument(
        "--solver-nodes",
        type=inputs.zero_or_more,
        default=DEFAULT_NODES,
        metavar="N",
        help="the solver's budget in work: branch-and-bound nodes per objective stage (0: the greedy plan only)",
    )
    plan.add_argument("--json", action="store_true", help="the proposal as JSON, in the shape show --json uses")
