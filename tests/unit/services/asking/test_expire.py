"""expire: when the workflow times out, what it never acted on becomes expired (a pending approval, or a decision
whose workflow was never woken); a decision the workflow heard, or a resume claimed, stands."""

from __future__ import annotations

from typing import Any

from production_orchestrator.domain.approval.approvals import Vote
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.asking.expire import Expire, expire_approvals
from tests.support.memory_world import MemoryWorld, Requested

ANA = "ana@example.com"


def _requested(world: MemoryWorld) -> tuple[Any, Requested]:
    started = world.start(approval=None)
    return started, world.request(started)


def _vote(world: MemoryWorld, started: Any, made: Requested) -> None:
    decision = Decision(
        approved=True, reviewed_hash=started.checkpoint.proposal_hash, approver=ANA, decided_at=utc_iso(world.clock())
    )
    world.approvals.record_approval_vote(made.approval_id, Vote(decision=decision), now=world.clock())


def test_a_pending_approval_expires_once(world: MemoryWorld) -> None:
    started, made = _requested(world)
    cid = started.checkpoint.checkpoint_id
    assert expire_approvals(world.ports(clock=lambda: world.clock.advance(days=2)), Expire(cid)) == [made.approval_id]
    assert world.approval(made.approval_id).status == "expired"
    assert [e.detail.get("approval_id") for e in world.store.audit_events() if e.event_type == "approval_expired"] == [
        made.approval_id
    ]
    before = world.snapshot()
    assert expire_approvals(world.ports(), Expire(cid)) == []
    assert world.snapshot() == before and world.store.application_count() == 0


def test_a_decision_the_workflow_heard_stands(world: MemoryWorld) -> None:
    started, made = _requested(world)
    _vote(world, started, made)
    woken = world.approvals.record_wake(made.approval_id, now=world.clock(), confirmed=True)
    assert expire_approvals(world.ports(), Expire(started.checkpoint.checkpoint_id)) == []
    assert world.approval(made.approval_id) == woken


def test_a_decision_the_workflow_never_heard_expires_with_it(world: MemoryWorld) -> None:
    started, made = _requested(world)
    _vote(world, started, made)  # recorded, but SendTaskSuccess never got through
    expired = expire_approvals(world.ports(), Expire(started.checkpoint.checkpoint_id))
    assert expired == [made.approval_id]
    record = world.approval(made.approval_id)
    assert record.status == "expired" and record.decision is not None  # what was decided stays on record
