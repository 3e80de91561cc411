"""A deterministic, offline model that drives the real Strands loop through the eight tools.

It keeps no state of its own: every turn derives the next step from the conversation, so a fresh
process that restores the session continues exactly where the previous one stopped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncGenerator, AsyncIterable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel
from strands.models.model import Model
from strands.types.content import Messages
from strands.types.streaming import StreamEvent
from strands.types.tools import ToolSpec

from ..domain.intake.customer_message import read_message
from ..domain.intake.facts import RequestFacts, read_facts
from ..domain.shop.model import parse_day
from .model_settings import SCRIPTED_MODEL_ID
from .prompts import extract_customer_email, read_extraction_message
from .tools import APPLY_TOOL, INTAKE_TOOL, PROPOSE_TOOL, TOOL_SEQUENCE
from .workflow_rules import first_user_text, tool_outcomes

READ_TOOL = RequestFacts.__name__  # Strands names the structured-output tool after the model class
T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class _Catalogued:
    code: str
    description: str
    aliases: tuple[str, ...] = ()


def reading_step(messages: Messages) -> tuple[str, dict[str, Any]] | str | None:
    """In a reading call, the rule-based reader's facts as the tool call; None in a planning run."""
    text = first_user_text(messages)
    found = read_extraction_message(text)
    if found is None:
        return None
    if tool_outcomes(messages):
        return "Recorded."
    products = [
        _Catalogued(
            str(p.get("code", "")), str(p.get("description", "")), tuple(str(a) for a in p.get("aliases") or ())
        )
        for p in found[0]
    ]
    message = read_message(extract_customer_email(text))
    facts = read_facts(message, products, message.sent_day or parse_day(found[1]))
    return READ_TOOL, facts.model_dump(mode="json")


def next_step(messages: Messages) -> tuple[str, dict[str, Any]] | str:
    """The next tool call ``(name, input)`` or the final answer text."""
    reading = reading_step(messages)
    if reading is not None:
        return reading
    history = tool_outcomes(messages)
    if not history:
        return INTAKE_TOOL, {"email": extract_customer_email(first_user_text(messages))}
    last = history[-1]
    last_name, last_text = last.name, last.text
    if not last.succeeded:
        if last_name == APPLY_TOOL:
            return f"The plan was not applied. {last_text}"
        return f"I stopped because {last_name} failed: {last_text}"
    if last_name == APPLY_TOOL:
        return f"The approved plan was applied. {last_text}"
    results = {o.name: o for o in history if o.succeeded}
    order_id = results[INTAKE_TOOL].json_field("order_id")
    proposal_hash = results[PROPOSE_TOOL].json_field("proposal_hash") if PROPOSE_TOOL in results else ""
    following = TOOL_SEQUENCE[TOOL_SEQUENCE.index(last_name) + 1]
    inputs: dict[str, dict[str, Any]] = {
        "analyze_blockers": {"order_id": order_id},
        PROPOSE_TOOL: {"order_id": order_id},
        "draft_communications": {"proposal_hash": proposal_hash},
        APPLY_TOOL: {"proposal_hash": proposal_hash},
    }
    return following, inputs.get(following, {})


class ScriptedModel(Model):
    """The default provider: same conversation in, same tool calls out."""

    def __init__(self, model_id: str = SCRIPTED_MODEL_ID) -> None:
        self._config: dict[str, Any] = {"model_id": model_id}

    def update_config(self, **model_config: Any) -> None:
        """Merge configuration."""
        self._config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        """The configuration."""
        return dict(self._config)

    async def structured_output(
        self, output_model: type[T], prompt: Messages, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, T | Any], None]:
        """Not used by this agent."""
        raise NotImplementedError("the scripted planner does not produce structured output")
        yield {}  # pragma: no cover

    async def stream(  # type: ignore[override]
        self,
        messages: Messages,
        tool_specs: list[ToolSpec] | None = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncIterable[StreamEvent]:
        """One Converse-shaped turn: a tool call or the final text, with usage figures."""
        step = next_step(messages)
        seen = json.dumps(messages, sort_keys=True, default=str)
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(step, str):
            yield {"contentBlockDelta": {"delta": {"text": step}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            output = step
        else:
            name, tool_input = step
            turn = sum(1 for m in messages if m["role"] == "assistant")
            anchor = hashlib.sha256(first_user_text(messages).encode()).hexdigest()[:12]
            tool_use_id = f"tooluse-{anchor}-{turn:02d}"
            output = json.dumps(tool_input, sort_keys=True)
            yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": tool_use_id, "name": name}}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": output}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
        input_tokens, output_tokens = len(seen) // 4, max(1, len(output) // 4)
        yield {
            "metadata": {
                "usage": {
                    "inputTokens": input_tokens,
                    "outputTokens": output_tokens,
                    "totalTokens": input_tokens + output_tokens,
                },
                "metrics": {"latencyMs": 0},
            }
        }
