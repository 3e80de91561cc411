"""requeue: a failed message is queued again by a person, audited, with a fresh budget of attempts; a message
that is not failed, unknown or edited in the store is refused with nothing written."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import DeliveryError
from production_orchestrator.services.outbox.requeue import Requeue, requeue
from tests.support.fakes import ScriptedTransport
from tests.support.memory_world import MemoryWorld
from tests.unit.services.outbox.test_deliver import _approved, _tamper, deliver


def test_requeue_queues_failed_messages_again_audited(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    transport = ScriptedTransport(failures={customer: DeliveryError("550 no such mailbox", permanent=True)})
    deliver(world, transport)
    failed = world.store.outbox_messages()[0]
    report = requeue(world.runtime(), Requeue(by="cli:owner", keys=(failed.key,)))
    assert [m.key for m in report.requeued] == [failed.key]
    again = world.store.outbox_messages()[0]
    assert (again.status, again.attempts, again.attempts_since_retry, again.last_error) == (
        "queued",
        1,
        0,
        "550 no such mailbox",
    )
    events = [e for e in world.store.audit_events() if e.event_type == "message_requeued"]
    assert [(e.detail["message"], e.detail["by"]) for e in events] == [(failed.key, "cli:owner")]
    del transport.failures[customer]
    assert deliver(world, transport).counts()["sent"] == 1


def test_requeue_refuses_a_message_that_is_not_failed_and_writes_nothing(world: MemoryWorld) -> None:
    _approved(world)
    first = world.store.outbox_messages()[0]
    before = world.store.outbox_messages(), world.store.audit_events()
    with pytest.raises(ValueError, match="is queued, not failed"):
        requeue(world.runtime(), Requeue(by="cli:owner", keys=(first.key,)))
    with pytest.raises(KeyError):
        requeue(world.runtime(), Requeue(by="cli:owner", keys=("f" * 64 + "#00",)))
    assert (world.store.outbox_messages(), world.store.audit_events()) == before


def test_requeue_refuses_a_failed_message_edited_in_the_store(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    deliver(world, ScriptedTransport(failures={customer: DeliveryError("550 no", permanent=True)}))
    edited = _tamper(world, 0, to="attacker@evil.example")
    with pytest.raises(ValueError, match="differs from the approved plan"):
        requeue(world.runtime(), Requeue(by="cli:owner", keys=(edited.key,)))
    report = requeue(world.runtime(), Requeue(by="cli:owner", all_failed=True))
    assert report.requeued == [] and [m.key for m, _ in report.refused] == [edited.key]
    assert world.store.outbox_messages()[0].status == "failed"


def test_a_message_never_retried_is_stored_as_older_versions_stored_it(world: MemoryWorld) -> None:
    """DynamoDB's compare-and-set compares the stored JSON text: a record written before ``attempts_at_retry``
    existed must still compare equal once read and written back, or it could never be claimed."""
    _approved(world)
    message = world.store.outbox_messages()[0]
    assert "attempts_at_retry" not in message.model_dump_json()
    failed = message.not_sent("550 no", permanent=True)
    assert '"attempts_at_retry":0' not in failed.model_dump_json()
    claimed = failed.model_copy(update={"attempts": 2}).requeued()
    assert '"attempts_at_retry":2' in claimed.model_dump_json()
    assert type(message).model_validate_json(claimed.model_dump_json()) == claimed
