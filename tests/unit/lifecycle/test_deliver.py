"""deliver: every queued message goes to the transport once and is marked with its id; a sent one never goes
again; a transient failure stays queued for the next round, a permanent one (or too many) is failed for good;
a message another sender holds waits for its lease."""

from __future__ import annotations

from datetime import timedelta

from production_orchestrator.domain.errors import DeliveryError
from production_orchestrator.lifecycle.deliver import MAX_ATTEMPTS, deliver
from tests.support.fakes import ScriptedTransport
from tests.support.memory_world import MemoryWorld


def _approved(world: MemoryWorld) -> str:
    started = world.start()
    assert world.resume(started, True).outcome == "applied"
    return started.checkpoint.proposal_hash


def test_each_queued_message_is_sent_once_and_marked_with_the_transports_id(world: MemoryWorld) -> None:
    proposal_hash = _approved(world)
    transport = ScriptedTransport()
    first = deliver(world.store, transport, clock=world.clock)
    second = deliver(world.store, transport, clock=world.clock)
    assert first.counts() == {"sent": 3, "already_sent": 0, "pending": 0, "failed": 0} and first.complete
    assert second.counts() == {"sent": 0, "already_sent": 3, "pending": 0, "failed": 0}
    assert [m.key for m in transport.sent] == [f"{proposal_hash}#{i:02d}" for i in range(3)]
    stored = world.store.outbox_messages()
    assert [(m.status, m.transport_id, m.attempts) for m in stored] == [
        ("sent", "fake:1", 1),
        ("sent", "fake:2", 1),
        ("sent", "fake:3", 1),
    ]
    assert [e.event_type for e in world.store.audit_events()].count("message_sent") == 3


def test_a_rejected_plan_has_nothing_to_send(world: MemoryWorld) -> None:
    started = world.start()
    world.resume(started, False, reason="not this week")
    report = deliver(world.store, ScriptedTransport(), clock=world.clock)
    assert report.counts() == {"sent": 0, "already_sent": 0, "pending": 0, "failed": 0}


def test_a_permanent_refusal_fails_the_message_for_good(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    transport = ScriptedTransport(failures={customer: DeliveryError("550 no such mailbox", permanent=True)})
    report = deliver(world.store, transport, clock=world.clock)
    assert (len(report.sent), len(report.failed)) == (2, 1) and not report.complete
    del transport.failures[customer]
    again = deliver(world.store, transport, clock=world.clock)
    assert again.counts() == {"sent": 0, "already_sent": 2, "pending": 0, "failed": 1}  # never retried by itself
    failed = world.store.outbox_messages()[0]
    assert (failed.status, failed.last_error, failed.claim_token) == ("failed", "550 no such mailbox", "")
    assert [e.event_type for e in world.store.audit_events()].count("message_failed") == 1


def test_a_transient_failure_stays_queued_and_the_next_round_sends_it(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    transport = ScriptedTransport(failures={customer: DeliveryError("451 try later", permanent=False)})
    report = deliver(world.store, transport, clock=world.clock)
    assert (len(report.sent), len(report.pending)) == (2, 1)
    waiting = world.store.outbox_messages()[0]
    assert (waiting.status, waiting.attempts, waiting.lease_until) == ("queued", 1, "")  # released at once
    del transport.failures[customer]
    assert deliver(world.store, transport, clock=world.clock).counts()["sent"] == 1
    assert world.store.outbox_messages()[0].attempts == 2


def test_too_many_transient_failures_fail_the_message(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    transport = ScriptedTransport(failures={customer: DeliveryError("451 try later", permanent=False)})
    for _ in range(MAX_ATTEMPTS):
        deliver(world.store, transport, clock=world.clock)
    message = world.store.outbox_messages()[0]
    assert (message.status, message.attempts) == ("failed", MAX_ATTEMPTS)


def test_a_message_another_sender_holds_waits_for_its_lease(world: MemoryWorld) -> None:
    _approved(world)
    first = world.store.outbox_messages()[0]
    # Another sender claimed it and died (or is still sending): its lease holds it.
    assert world.store.replace_outbox_message(first, first.claimed("d" * 32, world.clock(), timedelta(minutes=2)))
    transport = ScriptedTransport()
    held = deliver(world.store, transport, clock=world.clock)
    assert (len(held.sent), len(held.pending)) == (2, 1) and first.key not in {m.key for m in transport.sent}
    world.clock.advance(minutes=2, seconds=1)
    late = deliver(world.store, transport, clock=world.clock)
    assert late.counts() == {"sent": 1, "already_sent": 2, "pending": 0, "failed": 0}
    assert world.store.outbox_messages()[0].attempts == 2  # the dead sender's attempt counts


def test_one_plans_messages_only(world: MemoryWorld) -> None:
    proposal_hash = _approved(world)
    assert deliver(world.store, ScriptedTransport(), clock=world.clock, proposal_hash="f" * 64).counts() == {
        "sent": 0,
        "already_sent": 0,
        "pending": 0,
        "failed": 0,
    }
    assert len(deliver(world.store, ScriptedTransport(), clock=world.clock, proposal_hash=proposal_hash).sent) == 3
