"""review: a valid link shows the approval as it stands with its verified plan (and, while open, what changed
in the shop since); a link that is not valid shows nothing. Reads only."""

from __future__ import annotations

from datetime import timedelta

from production_orchestrator.domain.approval.approvals import Vote
from production_orchestrator.domain.records import Decision, audit_event, utc_iso
from production_orchestrator.services.deciding.review import Link, open_link
from production_orchestrator.services.evidence import current_approval, what_changed
from production_orchestrator.services.runs.repropose import ProposeAgain, propose_again
from production_orchestrator.services.runs.start import StartResult
from tests.support.memory_world import MemoryWorld, Requested

ANA, BEN = "ana@example.com", "ben@example.com"


def _pending(world: MemoryWorld, **policy: object) -> tuple[StartResult, Requested]:
    started = world.start(approval=None)
    return started, world.request(started, (ANA, BEN), **policy)  # type: ignore[arg-type]


def _vote(world: MemoryWorld, started: StartResult, who: str, approved: bool = True) -> None:
    decision = Decision(
        approved=approved,
        reviewed_hash=started.checkpoint.proposal_hash,
        approver=who,
        reason="" if approved else "no",
        decided_at=utc_iso(world.clock()),
    )
    approval_id = world.approvals.approvals_for(started.checkpoint.checkpoint_id)[-1].approval_id
    world.approvals.record_approval_vote(approval_id, Vote(decision=decision), now=world.clock())


def test_a_valid_link_shows_the_verified_plan_and_writes_nothing(world: MemoryWorld) -> None:
    started, made = _pending(world)
    before = world.snapshot()
    view = open_link(world.ports(), Link(made.approval_id, made.secrets[BEN]))
    assert view is not None and view.approver == BEN
    assert view.checkpoint == started.checkpoint and view.proposal == started.proposal
    assert view.changes is None and view.may_approve
    assert world.snapshot() == before


def test_only_a_link_that_is_not_valid_shows_nothing(world: MemoryWorld) -> None:
    started, made = _pending(world, quorum=2, quorum_above_quantity=0)
    now = world.clock()
    assert open_link(world.ports(), Link(made.approval_id, "x" * 43)) is None
    assert open_link(world.ports(), Link("appr-" + "0" * 32, made.secrets[ANA])) is None
    later = open_link(world.ports(clock=lambda: now + timedelta(days=2)), Link(made.approval_id, made.secrets[ANA]))
    assert later is not None and not later.is_open(now + timedelta(days=2)) and later.changes is None
    _vote(world, started, ANA)  # ana voted: her link shows the approval, still open for ben
    voted = open_link(world.ports(), Link(made.approval_id, made.secrets[ANA]))
    assert voted is not None and voted.approval.has_voted(ANA) and voted.is_open(now)
    _vote(world, started, BEN, approved=False)
    closed = open_link(world.ports(), Link(made.approval_id, made.secrets[BEN]))
    assert closed is not None and closed.approval.status == "rejected" and not closed.is_open(now)


def test_the_requester_may_only_reject_under_separation_of_duties(world: MemoryWorld) -> None:
    _, made = _pending(world, requester=ANA, separation_of_duties=True)
    view = open_link(world.ports(), Link(made.approval_id, made.secrets[ANA]))
    assert view is not None and not view.may_approve


def test_a_changed_shop_is_described_and_may_be_proposed_again(world: MemoryWorld) -> None:
    started, made = _pending(world)
    assert what_changed(world.store, started.checkpoint) is None
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))
    changes = what_changed(world.store, started.checkpoint)
    assert changes is not None and any("THREAD-RED-40" in line for line in changes)
    view = open_link(world.ports(), Link(made.approval_id, made.secrets[ANA]))
    assert view is not None and view.changes == changes


def test_a_superseded_approval_leads_to_its_replacement(world: MemoryWorld) -> None:
    _, made = _pending(world)
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))
    newer = propose_again(world.runtime(), ProposeAgain(made.approval_id, world.binding))
    assert newer.approval is not None
    found = current_approval(world.approvals, made.approval_id)
    assert found is not None and found.approval_id == newer.approval.approval_id
    view = open_link(world.ports(), Link(made.approval_id, made.secrets[BEN]))
    assert view is not None and view.checkpoint.checkpoint_id == newer.checkpoint.checkpoint_id
    assert current_approval(world.approvals, "appr-" + "1" * 32) is None
