"""request_approval: an approval record holding the task token, the policy and hashes of the link secrets;
one message with its own link per approver; nothing is sent unless the record is stored; once per task (a
retry finds the approval and sends nothing new); a policy nobody can satisfy is refused."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.approval.approvals import hash_link_secret
from production_orchestrator.domain.errors import IntegrityError, ValidationError
from production_orchestrator.domain.presentation import fingerprint
from tests.support.memory_world import TOKEN, MemoryWorld


def test_each_approver_gets_their_own_link_and_only_hashes_are_stored(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, ("ana@example.com", "ben@example.com", " ANA@example.com"))
    record = world.approval(made.approval_id)
    assert made.result.notified == 2 and set(made.secrets) == {"ana@example.com", "ben@example.com"}
    assert record.approver_names() == ("ana@example.com", "ben@example.com")
    assert record.task_token == TOKEN and record.status == "pending"
    assert record.notified == ("ana@example.com", "ben@example.com")
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


def test_the_policy_is_stored_and_what_this_plan_needs_computed_from_it(world: MemoryWorld) -> None:
    above = world.start(approval=None)  # rush-order procures 600 THREAD-RED-40
    made = world.request(above, quorum=2, quorum_above_quantity=500)
    record = world.approval(made.approval_id)
    assert record.required == 2 and (record.policy.quorum, record.policy.quorum_above) == (2, 500)
    below = world.start(approval=None)
    assert world.approval(world.request(below, quorum=2, quorum_above_quantity=600).approval_id).required == 1


def test_a_retry_of_the_same_task_finds_its_approval_and_sends_nothing(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    first = world.request(started)
    before = world.snapshot()
    again = world.request(started)
    assert again.approval_id == first.approval_id and again.result.notified == 0 and again.secrets == {}
    assert world.snapshot() == before
    retried = world.request(started, task_token="a-new-token-for-a-retried-state")
    assert retried.approval_id == first.approval_id and retried.result.notified == 0
    record = world.approval(first.approval_id)
    assert record.task_token == "a-new-token-for-a-retried-state"
    assert record.approver_for(first.secrets["ana@example.com"]) == "ana@example.com"  # the links still work


def test_a_policy_no_one_can_satisfy_is_refused_and_nothing_is_sent(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    before = world.snapshot()
    with pytest.raises(ValidationError, match="the requester may not"):
        world.request(
            started, requester="ana@example.com", separation_of_duties=True, quorum=2, quorum_above_quantity=0
        )
    with pytest.raises(ValidationError, match="nobody is named as the requester"):
        world.request(started, separation_of_duties=True)
    with pytest.raises(ValidationError, match="invalid approval policy"):
        world.request(started, ())
    assert world.snapshot() == before and world.notifier.messages == []


def test_a_request_for_another_proposal_is_an_integrity_error(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    before = world.snapshot()
    other = started.checkpoint.model_copy(update={"proposal_hash": "f" * 64})
    with pytest.raises(IntegrityError):
        world.request(started.__class__(other, started.proposal, started.stop_reason, started.revision))
    assert world.snapshot() == before and world.notifier.messages == []
