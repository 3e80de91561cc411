"""reminder_wakes on the in-memory fakes: which wake-ups arming creates and when, an early wake-up armed again at
the approval's own moment, the reminder's new link (the old one revoked), and nothing for a closed approval.
The clock is injected: no test waits."""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from production_orchestrator.domain.approval.reminders import ReminderSchedule
from production_orchestrator.domain.errors import ValidationError
from production_orchestrator.domain.records import parse_utc, utc_iso
from production_orchestrator.services.asking.reminder_wakes import (
    ARM_LEAD,
    Arm,
    Disarm,
    Wake,
    Woken,
    arm,
    disarm,
    wake,
    wake_names,
)
from tests.support.memory_world import MemoryWorld, Requested

ANA, BEN, DAN = "ana@example.com", "ben@example.com", "dan@example.com"
BASE = "https://approvals.example.com/approve"


class FakeWakes:
    """The scheduler port in memory: name -> (moment, payload)."""

    def __init__(self) -> None:
        self.armed: dict[str, tuple[datetime, dict[str, str]]] = {}

    def arm(self, name: str, at: datetime, payload: dict[str, str]) -> bool:
        if name in self.armed:
            return False
        self.armed[name] = (at, payload)
        return True

    def disarm(self, name: str) -> bool:
        return self.armed.pop(name, None) is not None


def _open(world: MemoryWorld, days: int = 3) -> Requested:
    started = world.start(window=timedelta(days=days), approval=None)
    return world.request(started, (ANA, BEN))


def _wake(world: MemoryWorld, wakes: FakeWakes, made: Requested, point: str, schedule: ReminderSchedule) -> Woken:
    world.notifier.messages.clear()
    return wake(world.ports(wakes=wakes), Wake(schedule, made.result.checkpoint_id, point, BASE))


def test_arming_names_each_point_and_the_escalation_and_never_arms_outside_the_window(world: MemoryWorld) -> None:
    wakes = FakeWakes()
    now = world.clock()
    expires = utc_iso(now + timedelta(hours=2))
    schedule = ReminderSchedule(points=("halfway", "24h", "90m"), escalate_after=timedelta(hours=3), backups=(DAN,))
    armed = arm(world.ports(wakes=wakes), Arm(schedule, "ckpt-" + "a" * 32, expires))
    # 24h before the end of a 2-hour window never comes, nor the escalation after 3 hours.
    assert set(armed.wakes) == {"ckpt-" + "a" * 32 + "-r0", "ckpt-" + "a" * 32 + "-r2"}
    # Each at its moment plus the lead (the approval is written just after), rounded up to a whole second.
    for name, moment in (("-r0", now + timedelta(hours=1)), ("-r2", now + timedelta(minutes=30))):
        late = parse_utc(armed.wakes["ckpt-" + "a" * 32 + name]) - (moment + ARM_LEAD)
        assert timedelta(0) <= late < timedelta(seconds=1)
    assert all(len(name) <= 64 for name in wake_names("ckpt-" + "a" * 32, schedule))
    # The lead never pushes a wake-up past the window: a point 10 s before the end is armed inside it.
    tight = arm(world.ports(wakes=FakeWakes()), Arm(ReminderSchedule(points=("10s",)), "ckpt-" + "b" * 32, expires))
    (at,) = tight.wakes.values()
    assert parse_utc(at) < parse_utc(expires)
    assert disarm(world.ports(wakes=wakes), Disarm(schedule, "ckpt-" + "a" * 32)) == 2 and wakes.armed == {}


def test_an_early_wake_is_armed_again_and_the_reminder_then_carries_a_new_link(world: MemoryWorld) -> None:
    made = _open(world)
    wakes, schedule = FakeWakes(), ReminderSchedule()
    record = world.approval(made.approval_id)
    moment = ReminderSchedule.moment("halfway", record.created_at, record.expires_at)
    assert moment is not None
    world.clock.advance(hours=35, minutes=59)
    before = world.snapshot()
    early = _wake(world, wakes, made, "halfway", schedule)
    assert early.status == "early" and world.notifier.messages == [] and world.snapshot() == before
    (again,) = wakes.armed.items()
    assert again[0].endswith("-r0-again") and again[1][0] >= moment
    world.clock.advance(minutes=1)
    done = _wake(world, wakes, made, "halfway", schedule)
    assert sorted(done.reminded) == [("halfway", ANA), ("halfway", BEN)]
    for message in world.notifier.messages:
        secret = parse_qs(urlsplit(message.link).query)["s"][0]
        assert message.subject.startswith("Reminder: ") and message.link in message.body
        assert world.approval(made.approval_id).approver_for(secret) == message.approver
        assert world.approval(made.approval_id).approver_for(made.secrets[message.approver]) is None
    assert _wake(world, wakes, made, "halfway", schedule).reminded == []


def test_a_closed_approval_gets_nothing(world: MemoryWorld) -> None:
    made = _open(world, days=1)
    wakes = FakeWakes()
    world.clock.advance(days=1)
    before = world.snapshot()
    assert _wake(world, wakes, made, "halfway", ReminderSchedule()).status == "closed"
    assert world.notifier.messages == [] and world.snapshot() == before and wakes.armed == {}


@pytest.mark.parametrize("point", ["soon", "halfway,24h", "", "0%"])
def test_a_malformed_point_is_refused_before_anything_is_read(world: MemoryWorld, point: str) -> None:
    made = _open(world)
    before = world.snapshot()
    with pytest.raises(ValidationError):
        _wake(world, FakeWakes(), made, point, ReminderSchedule())
    assert world.snapshot() == before
