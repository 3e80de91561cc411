"""The approval hook accepts only a decision object for exactly the pending hash; anything else cancels."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.adapters.local.file_sessions import FileSessionStore
from production_orchestrator.adapters.local.sqlite_approvals import SqliteApprovalStore
from production_orchestrator.adapters.local.sqlite_store import SqliteShopStore
from production_orchestrator.agent.context import RunContext
from production_orchestrator.agent.factory import build_agent
from production_orchestrator.agent.providers import build_binding
from production_orchestrator.domain.records import Checkpoint, Decision, utc_iso
from production_orchestrator.services.runs.start import StartResult, StartRun, start_run
from production_orchestrator.services.runtime import Runtime

BINDING = build_binding("deterministic")
NOW = datetime(2026, 8, 12, 8, 0, tzinfo=UTC)


def runtime(tmp_path: Path) -> Runtime:
    return Runtime(
        store=SqliteShopStore(tmp_path / "shop.sqlite3"),
        approvals=SqliteApprovalStore(tmp_path / "shop.sqlite3"),
        sessions=FileSessionStore(tmp_path / "sessions"),
        clock=lambda: NOW,
        pid=1,
    )


@pytest.fixture
def started(tmp_path: Path) -> tuple[Runtime, StartResult]:
    rt = runtime(tmp_path)
    return rt, start_run(rt, StartRun("rush-order", BINDING, timedelta(days=1)))


def resume_with(rt: Runtime, checkpoint: Checkpoint, response: Any, *, approved_ctx: bool = True) -> Any:
    """Resume bypassing the service gate, to test the hook as the last line of defence."""
    ctx = RunContext(
        store=rt.store, session_id=checkpoint.session_id, checkpoint_id=checkpoint.checkpoint_id, clock=rt.clock
    )
    if approved_ctx and isinstance(response, dict) and response.get("approved"):
        ctx.approved_checkpoint = checkpoint
        ctx.decision = Decision.model_validate(response)
    agent = build_agent(BINDING, checkpoint.scenario, ctx, rt.sessions.session_manager(checkpoint.session_id))
    return agent([{"interruptResponse": {"interruptId": checkpoint.interrupt_id, "response": response}}])


def decision(checkpoint: Checkpoint, **changes: Any) -> dict[str, Any]:
    value = {
        "approved": True,
        "reviewed_hash": checkpoint.proposal_hash,
        "approver": "unit",
        "reason": "",
        "decided_at": utc_iso(NOW),
    }
    value.update(changes)
    return value


def test_start_stops_at_the_interrupt_with_the_proposal_in_the_reason(started: tuple[Runtime, StartResult]) -> None:
    rt, result = started
    assert result.stop_reason == "interrupt"
    facts = rt.sessions.read_facts(result.checkpoint.session_id, result.checkpoint.agent_id)
    assert facts.pending_interrupt_ids == {result.checkpoint.interrupt_id}
    assert facts.interrupt_proposal_hash == result.checkpoint.proposal_hash
    assert rt.store.application_count() == 0


def test_approving_decision_object_applies_once(started: tuple[Runtime, StartResult]) -> None:
    rt, result = started
    outcome = resume_with(rt, result.checkpoint, decision(result.checkpoint))
    assert outcome.stop_reason == "end_turn"
    assert rt.store.application_count(result.checkpoint.proposal_hash) == 1
    assert rt.store.load_state().revision == 2  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "response",
    ["yes", ["approved"], {"approved": True}, {"approved": "yes please"}],
    ids=["bare-string", "list", "missing-fields", "not-a-bool"],
)
def test_anything_but_a_decision_object_cancels(response: Any, started: tuple[Runtime, StartResult]) -> None:
    rt, result = started
    outcome = resume_with(rt, result.checkpoint, response, approved_ctx=False)
    assert outcome.stop_reason == "end_turn"
    assert "not applied" in str(outcome)
    assert rt.store.application_count() == 0
    assert rt.store.load_state().revision == 1  # type: ignore[union-attr]


def test_decision_for_another_hash_cancels(started: tuple[Runtime, StartResult]) -> None:
    rt, result = started
    outcome = resume_with(
        rt, result.checkpoint, decision(result.checkpoint, reviewed_hash="e" * 64), approved_ctx=False
    )
    assert "different proposal" in str(outcome)
    assert rt.store.application_count() == 0


def test_rejection_reaches_the_model_with_the_reason(started: tuple[Runtime, StartResult]) -> None:
    rt, result = started
    outcome = resume_with(
        rt, result.checkpoint, decision(result.checkpoint, approved=False, reason="thread on backorder")
    )
    assert "thread on backorder" in str(outcome)
    assert rt.store.application_count() == 0


def test_null_response_leaves_the_interrupt_pending(started: tuple[Runtime, StartResult]) -> None:
    # Strands re-raises the interrupt on a null response: the decision must always be an object.
    rt, result = started
    outcome = resume_with(rt, result.checkpoint, None)
    assert outcome.stop_reason == "interrupt"
    assert rt.store.application_count() == 0


def test_tool_refuses_without_a_verified_approval_even_if_the_hook_lets_it_through(
    started: tuple[Runtime, StartResult],
) -> None:
    rt, result = started
    # Approving response, but the run context holds no verified approval (the service gate was skipped).
    outcome = resume_with(rt, result.checkpoint, decision(result.checkpoint), approved_ctx=False)
    assert "no verified human approval" in str(outcome)
    assert rt.store.application_count() == 0
