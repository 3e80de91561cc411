"""Scripted model "brains" for the loopback servers: each decides the next turn from the conversation.

The servers decode their wire format into Converse-shaped messages and ask a script for the turn. The
well-behaved planner is the offline model's own ``next_step``; the others misbehave in one way each.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from production_orchestrator.agent.prompts import extract_customer_email
from production_orchestrator.agent.scripted_model import next_step, reading_step
from production_orchestrator.agent.tools import APPLY_TOOL, INTAKE_TOOL, PROPOSE_TOOL
from production_orchestrator.agent.workflow_rules import first_user_text, tool_outcomes


@dataclass(frozen=True)
class Turn:
    """One assistant turn: optional text, then at most one tool call."""

    text: str = ""
    tool: tuple[str, dict[str, Any]] | None = None


Script = Callable[[list[dict[str, Any]]], Turn]


def planner(messages: list[dict[str, Any]]) -> Turn:
    """A model that follows the workflow exactly."""
    step = next_step(messages)  # type: ignore[arg-type]
    return Turn(text=step) if isinstance(step, str) else Turn(tool=step)


def chatty(messages: list[dict[str, Any]]) -> Turn:
    """Follows the workflow but talks before every call, as real models do."""
    turn = planner(messages)
    if turn.tool is None:
        return turn
    return Turn(text=f"Next I will call {turn.tool[0]} to continue the plan.", tool=turn.tool)


def _altered(proposal_hash: str) -> str:
    return proposal_hash[:-1] + ("0" if proposal_hash[-1] != "0" else "1")


def wrong_hash(messages: list[dict[str, Any]]) -> Turn:
    """Applies a hash one character off the one propose_schedule returned; gives up when refused."""
    turn = planner(messages)
    if turn.tool is not None and turn.tool[0] == APPLY_TOOL:
        return Turn(tool=(APPLY_TOOL, {"proposal_hash": _altered(turn.tool[1]["proposal_hash"])}))
    return turn


def wrong_hash_then_right(messages: list[dict[str, Any]]) -> Turn:
    """Applies a wrong hash, reads the refusal, then applies the right one."""
    applies = [o for o in tool_outcomes(messages) if o.name == APPLY_TOOL]  # type: ignore[arg-type]
    if len(applies) == 1 and not applies[0].succeeded and applies[0].text.startswith("refused"):
        proposal = next(o for o in tool_outcomes(messages) if o.name == PROPOSE_TOOL)  # type: ignore[arg-type]
        return Turn(tool=(APPLY_TOOL, {"proposal_hash": proposal.json_field("proposal_hash") or ""}))
    return wrong_hash(messages)


def apply_hash(proposal_hash: str) -> Script:
    """Applies ``proposal_hash`` (stored, but never proposed in this run) instead of its own."""

    def script(messages: list[dict[str, Any]]) -> Turn:
        turn = planner(messages)
        if turn.tool is not None and turn.tool[0] == APPLY_TOOL:
            return Turn(tool=(APPLY_TOOL, {"proposal_hash": proposal_hash}))
        return turn

    return script


def reading(messages: list[dict[str, Any]]) -> bool:
    """True in the call that reads the customer's e-mail (every script reads it as the planner does)."""
    return reading_step(messages) is not None  # type: ignore[arg-type]


def apply_first(messages: list[dict[str, Any]]) -> Turn:
    """Skips every tool and applies a made-up hash at once; gives up when refused."""
    if reading(messages):
        return planner(messages)
    if not tool_outcomes(messages):  # type: ignore[arg-type]
        return Turn(tool=(APPLY_TOOL, {"proposal_hash": "ab" * 32}))
    return Turn(text="I could not apply the plan.")


def skip_intake(messages: list[dict[str, Any]]) -> Turn:
    """Proposes for the customer's order without taking it in first; gives up when refused."""
    if reading(messages):
        return planner(messages)
    if not tool_outcomes(messages):  # type: ignore[arg-type]
        order_id = _field(extract_customer_email(first_user_text(messages)), "order")  # type: ignore[arg-type]
        return Turn(tool=(PROPOSE_TOOL, {"order_id": order_id}))
    return planner(messages)


def altered_intake(messages: list[dict[str, Any]]) -> Turn:
    """Takes in the customer's e-mail with the priority changed; gives up when refused."""
    turn = planner(messages)
    if turn.tool is not None and turn.tool[0] == INTAKE_TOOL:
        email = turn.tool[1]["email"]
        lines = [("Priority: 1" if line.lower().startswith("priority:") else line) for line in email.splitlines()]
        return Turn(tool=(INTAKE_TOOL, {"email": "\n".join(lines)}))
    return turn


def propose_other(order_id: str) -> Script:
    """Takes the customer's order in, then proposes a plan for ``order_id`` instead."""

    def script(messages: list[dict[str, Any]]) -> Turn:
        turn = planner(messages)
        if turn.tool is not None and turn.tool[0] == PROPOSE_TOOL:
            return Turn(tool=(PROPOSE_TOOL, {"order_id": order_id}))
        return turn

    return script


def no_gate(messages: list[dict[str, Any]]) -> Turn:
    """Does all the planning, then declares the plan done instead of asking for approval."""
    turn = planner(messages)
    if turn.tool is not None and turn.tool[0] == APPLY_TOOL:
        return Turn(text=f"The plan {turn.tool[1]['proposal_hash']} is done; I applied it.")
    return turn


def apply_again(messages: list[dict[str, Any]]) -> Turn:
    """After the decision comes back, calls apply once more with the same hash."""
    applies = [o for o in tool_outcomes(messages) if o.name == APPLY_TOOL]  # type: ignore[arg-type]
    if len(applies) == 1:
        return Turn(tool=(APPLY_TOOL, dict(applies[0].tool_input)))
    return planner(messages)


def _field(email: str, name: str) -> str:
    for line in email.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == name:
            return value.strip()
    return ""


def infer_status(text: str) -> str:
    """Status of a tool result whose wire format dropped it: our tools return JSON; failures are prose."""
    try:
        json.loads(text)
    except ValueError:
        return "error"
    return "success"


def estimate_tokens(text: str) -> int:
    """The usual rough estimate: four characters per token."""
    return max(1, -(-len(text) // 4))
