"""One contract for every ShopStore: the same tests run against SQLite, DynamoDB (on moto) and the in-memory
fake the unit tests use.

If the stores drift apart (a condition one enforces and the other does not, an order one keeps and the
other loses), a test here fails for one parameter only; the fake passing it is what lets unit tests trust it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from production_orchestrator.adapters.aws.dynamo_table import item_size
from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.local.sqlite_approvals import SqliteApprovalStore
from production_orchestrator.adapters.local.sqlite_store import SqliteShopStore
from production_orchestrator.domain.approval.approvals import ApprovalRecord, ApproverLink, hash_link_secret
from production_orchestrator.domain.approval.policy import ApprovalPolicy
from production_orchestrator.domain.errors import (
    DecisionAlreadyClaimedError,
    HeldRequestCode,
    HeldRequestError,
    IntegrityError,
    RequestClaimTakenError,
    ShopError,
    StaleStateError,
)
from production_orchestrator.domain.intake.held import PossibleDuplicate
from production_orchestrator.domain.intake.request_key import RunRequest
from production_orchestrator.domain.messages.outbox import OutboxMessage, queue_messages
from production_orchestrator.domain.planning.proposal import ProposalContent
from production_orchestrator.domain.planning.propose import apply_proposal, build_proposal
from production_orchestrator.domain.ports import ApprovalStore, ShopStore
from production_orchestrator.domain.records import AuditEvent, Decision, DecisionRecord
from production_orchestrator.domain.scenarios import TODAY, scenario
from production_orchestrator.domain.shop.model import Order, ShopState
from tests.support.fakes import InMemoryApprovalStore, InMemoryShopStore
from tests.support.generated_shops import PLANNING_DAY as GENERATED_DAY
from tests.support.generated_shops import generate

RUSH = scenario("rush-order")


@pytest.fixture(params=["sqlite", "dynamodb", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ShopStore]:
    if request.param == "memory":
        yield InMemoryShopStore()
    elif request.param == "sqlite":
        local = SqliteShopStore(tmp_path / "shop.sqlite3")
        yield local
        local.close()
    else:
        aws = request.getfixturevalue("aws")
        yield DynamoShopStore(aws.dynamodb, aws.table)


def _event(kind: str, **detail: object) -> AuditEvent:
    return AuditEvent(event_type=kind, at="2026-08-12T08:00:00Z", detail=dict(detail))


def _types(store: ShopStore) -> list[str]:
    return [e.event_type for e in store.audit_events()]


def _target() -> Order:
    return RUSH.target_order()


def _planned(store: ShopStore) -> tuple[ShopState, ProposalContent, str]:
    store.seed(RUSH.state.with_order(_target()), _event("shop_seeded"))
    state = store.load_state()
    assert state is not None
    proposal = build_proposal(state, RUSH.target_order_id, TODAY)
    return state, proposal, proposal.proposal_hash()


def _decision(checkpoint_id: str, proposal_hash: str) -> DecisionRecord:
    decision = Decision(approved=True, reviewed_hash=proposal_hash, approver="ana", decided_at="2026-08-12T09:00:00Z")
    return DecisionRecord(checkpoint_id=checkpoint_id, decision=decision, resume_pid=42, claimed_at=decision.decided_at)


def test_seed_once_and_only_for_one_scenario(store: ShopStore) -> None:
    assert store.load_state() is None
    assert store.seed(RUSH.state, _event("shop_seeded")) == RUSH.state
    assert store.seed(RUSH.state, _event("shop_seeded")) == RUSH.state
    assert _types(store) == ["shop_seeded"]
    with pytest.raises(ShopError):
        store.seed(scenario("team-jerseys").state, _event("shop_seeded"))
    assert store.load_state() == RUSH.state


def test_writes_need_a_seeded_shop(store: ShopStore) -> None:
    with pytest.raises(ShopError):
        store.set_inventory("THREAD-RED-40", 1, _event("inventory_set"))
    assert store.audit_events() == []


def test_inventory_count_changes_digest_not_revision(store: ShopStore) -> None:
    store.seed(RUSH.state, _event("shop_seeded"))
    updated = store.set_inventory("THREAD-RED-40", 650, _event("inventory_set"))
    assert updated.revision == 1 and updated.material("THREAD-RED-40").on_hand == 650  # type: ignore[union-attr]
    assert updated.digest() != RUSH.state.digest()
    assert store.load_state() == updated
    with pytest.raises(ValueError):
        store.set_inventory("red thread", 1, _event("inventory_set"))
    assert _types(store) == ["shop_seeded", "inventory_set"]


def _key(checkpoint_id: str, generation: int, request: str = "a" * 64, message: str = "") -> RunRequest:
    return RunRequest(checkpoint_id=checkpoint_id, request_hash=request, generation=generation, message_key=message)


def test_a_request_key_is_written_with_its_checkpoint_once(store: ShopStore) -> None:
    """Two starts of one request that counted the same runs: the second run writes nothing at all."""
    assert store.runs_of_request("a" * 64) == []
    first, second = f"ckpt-{1:032x}", f"ckpt-{2:032x}"
    store.put_checkpoint(first, "{}", _event("approval_requested"), None, _key(first, 0, message="d" * 64))
    with pytest.raises(RequestClaimTakenError):
        store.put_checkpoint(second, "{}", _event("approval_requested"), None, _key(second, 0, message="d" * 64))
    assert store.get_checkpoint(second) is None and _types(store) == ["approval_requested"]
    assert store.runs_of_request("a" * 64) == [_key(first, 0, message="d" * 64)]
    assert store.runs_of_request("b" * 64) == []
    store.put_checkpoint(second, "{}", _event("approval_requested"), None, _key(second, 1, message="d" * 64))
    assert [k.checkpoint_id for k in store.runs_of_request("a" * 64)] == [first, second]
    third = f"ckpt-{3:032x}"
    store.put_checkpoint(third, "{}", _event("approval_requested"), None, _key(third, 0, "c" * 64, "d" * 64))
    assert {k.checkpoint_id for k in store.runs_of_message("d" * 64)} == {first, second, third}
    assert store.runs_of_message("e" * 64) == [] and store.runs_of_message("") == []


def _hold(held_id: str = "held-" + "1" * 16) -> PossibleDuplicate:
    return PossibleDuplicate(
        held_id=held_id,
        request_hash="a" * 64,
        sender="lena@harbour-books.example",
        text="400 navy tote bags by Friday",
        duplicate_of=f"ckpt-{1:032x}",
        created_at="2026-08-12T08:00:00Z",
    )


def test_a_held_request_is_stored_once_and_closed_once(store: ShopStore) -> None:
    held = _hold()
    assert store.hold_request(held, _event("request_held")) == held
    assert store.hold_request(held.model_copy(update={"text": "other"}), _event("request_held")) == held
    assert _types(store) == ["request_held"]
    later = _hold("held-" + "2" * 16).model_copy(update={"created_at": "2026-08-12T09:00:00Z"})
    store.hold_request(later, _event("request_held"))
    assert store.held_requests() == [held, later] and store.get_held_request(held.held_id) == held
    dropped = held.model_copy(update={"status": "dropped", "closed_by": "olga"})
    store.close_held_request(dropped, _event("request_dropped"))
    assert store.get_held_request(held.held_id) == dropped
    with pytest.raises(HeldRequestError) as again:
        store.close_held_request(held.model_copy(update={"status": "started"}), _event("request_started"))
    assert again.value.code is HeldRequestCode.REQUEST_NOT_HELD
    with pytest.raises(HeldRequestError) as unknown:
        store.close_held_request(_hold("held-" + "3" * 16), _event("request_dropped"))
    assert unknown.value.code is HeldRequestCode.NOT_FOUND
    assert store.get_held_request(held.held_id) == dropped
    assert _types(store) == ["request_held", "request_held", "request_dropped"]


def test_proposals_are_immutable(store: ShopStore) -> None:
    _, proposal, proposal_hash = _planned(store)
    data = proposal.to_bytes()
    assert store.get_proposal(proposal_hash) is None
    store.put_proposal(proposal_hash, data)
    store.put_proposal(proposal_hash, data)
    with pytest.raises(IntegrityError):
        store.put_proposal(proposal_hash, data + b" ")
    assert store.get_proposal(proposal_hash) == data


def test_checkpoints_are_created_once_and_listed_oldest_first(store: ShopStore) -> None:
    ids = [f"ckpt-{i:032x}" for i in (9, 3, 5)]
    for checkpoint_id in ids:
        store.put_checkpoint(checkpoint_id, f'{{"id": "{checkpoint_id}"}}', _event("approval_requested"))
    with pytest.raises(IntegrityError):
        store.put_checkpoint(ids[0], "{}", _event("approval_requested"))
    assert store.get_checkpoint(ids[1]) == f'{{"id": "{ids[1]}"}}'
    assert store.get_checkpoint("ckpt-" + "f" * 32) is None
    assert store.list_checkpoints() == [f'{{"id": "{c}"}}' for c in ids]
    assert _types(store) == ["approval_requested"] * 3


def test_a_decision_is_claimed_exactly_once(store: ShopStore) -> None:
    checkpoint_id = "ckpt-" + "1" * 32
    record = _decision(checkpoint_id, "a" * 64)
    assert store.get_decision(checkpoint_id) is None
    store.claim_decision(record, _event("decision_recorded"))
    with pytest.raises(DecisionAlreadyClaimedError):
        store.claim_decision(_decision(checkpoint_id, "b" * 64), _event("decision_recorded"))
    assert store.get_decision(checkpoint_id) == record
    assert _types(store) == ["decision_recorded"]


NOW = datetime(2026, 8, 12, 9, 0, tzinfo=UTC)


def _messages(proposal: ProposalContent, proposal_hash: str, checkpoint_id: str) -> tuple[OutboxMessage, ...]:
    return queue_messages(proposal, proposal_hash, checkpoint_id, NOW)


def test_a_plan_applies_once_and_queues_its_messages_once(store: ShopStore) -> None:
    state, proposal, proposal_hash = _planned(store)
    new_state = apply_proposal(state, proposal)
    checkpoint_id = "ckpt-" + "2" * 32
    apply = {
        "proposal_hash": proposal_hash,
        "checkpoint_id": checkpoint_id,
        "new_state": new_state,
        "expected": (state.revision, state.digest()),
        "messages": _messages(proposal, proposal_hash, checkpoint_id),
    }
    assert store.application_count() == 0 and store.application_count(proposal_hash) == 0
    assert store.outbox_messages() == []
    assert store.apply_plan(**apply, event=_event("plan_applied")) is True  # type: ignore[arg-type]
    queued = store.outbox_messages()
    # A replay (the same apply again, a retry, a second resume) writes nothing, messages included.
    assert store.apply_plan(**apply, event=_event("plan_applied")) is False  # type: ignore[arg-type]
    assert store.load_state() == new_state and new_state.revision == 2
    assert store.application_count() == 1 and store.application_count(proposal_hash) == 1
    assert store.application_count("f" * 64) == 0
    assert _types(store).count("plan_applied") == 1
    # Exactly the proposal's drafts, in draft order, queued: kind, recipient, subject and body as approved.
    drafts = proposal.communication_drafts
    assert [(m.kind, m.to, m.subject, m.body) for m in queued] == [
        (d.audience, d.to, d.subject, d.body) for d in drafts
    ]
    assert [m.status for m in queued] == ["queued"] * len(drafts) == ["queued"] * 3
    assert [m.index for m in queued] == [0, 1, 2]
    assert store.outbox_messages() == queued == store.outbox_messages(proposal_hash)
    assert store.outbox_messages("f" * 64) == []


def test_messages_of_a_plan_that_never_applied_are_an_integrity_error(store: ShopStore) -> None:
    state, proposal, proposal_hash = _planned(store)
    first = apply_proposal(state, proposal)
    checkpoint_id = "ckpt-" + "5" * 32
    messages = _messages(proposal, proposal_hash, checkpoint_id)
    store.apply_plan(
        proposal_hash=proposal_hash,
        checkpoint_id=checkpoint_id,
        new_state=first,
        expected=(state.revision, state.digest()),
        event=_event("plan_applied"),
        messages=messages,
    )
    before = (store.load_state(), store.outbox_messages(), _types(store))
    # Another plan (hash) whose apply would queue message keys that exist already: refused, nothing written.
    with pytest.raises(IntegrityError):
        store.apply_plan(
            proposal_hash="e" * 64,
            checkpoint_id=checkpoint_id,
            new_state=first.model_copy(update={"revision": 3}),
            expected=(first.revision, first.digest()),
            event=_event("plan_applied"),
            messages=messages,
        )
    assert (store.load_state(), store.outbox_messages(), _types(store)) == before
    assert store.application_count("e" * 64) == 0


def test_an_outbox_message_moves_on_only_from_the_record_read(store: ShopStore) -> None:
    state, proposal, proposal_hash = _planned(store)
    checkpoint_id = "ckpt-" + "6" * 32
    store.apply_plan(
        proposal_hash=proposal_hash,
        checkpoint_id=checkpoint_id,
        new_state=apply_proposal(state, proposal),
        expected=(state.revision, state.digest()),
        event=_event("plan_applied"),
        messages=_messages(proposal, proposal_hash, checkpoint_id),
    )
    first = store.outbox_messages()[0]
    mine = first.claimed("a" * 32, NOW, timedelta(minutes=2))
    theirs = first.claimed("b" * 32, NOW, timedelta(minutes=2))
    assert store.replace_outbox_message(first, mine) is True
    assert store.replace_outbox_message(first, theirs) is False  # read before my claim: loses, writes nothing
    sent = mine.sent("smtp:Q1", NOW)
    assert store.replace_outbox_message(mine, sent, _event("message_sent")) is True
    assert store.replace_outbox_message(mine, sent, _event("message_sent")) is False
    assert store.outbox_messages()[0] == sent and sent.status == "sent" and sent.attempts == 1
    assert _types(store).count("message_sent") == 1
    with pytest.raises(IntegrityError):
        store.replace_outbox_message(sent, store.outbox_messages()[1])


def test_apply_on_a_moved_state_is_stale_and_writes_nothing(store: ShopStore) -> None:
    state, proposal, proposal_hash = _planned(store)
    moved = store.set_inventory("THREAD-RED-40", 650, _event("inventory_set"))
    events = _types(store)
    with pytest.raises(StaleStateError) as stale:
        store.apply_plan(
            proposal_hash=proposal_hash,
            checkpoint_id="ckpt-" + "3" * 32,
            new_state=apply_proposal(state, proposal),
            expected=(state.revision, state.digest()),
            event=_event("plan_applied"),
            messages=_messages(proposal, proposal_hash, "ckpt-" + "3" * 32),
        )
    assert stale.value.found == {"revision": moved.revision, "digest": moved.digest()}
    assert stale.value.expected == {"revision": state.revision, "digest": state.digest()}
    assert store.load_state() == moved
    assert store.application_count() == 0
    assert store.outbox_messages() == []
    assert _types(store) == events


def test_audit_trail_keeps_order(store: ShopStore) -> None:
    kinds = [f"event_{i}" for i in range(12)]
    for kind in kinds:
        store.append_audit(_event(kind, n=kind))
    events = store.audit_events()
    assert [e.event_type for e in events] == kinds
    assert events[3].detail == {"n": "event_3"}


def test_the_largest_benchmark_shop_round_trips_and_applies_once(
    store: ShopStore, request: pytest.FixtureRequest
) -> None:
    from production_orchestrator.domain.shop.file_format import read_shop

    state = read_shop(generate(50, 5_000))
    store.seed(state, _event("shop_seeded"))
    loaded = store.load_state()
    assert loaded is not None and loaded.digest() == state.digest()
    proposal = build_proposal(loaded, "URGENT", GENERATED_DAY)
    after = apply_proposal(loaded, proposal)
    apply = {
        "proposal_hash": proposal.proposal_hash(),
        "checkpoint_id": "ckpt-" + "5" * 32,
        "new_state": after,
        "expected": (state.revision, state.digest()),
        "messages": _messages(proposal, proposal.proposal_hash(), "ckpt-" + "5" * 32),
    }
    assert store.apply_plan(**apply, event=_event("plan_applied")) is True  # type: ignore[arg-type]
    assert store.apply_plan(**apply, event=_event("plan_applied")) is False  # type: ignore[arg-type]
    assert len(store.outbox_messages()) == len(proposal.communication_drafts)
    assert store.load_state().digest() == proposal.result_digest  # type: ignore[union-attr]
    if isinstance(store, DynamoShopStore):
        aws = request.getfixturevalue("aws")
        items = aws.dynamodb.scan(TableName=aws.table)["Items"]
        largest = max(item_size(item) for item in items)
        assert largest < 256 * 1024, largest  # far below DynamoDB's 400 KB


def test_replacing_the_shop_is_conditional(store: ShopStore) -> None:
    with pytest.raises(StaleStateError):
        store.replace_shop(RUSH.state, (1, "0" * 64), _event("shop_imported"))
    store.replace_shop(RUSH.state, None, _event("shop_imported"))
    with pytest.raises(StaleStateError):
        store.replace_shop(RUSH.state, None, _event("shop_imported"))
    moved = RUSH.state.with_inventory("THREAD-RED-40", 1)
    store.replace_shop(moved, (1, RUSH.state.digest()), _event("shop_imported"))
    assert store.load_state() == moved
    with pytest.raises(StaleStateError):
        store.replace_shop(RUSH.state, (1, RUSH.state.digest()), _event("shop_imported"))
    assert _types(store) == ["shop_imported", "shop_imported"]


@pytest.fixture(params=["sqlite", "dynamodb", "memory"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[ShopStore, ApprovalStore]]:
    """A shop store and the approval store its checkpoint writes the run's approval to (one database)."""
    if request.param == "memory":
        approvals = InMemoryApprovalStore()
        yield InMemoryShopStore(approvals=approvals), approvals
    elif request.param == "sqlite":
        yield SqliteShopStore(tmp_path / "shop.sqlite3"), SqliteApprovalStore(tmp_path / "shop.sqlite3")
    else:
        aws = request.getfixturevalue("aws")
        yield DynamoShopStore(aws.dynamodb, aws.table), DynamoApprovalStore(aws.dynamodb, aws.table)


