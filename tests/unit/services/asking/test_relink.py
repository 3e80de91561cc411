"""relink: one approver gets a new link, their old one stops at once, others keep theirs; audited without the
secret; a closed, expired or unknown approval, or someone it does not ask, is refused with nothing written."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from production_orchestrator.domain.approval.approvals import Vote
from production_orchestrator.domain.errors import ApprovalActionRefusedError
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.asking.relink import Relink, relink
from tests.support.memory_world import MemoryWorld, Requested

BASE = "https://approvals.example.com/approve"


def _relink(world: MemoryWorld, made: Requested, approver: str) -> str:
    world.notifier.messages.clear()
    done = relink(world.ports(), Relink(approval_id=made.approval_id, approver=approver, link_base_url=BASE))
    assert done.approval_id == made.approval_id
    (message,) = world.notifier.messages
    assert message.approver == done.approver
    return parse_qs(urlsplit(message.link).query)["s"][0]


def test_the_new_link_works_the_old_one_does_not_and_others_are_untouched(world: MemoryWorld) -> None:
    made = world.request(world.start(approval=None))
    new = _relink(world, made, " Ben@Example.COM")
    record = world.approval(made.approval_id)
    assert record.approver_for(new) == "ben@example.com"
    assert record.approver_for(made.secrets["ben@example.com"]) is None
    assert record.approver_for(made.secrets["ana@example.com"]) == "ana@example.com"
    event = world.store.audit_events()[-1]
    assert event.event_type == "approval_relinked"
    assert event.detail == {"approval_id": made.approval_id, "approver": "ben@example.com"}
    assert new not in record.model_dump_json() and all(
        new not in e.model_dump_json() for e in world.store.audit_events()
    )
    again = _relink(world, made, "ben@example.com")  # each relink revokes the one before
    assert world.approval(made.approval_id).approver_for(new) is None
    assert world.approval(made.approval_id).approver_for(again) == "ben@example.com"


@pytest.mark.parametrize("case", ["unknown", "not_asked", "closed", "expired"])
def test_refusals_write_nothing(world: MemoryWorld, case: str) -> None:
    started = world.start(approval=None)
    made = world.request(started)
    approval_id, approver, now = made.approval_id, "ben@example.com", world.clock()
    if case == "unknown":
        approval_id = "appr-" + "0" * 32
    elif case == "not_asked":
        approver = "mallory@example.com"
    elif case == "closed":
        decision = Decision(approved=False, reviewed_hash=started.checkpoint.proposal_hash, approver="ana@example.com",
                            reason="no", decided_at=utc_iso(now))  # fmt: skip
        world.approvals.record_approval_vote(made.approval_id, Vote(decision=decision), now=now)
    else:
        now = world.clock.advance(days=2)
    before = world.snapshot()
    world.notifier.messages.clear()
    with pytest.raises(ApprovalActionRefusedError) as refused:
        relink(world.ports(clock=lambda: now), Relink(approval_id=approval_id, approver=approver, link_base_url=BASE))
    expected = {"unknown": "NOT_FOUND", "not_asked": "NOT_AN_APPROVER", "closed": "APPROVAL_CLOSED"}
    assert refused.value.code == expected.get(case, "EXPIRED")
    assert world.snapshot() == before and world.notifier.messages == []
