"""approval_mail: e-mail approvers' requests are queued once per link with the approval change and delivered once
each; every send asks the one rule (open, still asked, not voted, same link) after its claim; the secret is rebuilt
at send and stored nowhere; a crashed sender's claim waits for its lease. On the in-memory fakes, clock injected."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from production_orchestrator import faults
from production_orchestrator.domain.approval.approvals import Vote
from production_orchestrator.domain.approval.links import LinkMint
from production_orchestrator.domain.errors import DeliveryError
from production_orchestrator.domain.messages.outbox import OutboxMessage
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.asking.approval_mail import queue_requests
from production_orchestrator.services.asking.relink import Relink, relink
from production_orchestrator.services.asking.request_approval import LOCAL_TASK_TOKEN, LinkPlan
from production_orchestrator.services.outbox.deliver import Deliver, DeliveryReport, deliver
from tests.support.memory_world import MemoryWorld

ANA, BEN, CY = "ana@example.com", "ben@example.com", "cyril"
BASE = "http://127.0.0.1:8765/approve"


@dataclass
class Mailbag:
    """A :class:`MessageTransport` that keeps what it is given, or fails as told."""

    sent: list[tuple[str, bytes]] = field(default_factory=list)
    fail: DeliveryError | None = None
    name: str = "bag"
    sender: str = "shop@example.com"
    sender_name: str = "Shop"

    def send(self, message: OutboxMessage, data: bytes) -> str:
        if self.fail is not None:
            raise self.fail
        self.sent.append((message.to, data))
        return f"bag:{len(self.sent)}"

    def links(self) -> dict[str, str]:
        """Each recipient's last link secret."""
        found = {}
        for to, data in self.sent:
            body = email.message_from_bytes(data, policy=email.policy.default).get_body()
            assert body is not None
            (url,) = re.findall(r"http://\S+", str(body.get_content()))
            found[to] = parse_qs(urlsplit(url).query)["s"][0]
        return found


def _started(world: MemoryWorld, approvers: tuple[str, ...] = (ANA, BEN, CY)) -> str:
    plan = LinkPlan.fresh(world.policy(approvers), LOCAL_TASK_TOKEN, mint=LinkMint(world.mac_key), mail=True)
    started = world.start(approval=plan, window=timedelta(days=3))
    assert started.approval is not None and plan.mailed == frozenset(a for a in approvers if "@" in a)
    # the printed one went out with the record; the e-mail ones wait for queue_requests
    assert started.approval.notified == tuple(a for a in approvers if "@" not in a)
    return started.approval.approval_id


def _deliver(world: MemoryWorld, bag: Mailbag, mint: LinkMint | None = None) -> DeliveryReport:
    rt = world.runtime(transport=bag, mint=mint or LinkMint(world.mac_key))
    return deliver(rt, Deliver(link_base=lambda _: BASE))


def test_each_request_is_queued_once_and_sent_once_with_a_link_that_opens_as_its_approver(world: MemoryWorld) -> None:
    approval_id = _started(world)
    assert queue_requests(world.store, world.approvals, approval_id, world.clock()) == [ANA, BEN]
    assert queue_requests(world.store, world.approvals, approval_id, world.clock()) == []  # a retry queues nothing
    assert world.approval(approval_id).notified == (CY, ANA, BEN)
    bag = Mailbag()
    assert [m.approver for m in _deliver(world, bag).sent] == [ANA, BEN]
    assert _deliver(world, bag).sent == [] and len(bag.sent) == 2
    record = world.approval(approval_id)
    for who, secret in bag.links().items():
        assert record.approver_for(secret) == who
        stored = [m.model_dump_json() for m in world.store.outbox_messages()] + [
            e.model_dump_json() for e in world.store.audit_events()
        ]
        assert not any(secret in text for text in stored)  # rebuilt at send, kept nowhere
    sent = [e.detail["approver"] for e in world.store.audit_events() if e.event_type == "approval_mail_sent"]
    assert sent == [ANA, BEN]


@pytest.mark.parametrize("case", ["relinked", "voted", "expired"])
def test_every_send_asks_the_one_rule_after_its_claim(world: MemoryWorld, case: str) -> None:
    approval_id = _started(world)
    queue_requests(world.store, world.approvals, approval_id, world.clock())
    if case == "relinked":
        done = relink(world.ports(mint=LinkMint(world.mac_key)),
                      Relink(approval_id, " Ben@Example.com", BASE, outbox=True))  # fmt: skip
        assert done.queued and world.notifier.messages == []  # the new link waits in the outbox, in one write
    elif case == "voted":
        decision = Decision(approved=True, reviewed_hash=world.approval(approval_id).proposal_hash, approver=BEN,
                            reason="", decided_at=utc_iso(world.clock()))  # fmt: skip
        world.approvals.record_approval_vote(approval_id, Vote(decision=decision), now=world.clock())
    else:
        world.clock.advance(days=3)
    report = _deliver(world, Mailbag())
    void = {m.approver: m.last_error for m in report.void}
    if case == "expired":
        assert set(void) == {ANA, BEN} and report.sent == []
    elif case == "voted":
        # one approval was enough: ben's vote decided it, so nobody needs a request any more
        assert set(void) == {ANA, BEN} and "decided" in void[ANA] and report.sent == []
    else:
        assert "relink" in void[BEN] and sorted(m.approver for m in report.sent) == [ANA, BEN]


def test_a_sender_that_dies_after_the_claim_holds_it_until_the_lease_passes(
    world: MemoryWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    approval_id = _started(world, (ANA,))
    queue_requests(world.store, world.approvals, approval_id, world.clock())

    def die(name: str) -> None:
        if name == "after_approval_mail_claim":
            raise SystemExit("killed")

    monkeypatch.setattr(faults, "point", die)
    bag = Mailbag()
    with pytest.raises(SystemExit):
        _deliver(world, bag)
    monkeypatch.undo()
    world.clock.advance(minutes=1, seconds=59)
    assert [m.approver for m in _deliver(world, bag).pending] == [ANA] and bag.sent == []
    world.clock.advance(seconds=1)
    report = _deliver(world, bag)
    assert [m.attempts for m in report.sent] == [2] and len(bag.sent) == 1


def test_an_unreachable_server_counts_no_attempt_and_a_refusal_for_good_fails_it(world: MemoryWorld) -> None:
    approval_id = _started(world, (ANA,))
    queue_requests(world.store, world.approvals, approval_id, world.clock())
    down = _deliver(world, Mailbag(fail=DeliveryError("down", permanent=False, unreachable=True)))
    assert [m.attempts for m in down.pending] == [0]
    refused = _deliver(world, Mailbag(fail=DeliveryError("550 no such user", permanent=True)))
    assert [m.status for m in refused.failed] == ["failed"] and "550" in refused.failed[0].last_error
    assert _deliver(world, Mailbag()).sent == []  # failed stays failed


def test_a_link_the_key_cannot_rebuild_is_never_sent(world: MemoryWorld) -> None:
    approval_id = _started(world, (ANA,))
    queue_requests(world.store, world.approvals, approval_id, world.clock())
    other = MemoryWorld().mac_key  # another key: a data dir restored without its key file
    report = _deliver(world, Mailbag(), LinkMint(other))
    assert [m.approver for m in report.failed] == [ANA] and "relink" in report.failed[0].last_error
