"""What a long run is doing, for a person watching: a Strands hook that names each step as it begins.

    BeforeModelCallEvent -> "waiting for the model"      BeforeToolCallEvent -> the tool's step ("planning")

The hook only reports (``report(step)``, e.g. a line on a terminal's stderr); it reads and changes nothing, so
a run with it and a run without it are the same run. Registered only when the caller asks for progress.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from strands.hooks import BeforeModelCallEvent, BeforeToolCallEvent, HookProvider, HookRegistry

from .tools import APPLY_TOOL, INTAKE_TOOL, PROPOSE_TOOL

WAITING = "waiting for the model"
_TOOL_STEPS = {
    INTAKE_TOOL: "reading the e-mail",
    PROPOSE_TOOL: "planning",
    APPLY_TOOL: "applying the approved plan",
    "analyze_blockers": "finding what blocks the order",
    "draft_communications": "drafting the messages",
}


def tool_step(name: str) -> str:
    """The words for a tool's step (a tool not listed: reading the shop)."""
    return _TOOL_STEPS.get(name, "reading the shop")


class ProgressHook(HookProvider):
    """Reports each model call and tool call as it begins."""

    def __init__(self, report: Callable[[str], None]) -> None:
        self._report = report

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        """Report before each model call and each tool call."""
        registry.add_callback(BeforeModelCallEvent, self._model)
        registry.add_callback(BeforeToolCallEvent, self._tool)

    def _model(self, event: BeforeModelCallEvent) -> None:
        self._report(WAITING)

    def _tool(self, event: BeforeToolCallEvent) -> None:
        self._report(tool_step(str(event.tool_use.get("name", ""))))
