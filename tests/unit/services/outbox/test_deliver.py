"""deliver: every queued message goes to the transport once and is marked with its id; a sent one never goes
again; a transient failure stays queued for the next round, a permanent one (or too many) is failed for good;
a message another sender holds waits for its lease."""

from __future__ import annotations

from datetime import timedelta

import pytest

from production_orchestrator.domain.errors import DeliveryError
from production_orchestrator.domain.messages.outbox import OutboxMessage
from production_orchestrator.services.outbox.deliver import MAX_ATTEMPTS, Deliver, DeliveryReport
from production_orchestrator.services.outbox.deliver import deliver as deliver_round
from tests.support.fakes import ScriptedTransport
from tests.support.memory_world import MemoryWorld


def deliver(world: MemoryWorld, transport: ScriptedTransport, proposal_hash: str | None = None) -> DeliveryReport:
    return deliver_round(world.runtime(transport=transport), Deliver(proposal_hash=proposal_hash))


def _approved(world: MemoryWorld) -> str:
    started = world.start()
    assert world.resume(started, True).outcome == "applied"
    return started.checkpoint.proposal_hash


def test_each_queued_message_is_sent_once_and_marked_with_the_transports_id(world: MemoryWorld) -> None:
    proposal_hash = _approved(world)
    transport = ScriptedTransport()
    first = deliver(world, transport)
    second = deliver(world, transport)
    assert (
        first.counts() == {"sent": 3, "already_sent": 0, "pending": 0, "failed": 0, "refused": 0, "void": 0}
        and first.complete
    )
    assert second.counts() == {"sent": 0, "already_sent": 3, "pending": 0, "failed": 0, "refused": 0, "void": 0}
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
    report = deliver(world, ScriptedTransport())
    assert report.counts() == {"sent": 0, "already_sent": 0, "pending": 0, "failed": 0, "refused": 0, "void": 0}


def test_a_permanent_refusal_fails_the_message_for_good(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    transport = ScriptedTransport(failures={customer: DeliveryError("550 no such mailbox", permanent=True)})
    report = deliver(world, transport)
    assert (len(report.sent), len(report.failed)) == (2, 1) and not report.complete
    del transport.failures[customer]
    again = deliver(world, transport)
    assert again.counts() == {
        "sent": 0,
        "already_sent": 2,
        "pending": 0,
        "failed": 1,
        "refused": 0,
        "void": 0,
    }  # never retried by itself
    failed = world.store.outbox_messages()[0]
    assert (failed.status, failed.last_error, failed.claim_token) == ("failed", "550 no such mailbox", "")
    assert [e.event_type for e in world.store.audit_events()].count("message_failed") == 1


def test_a_transient_failure_stays_queued_and_the_next_round_sends_it(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    transport = ScriptedTransport(failures={customer: DeliveryError("451 try later", permanent=False)})
    report = deliver(world, transport)
    assert (len(report.sent), len(report.pending)) == (2, 1)
    waiting = world.store.outbox_messages()[0]
    assert (waiting.status, waiting.attempts, waiting.lease_until) == ("queued", 1, "")  # released at once
    del transport.failures[customer]
    assert deliver(world, transport).counts()["sent"] == 1
    assert world.store.outbox_messages()[0].attempts == 2


def test_too_many_transient_failures_fail_the_message(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    transport = ScriptedTransport(failures={customer: DeliveryError("451 try later", permanent=False)})
    for _ in range(MAX_ATTEMPTS):
        deliver(world, transport)
    message = world.store.outbox_messages()[0]
    assert (message.status, message.attempts) == ("failed", MAX_ATTEMPTS)


def test_a_message_another_sender_holds_waits_for_its_lease(world: MemoryWorld) -> None:
    _approved(world)
    first = world.store.outbox_messages()[0]
    # Another sender claimed it and died (or is still sending): its lease holds it.
    assert world.store.replace_outbox_message(first, first.claimed("d" * 32, world.clock(), timedelta(minutes=2)))
    transport = ScriptedTransport()
    held = deliver(world, transport)
    assert (len(held.sent), len(held.pending)) == (2, 1) and first.key not in {m.key for m in transport.sent}
    world.clock.advance(minutes=2, seconds=1)
    late = deliver(world, transport)
    assert late.counts() == {"sent": 1, "already_sent": 2, "pending": 0, "failed": 0, "refused": 0, "void": 0}
    assert world.store.outbox_messages()[0].attempts == 2  # the dead sender's attempt counts


def test_one_plans_messages_only(world: MemoryWorld) -> None:
    proposal_hash = _approved(world)
    assert deliver(world, ScriptedTransport(), "f" * 64).counts() == {
        "sent": 0,
        "already_sent": 0,
        "pending": 0,
        "failed": 0,
        "refused": 0,
        "void": 0,
    }
    assert len(deliver(world, ScriptedTransport(), proposal_hash).sent) == 3


def _tamper(world: MemoryWorld, index: int, **fields: str) -> OutboxMessage:
    """Edit one stored message behind the domain's back, as someone with write access to the store could."""
    message = world.store.outbox_messages()[index]
    edited = message.model_copy(update=fields)
    world.store._outbox[message.key] = edited.model_dump_json()
    return edited


@pytest.mark.parametrize(
    "fields",
    [{"to": "attacker@evil.example"}, {"subject": "Pay to this account"}, {"body": "new bank details"}],
)
def test_a_message_edited_in_the_store_is_refused_and_nothing_is_written(
    world: MemoryWorld, fields: dict[str, str]
) -> None:
    _approved(world)
    edited = _tamper(world, 0, **fields)
    before = world.store.outbox_messages(), world.store.audit_events()
    transport = ScriptedTransport()
    report = deliver(world, transport)
    assert [m.key for m, _ in report.refused] == [edited.key] and not report.complete
    assert "differs from the approved plan's draft" in report.refused[0][1]
    assert next(iter(fields)) in report.refused[0][1]
    assert edited.key not in {m.key for m in transport.sent} and len(transport.sent) == 2
    stored = world.store.outbox_messages()
    assert stored[0] == before[0][0]  # the edited record is left exactly as found: no claim, no attempt
    assert "message_failed" not in {e.event_type for e in world.store.audit_events()}


def test_a_message_of_a_plan_that_never_applied_is_refused(world: MemoryWorld) -> None:
    _approved(world)
    message = world.store.outbox_messages()[0]
    forged = message.model_copy(update={"proposal_hash": "e" * 64})
    world.store._outbox[forged.key] = forged.model_dump_json()
    report = deliver(world, ScriptedTransport())
    assert [m.key for m, _ in report.refused] == [forged.key] and "never applied" in report.refused[0][1]


def test_an_unreachable_transport_counts_no_attempt_and_stops_the_round(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    down = DeliveryError("smtp 127.0.0.1:9 unavailable: ConnectionRefusedError", permanent=False, unreachable=True)
    transport = ScriptedTransport(failures={customer: down})
    for _ in range(MAX_ATTEMPTS + 2):
        report = deliver(world, transport)
        assert report.counts()["pending"] == 3 and transport.sent == []  # the others were not even tried
    assert [(m.status, m.attempts) for m in world.store.outbox_messages()] == [("queued", 0)] * 3
    del transport.failures[customer]
    assert deliver(world, transport).counts()["sent"] == 3
