"""Reading a customer's e-mail: one structured-output call through a typed tool, then the shared resolver.

    e-mail + the shop's products -> model (the scripted one runs the rule-based reader; Bedrock and Ollama
    read it themselves) -> RequestFacts through Strands' structured-output tool -> resolve_request

No session manager, no tools of the shop, no hooks: the reading call can write nothing, and a request that
does not resolve stops the start before the planning run (and its model calls) begins.
"""

from __future__ import annotations

from typing import Any

from strands import Agent
from strands.agent.conversation_manager import NullConversationManager
from strands.types.exceptions import StructuredOutputException

from ..domain.errors import IntakeError
from ..domain.intake.customer_message import CustomerMessage
from ..domain.intake.facts import RequestFacts, resolve_request
from ..domain.planning.proposal import GivenFacts
from ..domain.records import ProviderBinding
from ..domain.shop.model import Order, ShopState
from .prompts import EXTRACTION_PROMPT, extraction_message
from .providers import ModelSettings, build_model, build_retry_strategy


def read_request(
    binding: ProviderBinding,
    settings: ModelSettings,
    message: CustomerMessage,
    shop: ShopState,
    planning_day: str,
    given: GivenFacts | None = None,
) -> tuple[Order, dict[str, int]]:
    """The order ``message`` asks for on ``shop`` (``IntakeError`` naming what is missing) and the usage;
    ``given`` facts (from the person who started the run) fill or replace what the model read."""
    agent = Agent(
        model=build_model(binding, settings),
        tools=[],
        system_prompt=EXTRACTION_PROMPT,
        name="request-reader",
        conversation_manager=NullConversationManager(),
        callback_handler=None,
        retry_strategy=build_retry_strategy(settings),
    )
    anchor = (message.sent_day.isoformat() if message.sent_day else None) or planning_day
    try:
        result = agent(extraction_message(message.text, shop.products, anchor), structured_output_model=RequestFacts)
    except StructuredOutputException as exc:
        raise IntakeError(f"the model did not record the request's facts ({exc}); nothing was planned") from None
    facts = result.structured_output
    if not isinstance(facts, RequestFacts):
        raise IntakeError("the model did not record the request's facts; nothing was planned")
    return resolve_request(message, facts, shop, planning_day, given), _usage(result)


def _usage(result: Any) -> dict[str, int]:
    usage = dict(result.metrics.accumulated_usage)
    return {key: int(value) for key, value in usage.items() if isinstance(value, int)}
