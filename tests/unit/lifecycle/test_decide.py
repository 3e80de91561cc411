"""decide: validate, then mutate. A vote lands only for a valid link, the reviewed hash and an allowed
decision; a reject or the quorum decides and wakes the workflow once, with a pointer, never a secret."""

from __future__ import annotations

from typing import Any

from production_orchestrator.domain.receipts import check_receipt
from production_orchestrator.lifecycle.decide import DecideResult, decide
from production_orchestrator.lifecycle.start import StartResult
from tests.support.memory_world import TOKEN, MemoryWorld, Requested

ANA, BEN, CY = "ana@example.com", "ben@example.com", "cy@example.com"


def _setup(world: MemoryWorld, **policy: Any) -> tuple[StartResult, Requested]:
    started = world.start()
    return started, world.request(started, (ANA, BEN, CY), **policy)


def _post(
    world: MemoryWorld, made: Requested, started: StartResult, who: str, approve: bool = True, **kw: Any
) -> DecideResult:
    args: dict[str, Any] = {
        "approval_id": made.approval_id,
        "secret": made.secrets[who],
        "approve": approve,
        "reviewed_hash": started.checkpoint.proposal_hash,
        "reason": "" if approve else "wait for the delivery",
        "now": world.clock(),
        "mac_key": world.mac_key,
    }
    args.update(kw)
    return decide(world.store, world.approvals, world.callback, **args)


def test_an_approval_records_a_receipted_vote_and_wakes_the_workflow_once(world: MemoryWorld) -> None:
    started, made = _setup(world)
    result = _post(world, made, started, BEN)
    assert (result.status, result.approver, result.approvals_given, result.approvals_needed) == ("recorded", BEN, 1, 1)
    record = world.approval(made.approval_id)
    assert record.status == "decided" and record.decided_by == BEN and len(record.votes) == 1
    vote = record.votes[0]
    assert vote.receipt is not None and vote.receipt.approval_id == made.approval_id
    assert check_receipt(vote.receipt, world.mac_key, checkpoint=started.checkpoint, decision=vote.decision) is None
    assert world.callback.calls == [
        (TOKEN, {"checkpoint_id": started.checkpoint.checkpoint_id, "approval_id": made.approval_id})
    ]
    event = world.store.audit_events()[-1]
    assert event.event_type == "approval_vote" and event.detail["approver"] == BEN
    assert event.detail["receipt_mac"] == vote.receipt.mac
    again = _post(world, made, started, BEN)
    assert again.status == "closed" and len(world.callback.calls) == 1


def test_refused_posts_write_nothing(world: MemoryWorld) -> None:
    started, made = _setup(world, requester=ANA, separation_of_duties=True)
    before = world.snapshot()
    cases = {
        "hash_mismatch": _post(world, made, started, BEN, reviewed_hash="f" * 64),
        "invalid": _post(world, made, started, BEN, approve=False, reason="   "),
        "unauthorized": _post(world, made, started, ANA),
        "closed": _post(world, made, started, BEN, secret="y" * 43),
    }
    too_long = _post(world, made, started, BEN, approve=False, reason="x" * 2001)
    removed = _post(world, made, started, CY, allowed_approvers=[ANA, BEN])
    assert {k: v.status for k, v in cases.items()} == {k: k for k in cases}
    assert too_long.status == "invalid" and "too long" in too_long.detail
    assert removed.status == "unauthorized" and "no longer" in removed.detail
    assert world.snapshot() == before and world.callback.calls == []


def test_the_requester_may_still_reject(world: MemoryWorld) -> None:
    started, made = _setup(world, requester=ANA, separation_of_duties=True)
    assert _post(world, made, started, ANA, approve=False).status == "recorded"
    record = world.approval(made.approval_id)
    assert record.decision is not None and not record.decision.approved


def test_a_quorum_wakes_the_workflow_at_the_last_approval(world: MemoryWorld) -> None:
    started, made = _setup(world, quorum=2, quorum_above_quantity=0)
    first = _post(world, made, started, ANA)
    assert (first.status, first.approvals_given, first.approvals_needed) == ("vote_recorded", 1, 2)
    assert world.callback.calls == [] and world.approval(made.approval_id).status == "pending"
    second = _post(world, made, started, CY)
    assert second.status == "recorded" and len(world.callback.calls) == 1
    assert world.approval(made.approval_id).decided_by == f"{ANA}, {CY}"


def test_a_reject_decides_at_once_even_under_a_quorum(world: MemoryWorld) -> None:
    started, made = _setup(world, quorum=2, quorum_above_quantity=0)
    assert _post(world, made, started, ANA).status == "vote_recorded"
    assert _post(world, made, started, BEN, approve=False).status == "recorded"
    assert len(world.callback.calls) == 1
    assert _post(world, made, started, CY).status == "closed"


def test_a_decision_that_arrives_after_the_workflow_gave_up_is_closed(world: MemoryWorld) -> None:
    started, made = _setup(world)
    world.callback.closed = True
    result = _post(world, made, started, BEN)
    assert result.status == "closed"
    assert world.approval(made.approval_id).status == "expired"


def test_an_expired_link_is_closed(world: MemoryWorld) -> None:
    started, made = _setup(world)
    world.clock.advance(days=2)
    before = world.snapshot()
    assert _post(world, made, started, BEN).status == "closed"
    assert world.snapshot() == before
