"""plan_kind: a plan's message is what the approved plan drafted, and its status is what the audit trail says:
a sent one edited back to queued, a failed one queued without ``outbox retry``, a queued one marked sent in
storage are each named and never sent, and the refusal writes nothing."""

from __future__ import annotations

from production_orchestrator.domain.errors import DeliveryError
from production_orchestrator.services.audit import verify_audit
from production_orchestrator.services.outbox.plan_kind import PlanRule
from tests.support.fakes import ScriptedTransport
from tests.support.memory_world import MemoryWorld
from tests.unit.services.outbox.test_deliver import _approved, _tamper, deliver


def _verify(world: MemoryWorld) -> str:
    report = verify_audit(world.ports())
    return "" if report.intact else report.problem


def test_a_sent_message_edited_back_to_queued_is_named_and_never_sent_again(world: MemoryWorld) -> None:
    _approved(world)
    assert deliver(world, ScriptedTransport()).counts()["sent"] == 3
    first = world.store.outbox_messages()[0]
    _tamper(world, 0, status="queued", transport_id="", sent_at="")
    before = world.store.outbox_messages(), world.store.audit_events()
    transport = ScriptedTransport()
    report = deliver(world, transport)
    assert transport.sent == [] and [m.key for m, _ in report.refused] == [first.key]
    assert "records it sent at seq" in report.refused[0][1] and not report.complete
    assert (world.store.outbox_messages(), world.store.audit_events()) == before  # nothing written
    assert first.key in _verify(world) and "records it sent" in _verify(world)


def test_a_failed_message_queued_again_in_storage_is_named_and_not_sent(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    deliver(world, ScriptedTransport(failures={customer: DeliveryError("550 no", permanent=True)}))
    _tamper(world, 0, status="queued")
    before = world.store.outbox_messages(), world.store.audit_events()
    transport = ScriptedTransport()
    report = deliver(world, transport)
    assert [m.to for m, _ in report.refused] == [customer] and "records it failed" in report.refused[0][1]
    assert customer not in {m.to for m in transport.sent}
    assert (world.store.outbox_messages(), world.store.audit_events()) == before
    assert "records it failed" in _verify(world)


def test_a_queued_message_marked_sent_in_storage_is_named(world: MemoryWorld) -> None:
    _approved(world)
    _tamper(world, 1, status="sent", transport_id="smtp:forged")
    before = world.store.outbox_messages(), world.store.audit_events()
    report = deliver(world, ScriptedTransport())
    assert len(report.refused) == 1 and "records no delivery of it" in report.refused[0][1]
    assert report.already_sent == [] and len(report.sent) == 2
    assert world.store.outbox_messages()[1] == before[0][1]  # the forged row is left exactly as found
    assert "records no delivery of it" in _verify(world)


def test_messages_that_agree_with_the_trail_verify(world: MemoryWorld) -> None:
    _approved(world)
    customer = world.store.outbox_messages()[0].to
    deliver(world, ScriptedTransport(failures={customer: DeliveryError("451 later", permanent=False)}))
    assert _verify(world) == ""  # a transient refusal leaves it queued without an event: nothing to name
    deliver(world, ScriptedTransport())
    assert _verify(world) == ""


def test_the_rule_refuses_what_the_plan_never_drafted_and_renders_the_record(world: MemoryWorld) -> None:
    _approved(world)
    rule = PlanRule(world.store)
    message = world.store.outbox_messages()[0]
    assert rule.refusal(message) is None and rule.void(message, world.clock()) is None
    assert "differs from the approved plan" in (rule.refusal(message.model_copy(update={"body": "x"})) or "")
    data = rule.render(message, ScriptedTransport(), world.clock())
    assert message.message_id.encode() in data and b"From: Shop <shop@example.com>" in data
