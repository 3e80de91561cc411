"""One contract for ``ShopStore.change_approval`` on SQLite, DynamoDB (moto server) and the in-memory fake: the
approval's transition and its audit event commit together or not at all; a refused or empty change writes
nothing; racing relinks each land with their own event (none lost, none without its event)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.local.sqlite_approvals import SqliteApprovalStore
from production_orchestrator.adapters.local.sqlite_store import SqliteShopStore
from production_orchestrator.domain.approval.approvals import ApprovalRecord, ApproverLink, hash_link_secret
from production_orchestrator.domain.approval.policy import ApprovalPolicy
from production_orchestrator.domain.errors import ApprovalExpiredError, IntegrityError
from production_orchestrator.domain.messages.approval_mail import approval_request
from production_orchestrator.domain.records import audit_event, utc_iso
from tests.support.fakes import InMemoryApprovalStore, InMemoryShopStore

NOW = datetime(2026, 8, 12, 8, 0, tzinfo=UTC)
PEOPLE = ("ana@example.com", "ben@example.com")


@pytest.fixture(params=["sqlite", "dynamodb", "memory"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, str]]:
    if request.param == "memory":
        approvals = InMemoryApprovalStore()
        yield InMemoryShopStore(approvals=approvals), approvals, "memory"
    elif request.param == "sqlite":
        yield SqliteShopStore(tmp_path / "shop.sqlite3"), SqliteApprovalStore(tmp_path / "shop.sqlite3"), "sqlite"
    else:
        aws = request.getfixturevalue("aws")
        yield DynamoShopStore(aws.dynamodb, aws.table), DynamoApprovalStore(aws.dynamodb, aws.table), "dynamodb"


def _another(store: Any) -> Any:
    """What another process would hold: its own connection (SQLite) or its own chain-head cache (DynamoDB)."""
    if isinstance(store, SqliteShopStore):
        return SqliteShopStore(store._path)
    if isinstance(store, DynamoShopStore):
        return DynamoShopStore(store._table.client, store._table.name)
    return store


def _created(approvals: Any) -> ApprovalRecord:
    record = ApprovalRecord(
        approval_id=f"appr-{1:032x}",
        checkpoint_id=f"ckpt-{1:032x}",
        proposal_hash="a" * 64,
        created_at=utc_iso(NOW),
        expires_at=utc_iso(NOW + timedelta(hours=1)),
        task_token="token",
        policy=ApprovalPolicy(approvers=PEOPLE),
        links=tuple(ApproverLink(approver=a, secret_hash=hash_link_secret(a[:3] * 40)) for a in PEOPLE),
    )
    approvals.create_approval(record)
    return record


def _relinked(n: int) -> Any:
    return lambda before: before.relinked(PEOPLE[1], hash_link_secret(f"{n:043d}"), NOW, f"{n:032x}")


def _event(after: ApprovalRecord) -> Any:
    return audit_event("approval_relinked", NOW, approval_id=after.approval_id, approver=PEOPLE[1])


def test_the_change_and_its_event_land_together(stores: tuple[Any, Any, str]) -> None:
    store, approvals, _ = stores
    record = _created(approvals)
    after, changed = store.change_approval(record.approval_id, _relinked(1), _event)
    assert changed and approvals.get_approval(record.approval_id) == after
    assert after.approver_for(f"{1:043d}") == PEOPLE[1] and after.link_of(PEOPLE[1]).nonce == f"{1:032x}"
    assert [e.event_type for e in store.audit_events()] == ["approval_relinked"]
    again, changed = store.change_approval(record.approval_id, lambda r: r, _event)  # nothing to change
    assert not changed and again == after and len(store.audit_events()) == 1


def test_a_refused_change_writes_neither_the_record_nor_the_event(stores: tuple[Any, Any, str]) -> None:
    store, approvals, _ = stores
    record = _created(approvals)
    late = NOW + timedelta(hours=2)
    with pytest.raises(ApprovalExpiredError):
        store.change_approval(
            record.approval_id, lambda r: r.relinked(PEOPLE[1], hash_link_secret("x" * 43), late), _event
        )
    assert approvals.get_approval(record.approval_id) == record and store.audit_events() == []


def test_racing_relinks_each_land_with_their_own_event(stores: tuple[Any, Any, str]) -> None:
    store, approvals, _ = stores
    record = _created(approvals)
    results: list[ApprovalRecord] = []

    def one(n: int) -> None:
        results.append(_another(store).change_approval(record.approval_id, _relinked(n), _event)[0])

    threads = [threading.Thread(target=one, args=(n,)) for n in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = approvals.get_approval(record.approval_id)
    assert final is not None and len(results) == 4
    assert [e.event_type for e in store.audit_events()] == ["approval_relinked"] * 4
    assert sum(final.approver_for(f"{n:043d}") == PEOPLE[1] for n in range(1, 5)) == 1  # the last one wins


def test_approval_mail_goes_with_the_change_locally_and_is_refused_on_the_table(stores: tuple[Any, Any, str]) -> None:
    store, approvals, kind = stores
    record = _created(approvals)
    mail = approval_request(record.approval_id, PEOPLE[1], f"{1:032x}", NOW)
    if kind == "dynamodb":
        with pytest.raises(IntegrityError):
            store.change_approval(record.approval_id, _relinked(1), _event, mail=[mail])
        assert approvals.get_approval(record.approval_id) == record and store.audit_events() == []
        return
    store.change_approval(record.approval_id, _relinked(1), _event, mail=[mail])
    store.change_approval(record.approval_id, _relinked(2), _event, mail=[mail])  # the same key: not twice
    assert store.outbox_messages() == [mail]
