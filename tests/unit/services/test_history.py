"""history: who decided what, when and why, from the audit trail; votes' reasons from their approvals."""

from __future__ import annotations

from production_orchestrator.services.deciding.decide import Decide, decide
from production_orchestrator.services.history import history
from tests.support.memory_world import MemoryWorld

ANA, BEN = "ana@example.com", "ben@example.com"


def test_requests_votes_decision_and_outcome_in_order(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    other = world.start(approval=None)
    made = world.request(started, (ANA, BEN), quorum=2, quorum_above_quantity=0)
    for who, approve, reason in ((ANA, True, "fine by me"), (BEN, False, "too much red thread")):
        world.clock.advance(minutes=1)
        done = decide(
            world.ports(),
            Decide(
                approval_id=made.approval_id,
                secret=made.secrets[who],
                approve=approve,
                reviewed_hash=started.checkpoint.proposal_hash,
                reason=reason,
            ),
        )
        assert done.status in ("vote_recorded", "recorded")
    world.resume(started, False, approver=BEN, reason="too much red thread")
    entries = history(world.ports(), started.checkpoint.checkpoint_id)
    assert [(e.event, e.approver, e.decision, e.reason) for e in entries] == [
        ("requested", "", "", ""),  # the checkpoint
        ("requested", "", "", ""),  # its approval, with the task token (the AWS order)
        ("vote", ANA, "approve", "fine by me"),
        ("vote", BEN, "reject", "too much red thread"),
        ("decision", BEN, "reject", "too much red thread"),
        ("rejected", "", "", "too much red thread"),
    ]
    assert entries[2].at < entries[3].at and entries[2].approval_id == made.approval_id
    assert entries[3].note == "approval rejected"
    every = history(world.ports())
    assert len(every) == len(entries) + 1  # the other run's request
    assert {e.checkpoint_id for e in every} == {started.checkpoint.checkpoint_id, other.checkpoint.checkpoint_id}


def test_an_applied_plan_names_who_approved(world: MemoryWorld) -> None:
    started = world.start()
    world.resume(started, True, approver=ANA)
    last = history(world.ports())[-1]
    assert (last.event, last.approver) == ("applied", ANA)
