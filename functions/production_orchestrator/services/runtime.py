"""What the agent-running steps (start, resume) run on: the ports, a clock, this process's id."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..agent.context import RunContext
from ..agent.model_settings import ModelSettings
from ..domain.approval.claims import DEFAULT_LEASE
from ..domain.approval.links import LinkMint
from ..domain.planning.solver import DEFAULT_NODES
from ..domain.ports import ApprovalStore, MacKey, MessageTransport, SessionStore, ShopStore


@dataclass(frozen=True)
class Runtime:
    """The composition root's output: adapters, a clock and this process's id."""

    store: ShopStore
    sessions: SessionStore
    clock: Callable[[], datetime]
    pid: int
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    # The planning solver's budget in work (nodes per objective stage): the same budget, the same plan.
    solver_nodes: int = DEFAULT_NODES
    # How long a claimed decision belongs to the resume that claimed it; past it a re-run may finish it.
    # Longer than the resume Lambda's timeout, so a live resume is never taken over.
    lease: timedelta = DEFAULT_LEASE
    # Where the approval records live (the authorization reads them; a run without one is never approvable)
    # and the key decision receipts are MACed (and verified) with.
    approvals: ApprovalStore | None = None
    receipt_key: MacKey | None = None
    # The outbox's transport (SMTP or a directory of .eml files locally, SES on AWS; None: nothing is sent) and
    # the mint that rebuilds an approval request's link from the shop's key at send (None: approval mail waits).
    transport: MessageTransport | None = None
    mint: LinkMint | None = None


def usage_of(result: Any) -> dict[str, int]:
    """Token counts the model reported for one invocation, and its event-loop cycles."""
    metrics = result.metrics
    usage = {key: int(value) for key, value in dict(metrics.accumulated_usage).items() if isinstance(value, int)}
    usage["eventLoopCycles"] = int(metrics.cycle_count)
    return usage


def run_context(rt: Runtime, session_id: str, checkpoint_id: str) -> RunContext:
    """What one agent run shares with its tools and hooks."""
    return RunContext(
        store=rt.store, session_id=session_id, checkpoint_id=checkpoint_id, clock=rt.clock, solver_nodes=rt.solver_nodes
    )
