"""What every service runs on: the ports, a clock, this process's id and the settings a run carries.

    bootstrap.local(data_dir) -> Runtime   SQLite stores, file sessions, the data dir's key (the CLI)
    bootstrap.aws(settings)   -> Runtime   DynamoDB stores, S3 sessions, KMS keys, SNS/SES/Step Functions
                                           (the handlers, built once per cold start)

A service takes the runtime and one command (``decide(rt, Decide(...))``); the ports never travel as loose
parameters. A port a process never needs is None (the decision Lambda has no ``sessions``: it runs no agent
and never imports strands); a service that needs a missing one raises ``ConfigurationError``
(:func:`need`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from ..agent.model_settings import ModelSettings
from ..domain.approval.claims import DEFAULT_LEASE
from ..domain.errors import ConfigurationError
from ..domain.limits import DEFAULT_NODES
from ..domain.ports import (
    ApprovalNotifier,
    ApprovalStore,
    MacKey,
    MessageTransport,
    SessionStore,
    ShopStore,
    SubmissionStore,
    WakeScheduler,
    WorkflowCallback,
    WorkflowStarter,
)

if TYPE_CHECKING:  # the agent's context and the link mint load where a run or a link needs them
    from ..agent.context import RunContext
    from ..domain.alerts import OperatorAlerts
    from ..domain.approval.links import LinkMint

T = TypeVar("T")


@dataclass(frozen=True)
class Runtime:
    """The composition root's output (bootstrap.py): adapters, keys, a clock, this process's id."""

    # The shop, its runs, audit chain and outbox; and the approval records (every decision path reads one:
    # a run without an approval is never approvable, so no runtime goes without them).
    store: ShopStore
    approvals: ApprovalStore
    # Every "now" a service needs comes from here (tests pass a fixed clock; the handlers' follows utc_now).
    clock: Callable[[], datetime]
    # Recorded on checkpoints and decision claims: which process started or resumed a run.
    pid: int
    # The agent's sessions: None where no agent runs (the decision, submit and reminder functions).
    sessions: SessionStore | None = None
    # Where approval links and reminders go (stdout locally, SNS in AWS).
    notifier: ApprovalNotifier | None = None
    # Tells the operator what waits for a person (a request that needs facts): the alarm topic in AWS; None locally,
    # where the command's own output says it.
    operator: OperatorAlerts | None = None
    # Wakes the parked workflow once an approval is decided (Step Functions SendTaskSuccess; locally a no-op).
    callback: WorkflowCallback | None = None
    # One-time reminder wake-ups (EventBridge Scheduler); its target is the invoked function, so the reminder
    # handler sets it per invocation.
    wakes: WakeScheduler | None = None
    # The submit and e-mail entries: who asked (the submission records) and the workflow they start.
    submissions: SubmissionStore | None = None
    starter: WorkflowStarter | None = None
    # Decision receipts are MACed (and verified) with ``receipt_key``; the audit chain's links with
    # ``audit_key`` (locally both are the data dir's key; in AWS two KMS keys, so a function that appends
    # events cannot forge a receipt).
    receipt_key: MacKey | None = None
    audit_key: MacKey | None = None
    # The outbox's transport (SMTP or a directory of .eml files locally, SES on AWS; None: nothing is sent) and
    # the mint that rebuilds an approval request's link from the shop's key at send (None: approval mail waits).
    # Links are minted with it too: derivable from the data dir's key locally (a reminder or the outbox rebuilds
    # them), random without one (AWS: sent once, by SNS).
    transport: MessageTransport | None = None
    mint: LinkMint | None = None
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    # The planning solver's budget in work (nodes per objective stage): the same budget, the same plan.
    solver_nodes: int = DEFAULT_NODES
    # How long a claimed decision belongs to the resume that claimed it; past it a re-run may finish it.
    # Longer than the resume Lambda's timeout, so a live resume is never taken over.
    lease: timedelta = DEFAULT_LEASE
    # Told each step of a long run as it begins (the CLI on a terminal); None: nobody is watching.
    progress: Callable[[str], None] | None = None


def need(port: T | None, name: str) -> T:
    """``port``, or ``ConfigurationError`` naming what this runtime was built without."""
    if port is None:
        raise ConfigurationError(f"this runtime has no {name}")
    return port


def usage_of(result: Any) -> dict[str, int]:
    """Token counts the model reported for one invocation, and its event-loop cycles."""
    metrics = result.metrics
    usage = {key: int(value) for key, value in dict(metrics.accumulated_usage).items() if isinstance(value, int)}
    usage["eventLoopCycles"] = int(metrics.cycle_count)
    return usage


def run_context(rt: Runtime, session_id: str, checkpoint_id: str) -> RunContext:
    """What one agent run shares with its tools and hooks."""
    from ..agent.context import RunContext

    return RunContext(
        store=rt.store,
        session_id=session_id,
        checkpoint_id=checkpoint_id,
        clock=rt.clock,
        solver_nodes=rt.solver_nodes,
        progress=rt.progress,
    )
