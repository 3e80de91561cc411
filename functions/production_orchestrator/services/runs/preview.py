"""Preview: the plan the agent would propose for a customer's e-mail, on a shop, without writing anything.

e-mail -> the rule-based reader + the shared resolver (as the deterministic provider reads it)
       -> the order taken in on a copy of the shop -> build_proposal (solver, greedy as fallback)
"""

from __future__ import annotations

from ...domain.errors import ValidationError
from ...domain.intake.customer_message import read_message
from ...domain.intake.facts import read_facts, resolve_request
from ...domain.limits import DEFAULT_NODES
from ...domain.planning.proposal import ProposalContent
from ...domain.planning.propose import Requested, build_proposal
from ...domain.shop.model import ShopState, parse_day


def preview_plan(
    shop: ShopState, request_text: str, planning_day: str, solver_nodes: int = DEFAULT_NODES
) -> ProposalContent:
    """The proposal for ``request_text`` on ``shop`` from ``planning_day``; ``shop`` itself is not changed."""
    try:
        parse_day(planning_day)
    except ValueError as exc:
        raise ValidationError(f"--as-of: {exc}") from None
    message = read_message(request_text)
    facts = read_facts(message, shop.products, message.sent_day or parse_day(planning_day))
    order = resolve_request(message, facts, shop, planning_day)
    return build_proposal(
        shop, order.id, planning_day, Requested(message.text, pending=order), solver_nodes=solver_nodes
    )
