"""expire: when the workflow times out, what it never acted on becomes expired (a pending approval, or a decision
no resume claimed, woken or not); a decision a resume claimed stands."""

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


def test_a_decision_a_resume_claimed_stands(world: MemoryWorld) -> None:
    started = world.start()
    assert world.resume(started, approve=True).outcome == "applied"
    approval = world.approvals.approvals_for(started.checkpoint.checkpoint_id)[0]
    before = world.snapshot()
    assert expire_approvals(world.ports(), Expire(started.checkpoint.checkpoint_id)) == []
    assert world.snapshot() == before and world.approval(approval.approval_id).status == "decided"


def test_a_decision_judged_woken_that_no_resume_acted_on_expires_with_the_workflow(world: MemoryWorld) -> None:
    # Woken, as the record says (a resend that heard TaskTimedOut after an earlier try judges so), yet the workflow
    # ended DecisionExpired and no resume claimed it: nothing acted on it, and the approval says so.
    started, made = _requested(world)
    _vote(world, started, made)
    world.approvals.record_wake(made.approval_id, now=world.clock(), confirmed=True)
    assert expire_approvals(world.ports(), Expire(started.checkpoint.checkpoint_id)) == [made.approval_id]
    record = world.approval(made.approval_id)
    assert record.status == "expired" and record.decision is not None


def test_a_decision_the_workflow_never_heard_expires_with_it(world: MemoryWorld) -> None:
    started, made = _requested(world)
    _vote(world, started, made)  # recorded, but SendTaskSuccess never got through
    expired = expire_approvals(world.ports(), Expire(started.checkpoint.checkpoint_id))
    assert expired == [made.approval_id]
    record = world.approval(made.approval_id)
    assert record.status == "expired" and record.decision is not None  # what was decided stays on record
