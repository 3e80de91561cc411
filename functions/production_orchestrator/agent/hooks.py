"""The approval gate and the audit trail, as Strands hooks.

every call:  BeforeToolCall -> workflow rules (intake, propose, apply) -> cancel_tool on a violation
first pass:  BeforeToolCall(apply) -> interrupt(reason={proposal_hash, summary}) -> agent stops
resume:      BeforeToolCall(apply) -> only the call the checkpoint waits on may reach the interrupt,
             which returns the decision object
             approved + reviewed_hash == tool's proposal_hash -> tool runs
             anything else -> cancel_tool(message the model sees)
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError as PydanticValidationError
from strands.hooks import AfterToolCallEvent, BeforeToolCallEvent, HookProvider, HookRegistry

from ..domain.errors import OrchestratorError
from ..domain.records import INTERRUPT_NAME, TOOL_CALLED_EVENT, Decision
from .context import RunContext
from .tools import APPLY_TOOL, stored_proposal
from .workflow_rules import refusal


class ApprovalHook(HookProvider):
    """Interrupts before ``apply_production_plan``; lets it run only for an approving decision object."""

    def __init__(self, ctx: RunContext) -> None:
        self._ctx = ctx

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        """Attach to every tool call."""
        registry.add_callback(BeforeToolCallEvent, self.before_tool_call)

    def before_tool_call(self, event: BeforeToolCallEvent) -> None:
        """Refuse calls that would change the plan out of turn; gate the one write tool."""
        name = event.tool_use["name"]
        raw_input = event.tool_use.get("input")
        tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
        broken = refusal(name, tool_input, event.agent.messages, self._ctx.request)
        if broken is not None:
            event.cancel_tool = f"refused: {broken}"
            return
        if name != APPLY_TOOL:
            return
        proposal_hash = tool_input.get("proposal_hash")
        try:
            proposal = stored_proposal(self._ctx, str(proposal_hash))
        except (OrchestratorError, ValueError) as exc:
            # A model that invents or alters a hash never reaches a human, let alone the write.
            event.cancel_tool = f"refused: {exc}"
            return
        checkpoint = self._ctx.approved_checkpoint
        # Interrupt ids derive from the tool use id (Strands 1.62: v1:before_tool_call:<id>:<uuid5(name)>).
        # In a resume only the call the checkpoint waits on may reach the interrupt: any other apply
        # would raise a fresh interrupt that no checkpoint, and no human, ever sees.
        if checkpoint is not None and event._interrupt_id(INTERRUPT_NAME) != checkpoint.interrupt_id:
            event.cancel_tool = "refused: this run's plan was already decided; a new plan needs a new run"
            return
        response = event.interrupt(
            INTERRUPT_NAME,
            reason={
                "proposal_hash": proposal_hash,
                "summary": proposal.summary(),
                "message": "A person must approve this exact plan before it is applied.",
            },
        )
        try:
            decision = Decision.model_validate(response)
        except PydanticValidationError:
            event.cancel_tool = "refused: the approval response is not a decision object"
            return
        if decision.reviewed_hash != proposal_hash:
            event.cancel_tool = "refused: the human reviewed a different proposal than this call names"
            return
        if not decision.approved:
            reason = decision.reason or "no reason given"
            event.cancel_tool = f"rejected by {decision.approver}: {reason}"


class AuditHook(HookProvider):
    """Appends one ``tool_called`` audit event per completed tool call."""

    def __init__(self, ctx: RunContext) -> None:
        self._ctx = ctx

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        """Attach after every tool call."""
        registry.add_callback(AfterToolCallEvent, self.after_tool_call)

    def after_tool_call(self, event: AfterToolCallEvent) -> None:
        """Record which tool ran and how it ended."""
        status = "cancelled" if event.cancel_message else str(event.result.get("status", "unknown"))
        tool_input = event.tool_use.get("input")
        proposal_hash = tool_input.get("proposal_hash", "") if isinstance(tool_input, dict) else ""
        self._ctx.store.append_audit(
            self._ctx.event(TOOL_CALLED_EVENT, str(proposal_hash or ""), tool=event.tool_use["name"], status=status)
        )
