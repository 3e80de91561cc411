"""expire: when the window closes, pending approvals become expired; a decision is never overridden."""

from __future__ import annotations

from production_orchestrator.domain.approvals import Vote
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.lifecycle.expire import expire_approvals
from tests.support.memory_world import MemoryWorld


def test_pending_approvals_expire_once_and_decided_ones_stand(world: MemoryWorld) -> None:
    started = world.start()
    cid = started.checkpoint.checkpoint_id
    first = world.request(started)
    second = world.request(started)
    decision = Decision(
        approved=True,
        reviewed_hash=started.checkpoint.proposal_hash,
        approver="ana@example.com",
        decided_at=utc_iso(world.clock()),
    )
    decided = world.approvals.record_approval_vote(second.approval_id, Vote(decision=decision), now=world.clock())
    expired = expire_approvals(world.store, world.approvals, cid, world.clock.advance(days=2))
    assert expired == [first.approval_id]
    assert world.approval(first.approval_id).status == "expired"
    assert world.approval(second.approval_id) == decided
    assert [e.detail.get("approval_id") for e in world.store.audit_events() if e.event_type == "approval_expired"] == [
        first.approval_id
    ]
    before = world.snapshot()
    assert expire_approvals(world.store, world.approvals, cid, world.clock()) == []
    assert world.snapshot() == before
    assert world.store.application_count() == 0
