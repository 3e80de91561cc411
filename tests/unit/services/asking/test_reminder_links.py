"""remind_with_links on the in-memory fakes: each asked approver who has not voted gets the latest point's reminder
once, holding a new link through the relink rule (the old one revoked, both audited); a reminder held by
another sender is left to it and reported (ReminderHeldError) after the others went out."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from production_orchestrator.domain.approval.approvals import Vote
from production_orchestrator.domain.approval.reminders import ReminderSchedule
from production_orchestrator.domain.errors import ReminderHeldError
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.asking.reminder_links import RemindWithLinks, remind_with_links
from tests.support.memory_world import MemoryWorld, Requested

ANA, BEN = "ana@example.com", "ben@example.com"
BASE = "https://approvals.example.com/approve"
LEASE = timedelta(minutes=2)


def _open(world: MemoryWorld) -> Requested:
    started = world.start(window=timedelta(days=3), approval=None)
    return world.request(started, (ANA, BEN), quorum=2, quorum_above=0)  # two approvals: one vote keeps it open


def _send(world: MemoryWorld, made: Requested) -> list[tuple[str, str]]:
    world.notifier.messages.clear()
    return remind_with_links(
        world.ports(), RemindWithLinks(ReminderSchedule(), world.approval(made.approval_id), BASE, LEASE)
    )


def _kinds(world: MemoryWorld) -> list[str]:
    return [e.event_type for e in world.store.audit_events()]


def test_each_reminder_holds_a_new_link_and_the_first_stops_working(world: MemoryWorld) -> None:
    made = _open(world)
    world.clock.advance(hours=36)
    assert sorted(_send(world, made)) == [("halfway", ANA), ("halfway", BEN)]
    record = world.approval(made.approval_id)
    for message in world.notifier.messages:
        secret = parse_qs(urlsplit(message.link).query)["s"][0]
        assert message.subject.startswith("Reminder: Approve plan for order RUSH-200?")
        assert "1 day 12 hours left" in message.body and message.link in message.body
        assert record.approver_for(secret) == message.approver
        assert record.approver_for(made.secrets[message.approver]) is None
    assert _kinds(world).count("approval_relinked") == 2 and _kinds(world).count("approval_reminded") == 2
    assert _send(world, made) == [] and world.notifier.messages == []


def test_who_voted_is_not_reminded_and_no_point_comes_after_the_window(world: MemoryWorld) -> None:
    made = _open(world)
    decision = Decision(
        approved=True, reviewed_hash=world.approval(made.approval_id).proposal_hash, approver=ANA, reason="",
        decided_at=utc_iso(world.clock()),
    )  # fmt: skip
    world.approvals.record_approval_vote(made.approval_id, Vote(decision=decision), now=world.clock())
    world.clock.advance(hours=36)
    assert _send(world, made) == [("halfway", BEN)]
    world.clock.advance(days=2)
    assert _send(world, made) == [] and world.notifier.messages == []  # the window closed: no point comes


def test_a_reminder_held_by_another_sender_is_left_to_it_until_the_lease_ends(world: MemoryWorld) -> None:
    made = _open(world)
    world.clock.advance(hours=36)
    world.approvals.record_reminder_claim(made.approval_id, f"halfway|{ANA}", "other", now=world.clock(), lease=LEASE)
    with pytest.raises(ReminderHeldError):
        _send(world, made)
    assert [m.approver for m in world.notifier.messages] == [BEN]
    world.clock.advance(minutes=2)
    assert _send(world, made) == [("halfway", ANA)]
    assert [m.approver for m in world.notifier.messages] == [ANA]
