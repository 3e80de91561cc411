"""The one agent factory used by start and by resume.

Process B must rebuild the agent with the same agent id, tools, conversation manager class and the
approval hook (without the hook a rejection would still run the tool); the session manager is new each
time.
"""

from __future__ import annotations

from typing import Any

from strands import Agent
from strands.agent.conversation_manager import NullConversationManager
from strands.hooks import HookProvider

from ..domain.records import ProviderBinding, agent_identity
from .context import RunContext
from .hooks import ApprovalHook, AuditHook
from .progress import ProgressHook
from .prompts import SYSTEM_PROMPT
from .providers import ModelSettings, build_model, build_retry_strategy
from .tools import build_tools


def progress_hooks(ctx: RunContext) -> list[HookProvider]:
    """The progress hook when the run reports its steps (it changes nothing the agent does)."""
    return [ProgressHook(ctx.progress)] if ctx.progress is not None else []


def build_agent(
    binding: ProviderBinding,
    scenario: str,
    ctx: RunContext,
    session_manager: Any,
    settings: ModelSettings | None = None,
) -> Agent:
    """A planning agent bound to ``binding`` whose every call goes through the approval and audit hooks."""
    settings = settings or ModelSettings()
    return Agent(
        model=build_model(binding, settings),
        tools=list(build_tools(ctx)),
        system_prompt=SYSTEM_PROMPT,
        agent_id=agent_identity(binding, scenario),
        name="production-planner",
        # Never trim: the conversation is the planner's memory across processes.
        conversation_manager=NullConversationManager(),
        hooks=[ApprovalHook(ctx), AuditHook(ctx), *progress_hooks(ctx)],
        session_manager=session_manager,
        callback_handler=None,
        retry_strategy=build_retry_strategy(settings),
    )
