"""repropose: a stale plan's approval is replaced by one for the new plan, same policy and links."""

from __future__ import annotations

from production_orchestrator.domain.records import audit_event
from production_orchestrator.lifecycle.repropose import supersede
from production_orchestrator.lifecycle.review import open_link
from tests.support.memory_world import MemoryWorld

ANA, BEN = "ana@example.com", "ben@example.com"


def test_the_new_plan_gets_the_old_policy_and_links_and_the_old_approval_closes(world: MemoryWorld) -> None:
    started = world.start()
    made = world.request(started, (ANA, BEN), requester=ANA, separation_of_duties=True)
    old = world.approval(made.approval_id)
    world.store.set_inventory("THREAD-RED-40", 1500, audit_event("inventory_set", world.clock()))
    again = world.start()
    new = supersede(world.store, world.approvals, old, again.checkpoint, world.clock())
    assert new.approval_id != old.approval_id and new.status == "pending" and new.votes == ()
    assert (new.checkpoint_id, new.proposal_hash) == (again.checkpoint.checkpoint_id, again.checkpoint.proposal_hash)
    assert new.approvers == old.approvers and new.requester == ANA and new.separation_of_duties
    assert new.expires_at == again.checkpoint.expires_at
    closed = world.approval(old.approval_id)
    assert closed.status == "expired" and closed.superseded_by == new.approval_id
    event = world.store.audit_events()[-1]
    assert event.event_type == "approval_superseded" and event.detail["new_approval_id"] == new.approval_id
    view = open_link(world.store, world.approvals, old.approval_id, made.secrets[BEN], world.clock())
    assert view is not None and view.checkpoint == again.checkpoint and view.changes is None
