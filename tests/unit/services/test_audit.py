"""audit: the keyed chain holds and every vote it records is the vote its approval holds, with a receipt that
verifies; the first thing that does not hold is named by position and seq. Reads only."""

from __future__ import annotations

from production_orchestrator.services.audit import verify_audit
from production_orchestrator.services.deciding.decide import Decide, decide
from tests.support.fakes import InMemoryMacKey
from tests.support.memory_world import MemoryWorld

BEN = "ben@example.com"


def _voted(world: MemoryWorld) -> str:
    started = world.start(approval=None)
    made = world.request(started)
    decide(
        world.ports(),
        Decide(
            approval_id=made.approval_id,
            secret=made.secrets[BEN],
            approve=False,
            reviewed_hash=started.checkpoint.proposal_hash,
            reason="not now",
        ),
    )
    return made.approval_id


def test_an_intact_trail_verifies_and_verifying_writes_nothing(world: MemoryWorld) -> None:
    _voted(world)
    before = world.snapshot()
    report = verify_audit(world.ports())
    assert report.intact and report.events == len(world.store.audit_events())
    assert world.snapshot() == before


def test_another_key_finds_the_first_link(world: MemoryWorld) -> None:
    _voted(world)
    report = verify_audit(world.ports(audit_key=InMemoryMacKey()))
    assert (report.broken_at, report.seq) == (1, 1) and "MAC" in report.problem


def test_a_vote_rewritten_in_its_approval_is_named_by_the_event_that_recorded_it(world: MemoryWorld) -> None:
    approval_id = _voted(world)
    record = world.approval(approval_id)
    vote = record.votes[0]
    edited = vote.model_copy(update={"decision": vote.decision.model_copy(update={"reason": "fine"})})
    world.approvals._records[approval_id] = record.model_copy(update={"votes": (edited,)}).model_dump_json()
    report = verify_audit(world.ports())
    seq = next(e.seq for e in world.store.audit_events() if e.event_type == "approval_vote")
    assert report.seq == seq and "does not describe" in report.problem


def test_a_vote_no_event_records_is_found(world: MemoryWorld) -> None:
    approval_id = _voted(world)
    record = world.approval(approval_id)
    twin = record.votes[0].model_copy(
        update={"decision": record.votes[0].decision.model_copy(update={"approver": "ana@example.com"})}
    )
    world.approvals._records[approval_id] = record.model_copy(update={"votes": (*record.votes, twin)}).model_dump_json()
    report = verify_audit(world.ports())
    assert not report.intact and "no audit event records" in report.problem
