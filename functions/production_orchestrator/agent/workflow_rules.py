"""What a model may not do on its way to the gate, judged from the conversation and the customer's e-mail.

The tools compute the plan from the shop; the model only chooses calls. Only two calls shape the plan,
so the rules are about those two and the gate:

    intake_customer_request  must pass the customer's e-mail (compared without whitespace, so re-wrapped
                             text passes and a changed quantity or priority does not); the request it
                             takes in was read and validated before the run began
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
from dataclasses import dataclass
from typing import Any

from strands.types.content import Messages

from ..domain.shop.model import Order
from .prompts import extract_customer_email
from .tools import APPLY_TOOL, INTAKE_TOOL, PROPOSE_TOOL, same_text


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


def refusal(name: str, tool_input: dict[str, Any], messages: Messages, request: Order | None) -> str | None:
    """Why this call may not run now, or ``None`` when it may.

    ``messages`` is the conversation so far (the calling turn included); ``request`` the order this run
    read from the customer's e-mail (None in a resume, which plans nothing).
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
    if name == INTAKE_TOOL:
        if not same_text(str(tool_input.get("email", "")), extract_customer_email(first_user_text(messages))):
            return (
                "intake_customer_request must take in the customer's e-mail exactly as given; "
                "this text describes a different request"
            )
        return None
    if name != PROPOSE_TOOL:
        return None
    order_id = tool_input.get("order_id")
    taken_in = {o.json_field("order_id") for o in tool_outcomes(messages) if o.name == INTAKE_TOOL and o.succeeded}
    if request is None or order_id != request.id or order_id not in taken_in:
        return (
            "propose_schedule must plan the order that intake_customer_request took in for this "
            "customer's request; call intake_customer_request first and use its order_id"
        )
    return None
