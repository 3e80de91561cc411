"""remind: each approver who has not voted gets each reminder once (the latest point that has come), racing or
dead senders included; after the configured time the backups join once, with their own links, and nothing else
of the policy changes. The clock is injected: no test waits."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from production_orchestrator.domain.approval.approvals import ApproverLink, Vote, hash_link_secret
from production_orchestrator.domain.approval.reminders import ReminderSchedule, parse_points
from production_orchestrator.domain.errors import ValidationError
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.asking.remind import Remind, RemindReport, remind
from tests.support.memory_world import MemoryWorld, Requested

ANA, BEN, CY, DAN = "ana@example.com", "ben@example.com", "cy@example.com", "dan@example.com"
BASE = "https://approvals.example.com/approve"


def _open(world: MemoryWorld, days: int = 3, approvers: tuple[str, ...] = (ANA, BEN)) -> Requested:
    started = world.start(window=timedelta(days=days), approval=None)
    # rush-order procures 600: above 0, so two approvals are needed and one vote leaves it open
    return world.request(started, approvers, quorum=2, quorum_above=0)


def _run(world: MemoryWorld, schedule: ReminderSchedule | None = None) -> RemindReport:
    world.notifier.messages.clear()
    return remind(world.ports(), Remind(schedule or ReminderSchedule(), link_base=lambda _: BASE))


def _vote(world: MemoryWorld, made: Requested, who: str, approved: bool = True) -> None:
    record = world.approval(made.approval_id)
    decision = Decision(approved=approved, reviewed_hash=record.proposal_hash, approver=who, reason="" if approved
                        else "no", decided_at=utc_iso(world.clock()))  # fmt: skip
    world.approvals.record_approval_vote(made.approval_id, Vote(decision=decision), now=world.clock())


def _reminded(world: MemoryWorld) -> list[tuple[str, str]]:
    return [
        (e.detail["point"], e.detail["approver"])
        for e in world.store.audit_events()
        if e.event_type == "approval_reminded"
    ]


def test_halfway_and_a_day_before_each_once_and_never_to_who_voted(world: MemoryWorld) -> None:
    made = _open(world)  # window: 3 days -> halfway at 36 h, "24h" at 48 h
    world.clock.advance(hours=35, minutes=59)
    assert _run(world).reminded == [] and world.notifier.messages == []
    world.clock.advance(minutes=1)
    assert _run(world).reminded == [(made.approval_id, "halfway", ANA), (made.approval_id, "halfway", BEN)]
    message = world.notifier.messages[0]
    assert "RUSH-200" in message.subject and "1 day 12 hours left" in message.body and "s=" not in message.body
    before = world.snapshot()
    assert _run(world).reminded == [] and world.snapshot() == before  # idempotent: a second run sends nothing
    _vote(world, made, BEN)
    world.clock.advance(hours=12)
    assert _run(world).reminded == [(made.approval_id, "24h", ANA)]
    world.clock.advance(hours=1)
    assert _run(world).reminded == []
    assert _reminded(world) == [("halfway", ANA), ("halfway", BEN), ("24h", ANA)]


def test_a_late_run_sends_one_reminder_not_a_burst_and_a_closed_approval_none(world: MemoryWorld) -> None:
    made = _open(world)
    world.clock.advance(hours=50)  # both points have come: only the latest counts
    assert [(p, a) for _, p, a in _run(world).reminded] == [("24h", ANA), ("24h", BEN)]
    _vote(world, made, ANA, approved=False)  # a reject closes it
    world.clock.advance(hours=1)
    assert _run(world).reminded == [] and world.notifier.messages == []


def test_a_reminder_another_sender_holds_waits_for_its_lease_then_goes_once(world: MemoryWorld) -> None:
    made = _open(world)
    world.clock.advance(hours=36)
    # another run claimed ana's reminder and died before sending it
    world.approvals.record_reminder_claim(made.approval_id, f"halfway|{ANA}", "f" * 32, now=world.clock(),
                                          lease=timedelta(minutes=2))  # fmt: skip
    assert [a for _, _, a in _run(world).reminded] == [BEN]
    world.clock.advance(minutes=2)
    assert [a for _, _, a in _run(world).reminded] == [ANA]
    assert _run(world).reminded == []
    assert sorted(_reminded(world)) == [("halfway", ANA), ("halfway", BEN)]


def test_backups_join_once_with_their_own_link_and_nothing_else_of_the_policy_changes(world: MemoryWorld) -> None:
    made = _open(world)
    schedule = ReminderSchedule(escalate_after=timedelta(hours=6), backups=(CY, DAN))
    policy_before = world.approval(made.approval_id).policy
    world.clock.advance(hours=5, minutes=59)
    assert _run(world, schedule).escalated == []
    world.clock.advance(minutes=1)
    report = _run(world, schedule)
    assert report.escalated == [(made.approval_id, (CY, DAN))]
    record = world.approval(made.approval_id)
    assert record.policy.approvers == (ANA, BEN, CY, DAN)
    assert record.policy.model_copy(update={"approvers": policy_before.approvers}) == policy_before
    assert record.required == 2 and record.notified == (ANA, BEN, CY, DAN)
    links = {m.approver: parse_qs(urlsplit(m.link).query)["s"][0] for m in world.notifier.messages}
    assert set(links) == {CY, DAN} and all(record.approver_for(s) == who for who, s in links.items())
    assert record.approver_for(made.secrets[ANA]) == ANA  # the first approvers keep their links
    events = [e for e in world.store.audit_events() if e.event_type == "approval_escalated"]
    assert [e.detail["added"] for e in events] == [[CY, DAN]]
    assert all(s not in e.model_dump_json() for e in world.store.audit_events() for s in links.values())
    world.clock.advance(hours=30)  # halfway: the backups are reminded too, the escalation is not repeated
    later = _run(world, schedule)
    assert later.escalated == [] and later.links_sent == []
    assert [a for _, _, a in later.reminded] == [ANA, BEN, CY, DAN]


def test_a_backup_whose_link_never_went_out_gets_one(world: MemoryWorld) -> None:
    made = _open(world)
    world.clock.advance(hours=6)
    # a run added dan and died before sending his link: the secret behind this hash is lost
    lost = (ApproverLink(approver=DAN, secret_hash=hash_link_secret("x" * 43)),)
    world.approvals.record_escalation(made.approval_id, lost, now=world.clock())
    report = _run(world, ReminderSchedule(escalate_after=timedelta(hours=6), backups=(DAN,)))
    assert report.links_sent == [(made.approval_id, DAN)] and report.escalated == []
    secret = parse_qs(urlsplit(world.notifier.messages[0].link).query)["s"][0]
    record = world.approval(made.approval_id)
    assert record.approver_for(secret) == DAN and DAN in record.notified


def test_reminder_points_are_checked() -> None:
    assert parse_points(" Halfway , 24h,10% ") == ("halfway", "24h", "10%")
    for bad in ("soon", "0%", "100%", "24h,24h", ""):
        with pytest.raises(ValidationError):
            parse_points(bad)
    schedule = ReminderSchedule(points=("24h",))
    # a point outside the window never comes: 24 h before the end of a 2-hour window
    assert schedule.moment("24h", "2026-08-12T08:00:00Z", "2026-08-12T10:00:00Z") is None
