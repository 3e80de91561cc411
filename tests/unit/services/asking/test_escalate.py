"""escalate: backups join once, in one write with their event and (outbox) their requests; a backup's link that
never went out is claimed like an outbox row and sent once, the same derivable link after a crash. On the fakes."""

from __future__ import annotations

import contextlib
import threading
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

from production_orchestrator.domain.approval.links import LinkMint
from production_orchestrator.domain.approval.reminders import ReminderSchedule
from production_orchestrator.services.asking.remind import Remind, RemindReport, remind
from production_orchestrator.services.asking.request_approval import LOCAL_TASK_TOKEN, LinkPlan
from tests.support.memory_world import MemoryWorld

ANA, DAN, EVE = "ana@example.com", "dan@example.com", "evelyn"
BASE = "http://127.0.0.1:8765/approve"
SCHEDULE = ReminderSchedule(escalate_after=timedelta(hours=6), backups=(DAN, EVE))


def _started(world: MemoryWorld) -> str:
    plan = LinkPlan.fresh(world.policy((ANA,)), LOCAL_TASK_TOKEN, mint=LinkMint(world.mac_key), mail=True)
    started = world.start(approval=plan, window=timedelta(days=3))
    assert started.approval is not None
    return started.approval.approval_id


def _pass(world: MemoryWorld) -> RemindReport:
    return remind(world.ports(mint=LinkMint(world.mac_key)), Remind(SCHEDULE, lambda _: BASE, outbox=True))


def test_backups_join_once_the_e_mail_one_queued_the_other_printed_once(world: MemoryWorld) -> None:
    approval_id = _started(world)
    world.clock.advance(hours=6)
    first = _pass(world)
    assert first.escalated == [(approval_id, (DAN, EVE))]
    assert sorted(first.links_sent) == [(approval_id, ANA), (approval_id, DAN), (approval_id, EVE)]
    queued = [(m.approver, m.kind) for m in world.store.outbox_messages()]
    assert sorted(queued) == [(ANA, "request"), (DAN, "request")]  # the addresses: queued, once per link
    (printed,) = world.notifier.messages  # evelyn has no address: her link to the notifier
    record = world.approval(approval_id)
    assert printed.approver == EVE and record.approver_for(parse_qs(urlsplit(printed.link).query)["s"][0]) == EVE
    assert sorted(record.notified) == [ANA, DAN, EVE]
    world.clock.advance(minutes=5)
    again = _pass(world)
    assert again.escalated == [] and again.links_sent == [] and len(world.store.outbox_messages()) == 2
    assert [e.event_type for e in world.store.audit_events()].count("approval_escalated") == 1


def test_racing_passes_escalate_once(world: MemoryWorld) -> None:
    approval_id = _started(world)
    world.clock.advance(hours=6)
    reports: list[RemindReport] = []
    threads = [threading.Thread(target=lambda: reports.append(_pass(world))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(len(r.escalated) for r in reports) == 1
    assert [m.approver for m in world.notifier.messages] == [EVE]  # her link once, not once per pass
    assert sorted(m.approver for m in world.store.outbox_messages()) == [ANA, DAN]
    assert world.approval(approval_id).policy.approvers == (ANA, DAN, EVE)


def test_a_pass_that_died_after_claiming_a_link_leaves_it_to_the_next_once_its_lease_passed(
    world: MemoryWorld,
) -> None:
    approval_id = _started(world)
    world.clock.advance(hours=6)

    class Dies:
        def notify(self, message: object) -> None:
            raise SystemExit("killed while sending")

    with contextlib.suppress(SystemExit):
        remind(
            world.ports(notifier=Dies(), mint=LinkMint(world.mac_key)), Remind(SCHEDULE, lambda _: BASE, outbox=True)
        )
    assert EVE not in world.approval(approval_id).notified
    world.clock.advance(minutes=1)
    assert _pass(world).links_sent == [] and world.notifier.messages == []  # still held by the dead pass
    world.clock.advance(minutes=1)
    assert _pass(world).links_sent == [(approval_id, EVE)]
    (message,) = world.notifier.messages
    secret = parse_qs(urlsplit(message.link).query)["s"][0]
    assert world.approval(approval_id).approver_for(secret) == EVE  # the same derivable link, rebuilt


def test_a_start_that_died_before_queueing_has_its_requests_queued_by_the_next_pass(world: MemoryWorld) -> None:
    approval_id = _started(world)  # the approval is written; queue_requests never ran
    assert world.approval(approval_id).notified == () and world.store.outbox_messages() == []
    report = remind(world.ports(mint=LinkMint(world.mac_key)), Remind(ReminderSchedule(), lambda _: BASE, outbox=True))
    assert report.links_sent == [(approval_id, ANA)] and world.notifier.messages == []
    (mail,) = world.store.outbox_messages()
    assert (mail.approver, mail.kind, mail.nonce) == (ANA, "request", world.approval(approval_id).link_of(ANA).nonce)
    assert _pass(world).links_sent == [] and len(world.store.outbox_messages()) == 1


def test_the_runs_requester_is_never_added_as_its_backup(world: MemoryWorld) -> None:
    """DAN submitted the run (in another case): the escalation adds EVE only, and DAN gets no link."""
    policy = world.policy((ANA,), requester="Dan@Example.COM", separation_of_duties=True)
    plan = LinkPlan.fresh(policy, LOCAL_TASK_TOKEN, mint=LinkMint(world.mac_key), mail=True)
    started = world.start(approval=plan, window=timedelta(days=3))
    assert started.approval is not None
    approval_id = started.approval.approval_id
    world.clock.advance(hours=6)
    report = _pass(world)
    assert report.escalated == [(approval_id, (EVE,))]
    record = world.approvals.get_approval(approval_id)
    assert DAN not in record.policy.approvers
    assert all(m.approver != DAN for m in world.store.outbox_messages())
