"""repropose: a stale plan's open approval is replaced by one for the new plan under the same policy and
links, in the transaction that writes the new checkpoint; what the new plan needs is recomputed; a closed
or fresh approval is not replaced, and nothing is written then."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import ValidationError
from production_orchestrator.domain.records import audit_event
from production_orchestrator.services.deciding.review import Link, open_link
from production_orchestrator.services.runs.repropose import ProposeAgain, propose_again
from tests.support.memory_world import MemoryWorld

ANA, BEN = "ana@example.com", "ben@example.com"


def test_the_new_plan_gets_the_old_policy_and_links_and_the_old_approval_closes(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN), requester=ANA, separation_of_duties=True)
    old = world.approval(made.approval_id)
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))
    again = propose_again(world.runtime(), ProposeAgain(made.approval_id, world.binding))
    new = again.approval
    assert new is not None and new.approval_id != old.approval_id and new.status == "pending" and new.votes == ()
    assert (new.checkpoint_id, new.proposal_hash) == (again.checkpoint.checkpoint_id, again.checkpoint.proposal_hash)
    assert new.policy == old.policy and new.links == old.links and new.supersedes == old.approval_id
    assert new.expires_at == again.checkpoint.expires_at
    closed = world.approval(old.approval_id)
    assert closed.status == "superseded" and closed.superseded_by == new.approval_id
    event = world.store.audit_events()[-1]
    assert event.event_type == "approval_requested" and event.detail["supersedes"] == old.approval_id
    view = open_link(world.ports(), Link(old.approval_id, made.secrets[BEN]))
    assert view is not None and view.checkpoint == again.checkpoint and view.changes is None


def test_the_quorum_is_recomputed_for_the_new_plan(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN), quorum=2, quorum_above_quantity=1000)
    assert world.approval(made.approval_id).required == 1  # 600 units
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))
    again = propose_again(world.runtime(), ProposeAgain(made.approval_id, world.binding))
    assert again.approval is not None and again.approval.required == 2  # 1200 units


def test_only_an_open_stale_plan_is_proposed_again(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN))
    with pytest.raises(ValidationError, match="not stale"):
        propose_again(world.runtime(), ProposeAgain(made.approval_id, world.binding))
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))
    propose_again(world.runtime(), ProposeAgain(made.approval_id, world.binding))
    before = world.snapshot()
    replaced = world.approval(made.approval_id)
    # The old approval is closed: a second "propose again" from it follows its links to the new plan, which is
    # not stale; from the superseded record itself nothing can be proposed again.
    with pytest.raises(ValidationError):
        propose_again(world.runtime(), ProposeAgain(made.approval_id, world.binding))
    assert replaced.status == "superseded" and world.snapshot() == before
