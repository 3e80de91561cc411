"""request_approval: an approval record holding the task token, the policy and hashes of the link secrets;
one message with its own link per approver; nothing is sent unless the record is stored."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.approvals import hash_link_secret
from production_orchestrator.domain.errors import IntegrityError, ValidationError
from production_orchestrator.domain.presentation import fingerprint
from tests.support.memory_world import TOKEN, MemoryWorld


def test_each_approver_gets_their_own_link_and_only_hashes_are_stored(world: MemoryWorld) -> None:
    started = world.start()
    made = world.request(started, ("ana@example.com", "ben@example.com", "ana@example.com"))
    record = world.approval(made.approval_id)
    assert made.result.notified == 2 and set(made.secrets) == {"ana@example.com", "ben@example.com"}
    assert record.approver_names() == ("ana@example.com", "ben@example.com")
    assert record.task_token == TOKEN and record.status == "pending"
    assert record.expires_at == started.checkpoint.expires_at
    stored = record.model_dump_json()
    for approver, secret in made.secrets.items():
        assert secret not in stored
        assert record.approver_for(secret) == approver
        assert hash_link_secret(secret) in stored
    for message in world.notifier.messages:
        assert message.link.startswith(f"https://approvals.example.com/approve?a={made.approval_id}&s=")
        assert fingerprint(started.checkpoint.proposal_hash) in message.subject
        assert TOKEN not in message.body and TOKEN not in message.link
    assert made.secrets["ana@example.com"] != made.secrets["ben@example.com"]


def test_the_quorum_applies_above_the_procurement_threshold(world: MemoryWorld) -> None:
    started = world.start()  # rush-order procures 600 THREAD-RED-40
    above = world.request(started, quorum=2, quorum_above_quantity=500)
    assert world.approval(above.approval_id).quorum == 2
    below = world.request(started, quorum=2, quorum_above_quantity=600)
    assert world.approval(below.approval_id).quorum == 1


def test_a_policy_no_one_can_satisfy_is_refused_and_nothing_is_sent(world: MemoryWorld) -> None:
    started = world.start()
    before = world.snapshot()
    with pytest.raises(ValidationError, match="the requester may not"):
        world.request(
            started,
            requester="ana@example.com",
            separation_of_duties=True,
            quorum=2,
            quorum_above_quantity=0,
        )
    with pytest.raises(ValidationError, match="no approvers"):
        world.request(started, ())
    assert world.snapshot() == before and world.notifier.messages == []


def test_a_request_for_another_proposal_is_an_integrity_error(world: MemoryWorld) -> None:
    started = world.start()
    before = world.snapshot()
    other = started.checkpoint.model_copy(update={"proposal_hash": "f" * 64})
    with pytest.raises(IntegrityError):
        world.request(started.__class__(other, started.proposal, started.stop_reason, started.revision))
    assert world.snapshot() == before and world.notifier.messages == []
