"""approval_kind: an approval request or reminder goes through the same pipeline as a plan's message; its rule
voids it after the claim when no longer wanted and rebuilds its link at send. Its status is checked against the
audit trail as every kind's: a sent request edited back to queued, or a void one, is named and never sent."""

from __future__ import annotations

from production_orchestrator.domain.approval.links import LinkMint
from production_orchestrator.services.asking.approval_mail import queue_requests
from production_orchestrator.services.audit import verify_audit
from production_orchestrator.services.outbox.approval_kind import ApprovalRule
from tests.support.fakes import ScriptedTransport
from tests.support.memory_world import MemoryWorld
from tests.unit.services.asking.test_approval_mail import ANA, BASE, BEN, Mailbag, _deliver, _started


def _queued(world: MemoryWorld) -> str:
    approval_id = _started(world, (ANA, BEN))
    assert queue_requests(world.store, world.approvals, approval_id, world.clock()) == [ANA, BEN]
    return approval_id


def _edit(world: MemoryWorld, approver: str, **fields: str) -> str:
    (message,) = [m for m in world.store.outbox_messages() if m.to == approver]
    world.store._outbox[message.key] = message.model_copy(update=fields).model_dump_json()
    return message.key


def _verify(world: MemoryWorld) -> str:
    report = verify_audit(world.ports())
    return "" if report.intact else report.problem


def test_a_sent_request_edited_back_to_queued_is_named_and_never_sent_again(world: MemoryWorld) -> None:
    _queued(world)
    assert [m.to for m in _deliver(world, Mailbag()).sent] == [ANA, BEN] and _verify(world) == ""
    key = _edit(world, ANA, status="queued", transport_id="", sent_at="")
    before = world.store.outbox_messages(), world.store.audit_events()
    bag = Mailbag()
    report = _deliver(world, bag)
    assert bag.sent == [] and [m.key for m, _ in report.refused] == [key] and not report.complete
    assert (world.store.outbox_messages(), world.store.audit_events()) == before  # nothing written
    assert key in _verify(world) and "records it sent" in _verify(world)


def test_a_void_request_edited_back_to_queued_is_named_and_not_sent(world: MemoryWorld) -> None:
    approval_id = _queued(world)
    world.clock.advance(days=3)  # the approval expired: both requests are void
    assert {m.to for m in _deliver(world, Mailbag()).void} == {ANA, BEN}
    key = _edit(world, BEN, status="queued", last_error="")
    before = world.store.outbox_messages(), world.store.audit_events()
    report = _deliver(world, Mailbag())
    assert [m.key for m, _ in report.refused] == [key] and "records it void" in report.refused[0][1]
    assert (world.store.outbox_messages(), world.store.audit_events()) == before
    assert "records it void" in _verify(world) and approval_id in key


def test_each_delivery_step_names_the_message_in_the_trail(world: MemoryWorld) -> None:
    _queued(world)
    _deliver(world, Mailbag())
    keys = {m.key for m in world.store.outbox_messages()}
    sent = [e for e in world.store.audit_events() if e.event_type == "approval_mail_sent"]
    assert {e.detail["message"] for e in sent} == keys and {e.detail["mail"] for e in sent} == {"request"}


def test_mail_from_before_its_events_named_it_is_not_judged(world: MemoryWorld) -> None:
    _queued(world)
    _deliver(world, Mailbag())
    # As a data dir upgraded from before: its sent events named no message.
    world.store._audit = [raw.replace('"message":', '"was_message":') for raw in world.store._audit]
    assert all("message" not in e.detail for e in world.store.audit_events() if e.event_type.startswith("approval"))
    report = _deliver(world, Mailbag())
    assert report.refused == [] and report.sent == []


def test_without_a_link_key_or_base_the_round_leaves_approval_mail_queued(world: MemoryWorld) -> None:
    _queued(world)
    rule = ApprovalRule(world.runtime(), None)
    assert rule.waits() is not None
    rt = world.runtime(transport=ScriptedTransport(), mint=LinkMint(world.mac_key))
    assert ApprovalRule(rt, lambda _: BASE).waits() is None
