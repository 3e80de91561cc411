"""One contract for every ApprovalStore: SQLite, DynamoDB (on moto) and the in-memory fake.

The conditions are the point: an approval is created once, a vote lands only on a pending, unexpired
approval and once per approver, a reject closes it as rejected and the quorum as decided, expiring never
overrides a decision the workflow was told about, and a wake-up is recorded once. A refused change writes
nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.local.sqlite_approvals import SqliteApprovalStore
from production_orchestrator.domain.approval.approvals import ApprovalRecord, ApproverLink, Vote, hash_link_secret
from production_orchestrator.domain.approval.policy import ApprovalPolicy
from production_orchestrator.domain.errors import (
    ApprovalExpiredError,
    DecisionAlreadyClaimedError,
    IntegrityError,
    NotFoundError,
)
from production_orchestrator.domain.ports import ApprovalStore
from production_orchestrator.domain.records import Decision, utc_iso
from tests.support.fakes import InMemoryApprovalStore

NOW = datetime(2026, 8, 12, 8, 0, tzinfo=UTC)
HASH = "a" * 64


@pytest.fixture(params=["sqlite", "dynamodb", "memory"])
def approvals(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ApprovalStore]:
    if request.param == "memory":
        yield InMemoryApprovalStore()
    elif request.param == "sqlite":
        local = SqliteApprovalStore(tmp_path / "shop.sqlite3")
        yield local
        local.close()
    else:
        aws = request.getfixturevalue("aws")
        yield DynamoApprovalStore(aws.dynamodb, aws.table)


def _record(n: int, *, checkpoint: int = 1, quorum: int = 1) -> ApprovalRecord:
    people = ("ana@example.com", "ben@example.com")
    return ApprovalRecord(
        approval_id=f"appr-{n:032x}",
        checkpoint_id=f"ckpt-{checkpoint:032x}",
        proposal_hash=HASH,
        created_at=utc_iso(NOW),
        expires_at=utc_iso(NOW + timedelta(hours=1)),
        task_token=f"token-{n}",
        policy=ApprovalPolicy(approvers=people, quorum=quorum, quorum_above=0 if quorum > 1 else None),
        links=tuple(ApproverLink(approver=a, secret_hash=hash_link_secret(a[:3] * 40)) for a in people),
        required=quorum,
    )


def _vote(who: str, approved: bool = True, reason: str = "") -> Vote:
    decision = Decision(
        approved=approved,
        reviewed_hash=HASH,
        approver=f"{who}@example.com",
        reason=reason,
        decided_at=utc_iso(NOW + timedelta(minutes=5)),
    )
    return Vote(decision=decision)


def test_an_approval_is_created_once_and_read_back(approvals: ApprovalStore) -> None:
    record = _record(1)
    approvals.create_approval(record)
    with pytest.raises(IntegrityError):
        approvals.create_approval(record.model_copy(update={"task_token": "other"}))
    assert approvals.get_approval(record.approval_id) == record
    assert approvals.get_approval(f"appr-{9:032x}") is None
    assert approvals.get_approval("not an id") is None


def test_approvals_of_a_checkpoint(approvals: ApprovalStore) -> None:
    for n, checkpoint in ((3, 1), (1, 2), (2, 1)):
        approvals.create_approval(_record(n, checkpoint=checkpoint))
    # The port promises which, not in what order: SQLite and the fake keep creation order, DynamoDB returns
    # them by approval id (its sort key). No AWS path depends on the order.
    assert {a.approval_id for a in approvals.approvals_for(f"ckpt-{1:032x}")} == {
        f"appr-{3:032x}",
        f"appr-{2:032x}",
    }
    assert approvals.approvals_for(f"ckpt-{7:032x}") == []


def test_one_approve_decides_a_quorum_of_one_and_nothing_more_lands(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(1))
    decided = approvals.record_approval_vote(f"appr-{1:032x}", _vote("ana"), now=NOW)
    assert decided.status == "decided" and decided.decision == _vote("ana").decision
    with pytest.raises(DecisionAlreadyClaimedError):
        approvals.record_approval_vote(f"appr-{1:032x}", _vote("ben", approved=False, reason="no"), now=NOW)
    assert approvals.get_approval(f"appr-{1:032x}") == decided


def test_a_quorum_counts_distinct_approvers(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(1, quorum=2))
    first = approvals.record_approval_vote(f"appr-{1:032x}", _vote("ana"), now=NOW)
    assert first.status == "pending" and first.approving_votes() == 1
    with pytest.raises(DecisionAlreadyClaimedError):
        approvals.record_approval_vote(f"appr-{1:032x}", _vote("ana"), now=NOW)
    assert approvals.get_approval(f"appr-{1:032x}") == first
    second = approvals.record_approval_vote(f"appr-{1:032x}", _vote("ben"), now=NOW)
    assert second.status == "decided" and second.approving_votes() == 2


def test_a_reject_closes_it_at_once(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(1, quorum=2))
    rejected = approvals.record_approval_vote(f"appr-{1:032x}", _vote("ben", approved=False, reason="no"), now=NOW)
    assert rejected.status == "rejected" and rejected.decision is not None and not rejected.decision.approved


def test_no_vote_after_the_window_or_on_an_unknown_approval(approvals: ApprovalStore) -> None:
    record = _record(1)
    approvals.create_approval(record)
    with pytest.raises(ApprovalExpiredError):
        approvals.record_approval_vote(record.approval_id, _vote("ana"), now=NOW + timedelta(hours=1))
    assert approvals.get_approval(record.approval_id) == record
    with pytest.raises(NotFoundError):
        approvals.record_approval_vote(f"appr-{5:032x}", _vote("ana"), now=NOW)


def test_expiry_closes_pending_approvals_and_with_the_workflow_every_decision_woken_or_not(
    approvals: ApprovalStore,
) -> None:
    # Whether a resume claimed a decision is the expire service's check (services/asking/expire.py); the store
    # closes what it is told to: a woken decision too (a resend that heard TaskTimedOut may have judged it woken).
    approvals.create_approval(_record(1))
    expired = approvals.expire_approval(f"appr-{1:032x}", now=NOW)
    assert expired.status == "expired" and expired.closed_at
    assert approvals.expire_approval(f"appr-{1:032x}", now=NOW + timedelta(minutes=1)) == expired
    with pytest.raises(ApprovalExpiredError):
        approvals.record_approval_vote(f"appr-{1:032x}", _vote("ana"), now=NOW)
    approvals.create_approval(_record(3))
    decided = approvals.record_approval_vote(f"appr-{3:032x}", _vote("ana"), now=NOW)
    with pytest.raises(DecisionAlreadyClaimedError):
        approvals.expire_approval(f"appr-{3:032x}", now=NOW)
    assert approvals.get_approval(f"appr-{3:032x}") == decided
    closed = approvals.expire_approval(f"appr-{3:032x}", now=NOW, include_closed=True)  # never woken
    assert closed.status == "expired" and closed.decision == decided.decision
    approvals.create_approval(_record(4))
    approvals.record_approval_vote(f"appr-{4:032x}", _vote("ana"), now=NOW)
    woken = approvals.record_wake(f"appr-{4:032x}", now=NOW, confirmed=True)
    with pytest.raises(DecisionAlreadyClaimedError):  # without the workflow's word, a woken decision stands
        approvals.expire_approval(f"appr-{4:032x}", now=NOW)
    assert approvals.get_approval(f"appr-{4:032x}") == woken
    ended = approvals.expire_approval(f"appr-{4:032x}", now=NOW, include_closed=True)
    assert ended.status == "expired" and ended.decision == woken.decision and ended.woken_at == woken.woken_at


def test_a_wake_up_is_counted_then_recorded_once(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(1))
    with pytest.raises(DecisionAlreadyClaimedError):
        approvals.record_wake(f"appr-{1:032x}", now=NOW, confirmed=True)  # nothing decided: nothing to wake
    approvals.record_approval_vote(f"appr-{1:032x}", _vote("ana"), now=NOW)
    tried = approvals.record_wake(f"appr-{1:032x}", now=NOW, confirmed=False)
    assert tried.wake_tries == 1 and not tried.woken_at
    woken = approvals.record_wake(f"appr-{1:032x}", now=NOW + timedelta(minutes=1), confirmed=True)
    assert woken.woken_at == utc_iso(NOW + timedelta(minutes=1))
    assert approvals.record_wake(f"appr-{1:032x}", now=NOW + timedelta(minutes=2), confirmed=True) == woken


def test_a_delivery_binds_the_task_and_records_the_link_sent(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(1))
    bound = approvals.record_delivery(f"appr-{1:032x}", "token-new")
    assert bound.task_token == "token-new" and bound.notified == ()
    sent = approvals.record_delivery(f"appr-{1:032x}", "token-new", "ben@example.com", hash_link_secret("z" * 43))
    assert sent.notified == ("ben@example.com",) and sent.approver_for("z" * 43) == "ben@example.com"
    approvals.record_approval_vote(f"appr-{1:032x}", _vote("ana"), now=NOW)
    with pytest.raises(DecisionAlreadyClaimedError):
        approvals.record_delivery(f"appr-{1:032x}", "token-later")


def test_every_approval_of_the_shop_is_listed(approvals: ApprovalStore) -> None:
    for n in (1, 2):
        approvals.create_approval(_record(n, checkpoint=n))
    assert {a.approval_id for a in approvals.list_approvals()} == {f"appr-{1:032x}", f"appr-{2:032x}"}


def test_a_reminder_is_held_by_one_sender_then_marked_sent_once(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(40))
    aid, key, lease = _record(40).approval_id, "halfway|ana@example.com", timedelta(minutes=2)
    first = approvals.record_reminder_claim(aid, key, "a" * 32, now=NOW, lease=lease)
    second = approvals.record_reminder_claim(aid, key, "b" * 32, now=NOW, lease=lease)
    assert first.reminder(key).claim == "a" * 32 and second.reminder(key).claim == "a" * 32  # type: ignore[union-attr]
    assert approvals.record_reminder_sent(aid, key, "b" * 32, now=NOW).reminder(key).sent_at == ""  # type: ignore[union-attr]
    sent = approvals.record_reminder_sent(aid, key, "a" * 32, now=NOW)
    assert sent.reminder(key).sent_at == utc_iso(NOW)  # type: ignore[union-attr]
    later = approvals.record_reminder_claim(aid, key, "c" * 32, now=NOW + timedelta(minutes=10), lease=lease)
    assert later.reminder(key).claim == "a" * 32  # type: ignore[union-attr]  # sent: nobody claims it again
    assert approvals.get_approval(aid) == later


def test_backups_join_once_and_relink_replaces_one_link(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(41))
    aid = _record(41).approval_id
    cy = (ApproverLink(approver="cy@example.com", secret_hash=hash_link_secret("c" * 43)),)
    joined = approvals.record_escalation(aid, cy, now=NOW)
    assert joined.policy.approvers == ("ana@example.com", "ben@example.com", "cy@example.com")
    assert joined.approver_for("c" * 43) == "cy@example.com" and joined.required == 1
    dan = (ApproverLink(approver="dan@example.com", secret_hash=hash_link_secret("d" * 43)),)
    assert approvals.record_escalation(aid, dan, now=NOW) == joined  # once
    moved = approvals.record_relink(aid, "ben@example.com", hash_link_secret("n" * 43), now=NOW)
    assert moved.approver_for("n" * 43) == "ben@example.com" and moved.approver_for("ben" * 40) is None
    approvals.record_approval_vote(aid, _vote("ana", approved=False, reason="no"), now=NOW)
    with pytest.raises(DecisionAlreadyClaimedError):
        approvals.record_relink(aid, "ben@example.com", hash_link_secret("m" * 43), now=NOW)
    with pytest.raises(ApprovalExpiredError):
        approvals.create_approval(_record(42))
        approvals.record_relink(_record(42).approval_id, "ana@example.com", HASH, now=NOW + timedelta(hours=2))
