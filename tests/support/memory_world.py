"""One shop on the in-memory fakes, for the lifecycle unit tests: the real Strands agent with the scripted
model, sessions in memory, a settable clock. A start takes tens of milliseconds; nothing touches a disk.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from production_orchestrator.agent.providers import build_binding
from production_orchestrator.domain.approval.approvals import ApprovalRecord
from production_orchestrator.domain.approval.policy import build_policy
from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.limits import DEFAULT_MAX_VERSIONS
from production_orchestrator.domain.records import ProviderBinding
from production_orchestrator.services.asking.request_approval import (
    ApprovalRequested,
    LinkPlan,
    RequestApproval,
    operator_plan,
    request_approval,
)
from production_orchestrator.services.deciding.claim import ResumeResult
from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct
from production_orchestrator.services.runs.start import StartResult, StartRun, start_run
from production_orchestrator.services.runtime import Runtime
from tests.support.fakes import (
    CollectingNotifier,
    InMemoryApprovalStore,
    InMemoryMacKey,
    InMemorySessionStore,
    InMemoryShopStore,
    RecordingCallback,
)

T0 = datetime(2026, 8, 12, 8, 0, tzinfo=UTC)
TOKEN = "task-token-0123456789"


@dataclass
class Clock:
    """A clock the test moves."""

    now: datetime = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        """Move on by ``timedelta(**delta)``."""
        self.now += timedelta(**delta)
        return self.now


@dataclass
class Requested:
    """An approval request and each approver's link secret."""

    result: ApprovalRequested
    secrets: dict[str, str]

    @property
    def approval_id(self) -> str:
        return self.result.approval_id


@dataclass
class MemoryWorld:
    """The ports a process would get from its composition root, all in memory."""

    approvals: InMemoryApprovalStore = field(default_factory=InMemoryApprovalStore)
    mac_key: InMemoryMacKey = field(default_factory=InMemoryMacKey)
    store: InMemoryShopStore = field(init=False)
    sessions: InMemorySessionStore = field(default_factory=InMemorySessionStore)
    notifier: CollectingNotifier = field(default_factory=CollectingNotifier)
    callback: RecordingCallback = field(default_factory=RecordingCallback)
    clock: Clock = field(default_factory=Clock)
    binding: ProviderBinding = field(default_factory=build_binding)
    pids: int = 100

    def __post_init__(self) -> None:
        # One "database": the shop store writes a run's approval with its checkpoint, audit links MACed.
        self.store = InMemoryShopStore(approvals=self.approvals, audit_key=self.mac_key)

    def runtime(self, **changes: Any) -> Runtime:
        """A fresh runtime with its own pid, as a new process would have."""
        self.pids += 1
        return self.ports(**changes)

    def ports(self, **changes: Any) -> Runtime:
        """The runtime of the process that ran last (no new pid): for steps that run no agent."""
        rt = Runtime(
            store=self.store,
            sessions=self.sessions,
            clock=self.clock,
            pid=self.pids,
            approvals=self.approvals,
            receipt_key=self.mac_key,
            audit_key=self.mac_key,
            notifier=self.notifier,
            callback=self.callback,
        )
        return dataclasses.replace(rt, **changes)

    def start(
        self,
        scenario: str = "rush-order",
        window: timedelta = timedelta(days=1),
        approval: LinkPlan | str | None = "operator",
    ) -> StartResult:
        """Run the agent until it asks for approval. ``approval``: the local default (``"operator"``: one link,
        the operator decides at the CLI), a plan, or None (AWS: ``request`` creates the approval later)."""
        plan = operator_plan() if approval == "operator" else approval
        assert plan is None or isinstance(plan, LinkPlan)
        return start_run(self.runtime(), StartRun(scenario, self.binding, window, plan))

    def request(
        self, started: StartResult, approvers: tuple[str, ...] = ("ana@example.com", "ben@example.com"), **policy: Any
    ) -> Requested:
        """Request approval of ``started``'s plan (AWS-style, after a start with ``approval=None``); each approver's
        secret is read from their message."""
        self.notifier.messages.clear()
        command = RequestApproval(
            checkpoint_id=started.checkpoint.checkpoint_id,
            proposal_hash=started.checkpoint.proposal_hash,
            task_token=policy.pop("task_token", TOKEN),
            policy=self.policy(approvers, **policy),
            link_base_url="https://approvals.example.com/approve",
        )
        result = request_approval(self.ports(), command)
        secrets = {m.approver: parse_qs(urlsplit(m.link).query)["s"][0] for m in self.notifier.messages}
        return Requested(result, secrets)

    @staticmethod
    def policy(approvers: tuple[str, ...], **policy: Any) -> Any:
        """The policy these settings make (checked)."""
        return build_policy(
            approvers=approvers,
            requester=policy.get("requester", ""),
            separation_of_duties=policy.get("separation_of_duties", False),
            quorum=policy.get("quorum", 1),
            quorum_above=policy.get("quorum_above", policy.get("quorum_above_quantity")),
            restricted=policy.get("restricted", True),
        ).limited_to(policy.get("max_versions", DEFAULT_MAX_VERSIONS))

    def resume(
        self, started: StartResult, approve: bool, *, reason: str = "", approver: str = "ana@example.com", **kw: Any
    ) -> ResumeResult:
        """Decide ``started``'s checkpoint from a fresh runtime, as ``resume --approver`` does (a vote, then the
        resume)."""
        cp = started.checkpoint
        request = ResumeRequest(cp.checkpoint_id, approve, cp.proposal_hash, cp.interrupt_id, cp.session_id)
        return resume_direct(self.runtime(), ResumeDirect(request, self.binding, approver, reason, **kw))

    def approval(self, approval_id: str) -> ApprovalRecord:
        """The stored approval (it must exist)."""
        found = self.approvals.get_approval(approval_id)
        assert found is not None
        return found

    def snapshot(self) -> tuple[Any, ...]:
        """Everything stored, to compare before and after: equal means nothing was written."""
        return (
            self.store.load_state(),
            self.store.list_checkpoints(),
            [e.model_dump_json() for e in self.store.audit_events()],
            self.store.application_count(),
            [a.model_dump_json() for a in self.approvals.list_approvals()],
            [self.store.get_decision(_id(raw)) for raw in self.store.list_checkpoints()],
        )


def _id(raw: str) -> str:
    import json

    return str(json.loads(raw)["checkpoint_id"])