def _approval(n: int, checkpoint_id: str, supersedes: str = "") -> ApprovalRecord:
    people = ("ana@example.com", "ben@example.com")
    return ApprovalRecord(
        approval_id=f"appr-{n:032x}",
        checkpoint_id=checkpoint_id,
        proposal_hash="a" * 64,
        created_at="2026-08-12T08:00:00Z",
        expires_at="2026-08-13T08:00:00Z",
        task_token="local",
        policy=ApprovalPolicy(approvers=people),
        links=tuple(ApproverLink(approver=a, secret_hash=hash_link_secret(a[:3] * 40)) for a in people),
        supersedes=supersedes,
    )


def test_a_checkpoint_and_its_approval_are_written_together(stores: tuple[ShopStore, ApprovalStore]) -> None:
    store, approvals = stores
    first = f"ckpt-{1:032x}"
    store.put_checkpoint(first, '{"checkpoint_id": "x"}', _event("approval_requested"), _approval(1, first))
    assert [a.approval_id for a in approvals.approvals_for(first)] == [f"appr-{1:032x}"]
    # An approval id that exists already: neither the checkpoint nor the approval is written.
    with pytest.raises(IntegrityError):
        store.put_checkpoint(f"ckpt-{2:032x}", "{}", _event("approval_requested"), _approval(1, f"ckpt-{2:032x}"))
    assert store.get_checkpoint(f"ckpt-{2:032x}") is None and len(_types(store)) == 1


def test_proposing_again_closes_the_old_approval_only_while_it_is_open(stores: tuple[ShopStore, ApprovalStore]) -> None:
    store, approvals = stores
    first, second, third = (f"ckpt-{n:032x}" for n in (1, 2, 3))
    store.put_checkpoint(first, "{}", _event("approval_requested"), _approval(1, first))
    store.put_checkpoint(second, "{}", _event("approval_requested"), _approval(2, second, supersedes=f"appr-{1:032x}"))
    old = approvals.get_approval(f"appr-{1:032x}")
    assert old is not None and old.status == "superseded" and old.superseded_by == f"appr-{2:032x}"
    # A second "propose again" from the same old approval (a double click) writes nothing at all.
    before = (store.list_checkpoints(), [a.model_dump_json() for a in approvals.list_approvals()], _types(store))
    with pytest.raises(DecisionAlreadyClaimedError):
        store.put_checkpoint(
            third, "{}", _event("approval_requested"), _approval(3, third, supersedes=f"appr-{1:032x}")
        )
    after = (store.list_checkpoints(), [a.model_dump_json() for a in approvals.list_approvals()], _types(store))
    assert after == before and store.get_checkpoint(third) is None
