"""What a model may not do on its way to the gate, judged from the conversation and the customer's e-mail.

The tools compute the plan from the shop; the model only chooses calls. Only two calls shape the plan,
so the rules are about those two and the gate:

    intake_customer_request  must take in the order the customer's e-mail describes (parsed and compared,
                             so re-wrapped text passes and a changed quantity or priority does not)
    propose_schedule         only for the order an intake of this run took in (without it the plan could
                             be built for an order that was never this customer's request)
    apply_production_plan    only with a hash that a propose_schedule of this run returned (the hook then
                             re-reads the stored proposal and interrupts for the human)

Reads (orders, inventory, capacity, blockers, drafts) cannot change the plan: a model may skip or repeat
them. Tool results in the conversation are written by Strands from the tools' own returns; the model
cannot forge them, so they are evidence of what ran.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from strands.types.content import Messages

from ..domain.errors import IntakeError
from ..domain.intake import parse_customer_email
from ..domain.scenarios import CATALOG
from ..domain.shop import Order
from .prompts import extract_customer_email
from .tools import APPLY_TOOL, INTAKE_TOOL, PROPOSE_TOOL

# The calls judged against the customer's request (and so against the shop's planning window).
REQUEST_BOUND_TOOLS = frozenset({INTAKE_TOOL, PROPOSE_TOOL})


@dataclass(frozen=True)
class ToolOutcome:
    """One finished tool call as the conversation records it."""

    name: str
    tool_input: dict[str, Any]
    succeeded: bool
    text: str

    def json_field(self, key: str) -> str | None:
        """A string field of the JSON the tool returned, if it returned one."""
        try:
            value = json.loads(self.text)
        except ValueError:
            return None
        field = value.get(key) if isinstance(value, dict) else None
        return field if isinstance(field, str) else None


def tool_outcomes(messages: Messages) -> list[ToolOutcome]:
    """Every tool result in conversation order, paired with the call that produced it."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    outcomes: list[ToolOutcome] = []
    for message in messages:
        for block in message["content"]:
            if "toolUse" in block:
                use = block["toolUse"]
                tool_input = use.get("input")
                calls[use["toolUseId"]] = (use["name"], tool_input if isinstance(tool_input, dict) else {})
            if "toolResult" in block:
                result = block["toolResult"]
                name, tool_input = calls.get(result["toolUseId"], ("", {}))
                text = "".join(str(c.get("text", "")) for c in result.get("content", []))
                outcomes.append(ToolOutcome(name, tool_input, result.get("status") == "success", text))
    return outcomes


def first_user_text(messages: Messages) -> str:
    """The text of the run's first user turn: the request the service put there."""
    for message in messages:
        if message["role"] == "user":
            return "".join(str(b["text"]) for b in message["content"] if "text" in b)
    return ""


def _order(email: str, days: Sequence[str]) -> Order | None:
    try:
        return parse_customer_email(email, CATALOG, days)
    except IntakeError:
        return None


def refusal(name: str, tool_input: dict[str, Any], messages: Messages, days: Sequence[str]) -> str | None:
    """Why this call may not run now, or ``None`` when it may.

    ``messages`` is the conversation so far (the calling turn included); ``days`` the shop's planning
    window, which parsing the customer's request needs (only for :data:`REQUEST_BOUND_TOOLS`).
    """
    if name == APPLY_TOOL:
        proposal_hash = tool_input.get("proposal_hash")
        proposed = {
            o.json_field("proposal_hash") for o in tool_outcomes(messages) if o.name == PROPOSE_TOOL and o.succeeded
        }
        if not isinstance(proposal_hash, str) or proposal_hash not in proposed:
            return (
                "apply_production_plan needs the proposal_hash that propose_schedule returned in this "
                "conversation, copied unchanged"
            )
        return None
    if name not in REQUEST_BOUND_TOOLS:
        return None
    customer_order = _order(extract_customer_email(first_user_text(messages)), days)
    if name == INTAKE_TOOL:
        offered = _order(str(tool_input.get("email", "")), days)
        # An e-mail that does not parse fails in the tool itself, with the reason the model needs.
        if offered is not None and offered != customer_order:
            return (
                "intake_customer_request must take in the customer's e-mail exactly as given; "
                "this text describes a different request"
            )
        return None
    order_id = tool_input.get("order_id")
    taken_in = {o.json_field("order_id") for o in tool_outcomes(messages) if o.name == INTAKE_TOOL and o.succeeded}
    if customer_order is None or order_id != customer_order.order_id or order_id not in taken_in:
        return (
            "propose_schedule must plan the order that intake_customer_request took in for this "
            "customer's request; call intake_customer_request first and use its order_id"
        )
    return None
