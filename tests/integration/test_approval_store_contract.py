"""One contract for every ApprovalStore: SQLite, DynamoDB (on moto) and the in-memory fake.

The conditions are the point: an approval is created once, a vote lands only on a pending, unexpired
approval and once per approver, a reject or the quorum decides it, and expiring never overrides a decision
unless asked to from that status. A failed condition writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.local.sqlite_approvals import SqliteApprovalStore
from production_orchestrator.domain.approvals import ApprovalRecord, ApproverLink, Vote, hash_link_secret
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
    return ApprovalRecord(
        approval_id=f"appr-{n:032x}",
        checkpoint_id=f"ckpt-{checkpoint:032x}",
        proposal_hash=HASH,
        created_at=utc_iso(NOW),
        expires_at=utc_iso(NOW + timedelta(hours=1)),
        task_token=f"token-{n}",
        approvers=tuple(
            ApproverLink(approver=f"{a}@example.com", secret_hash=hash_link_secret(a * 40)) for a in ("ana", "ben")
        ),
        quorum=quorum,
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


def test_a_reject_decides_at_once(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(1, quorum=2))
    rejected = approvals.record_approval_vote(f"appr-{1:032x}", _vote("ben", approved=False, reason="no"), now=NOW)
    assert rejected.status == "decided" and rejected.decision is not None and not rejected.decision.approved


def test_no_vote_after_the_window_or_on_an_unknown_approval(approvals: ApprovalStore) -> None:
    record = _record(1)
    approvals.create_approval(record)
    with pytest.raises(ApprovalExpiredError):
        approvals.record_approval_vote(record.approval_id, _vote("ana"), now=NOW + timedelta(hours=1))
    assert approvals.get_approval(record.approval_id) == record
    with pytest.raises(NotFoundError):
        approvals.record_approval_vote(f"appr-{5:032x}", _vote("ana"), now=NOW)


def test_expiry_closes_pending_but_never_overrides_a_decision(approvals: ApprovalStore) -> None:
    approvals.create_approval(_record(1))
    expired = approvals.expire_approval(f"appr-{1:032x}", now=NOW, superseded_by=f"appr-{2:032x}")
    assert expired.status == "expired" and expired.superseded_by == f"appr-{2:032x}" and expired.closed_at
    assert approvals.expire_approval(f"appr-{1:032x}", now=NOW + timedelta(minutes=1)) == expired
    with pytest.raises(ApprovalExpiredError):
        approvals.record_approval_vote(f"appr-{1:032x}", _vote("ana"), now=NOW)
    approvals.create_approval(_record(3))
    decided = approvals.record_approval_vote(f"appr-{3:032x}", _vote("ana"), now=NOW)
    with pytest.raises(DecisionAlreadyClaimedError):
        approvals.expire_approval(f"appr-{3:032x}", now=NOW)
    assert approvals.get_approval(f"appr-{3:032x}") == decided
    closed = approvals.expire_approval(f"appr-{3:032x}", now=NOW, from_status="decided")
    assert closed.status == "expired" and closed.decision == decided.decision
