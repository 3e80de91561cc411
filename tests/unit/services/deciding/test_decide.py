"""decide: validate, then mutate. A vote lands only for a valid link when the one policy says go; a reject or
the quorum closes the approval and wakes the workflow once, with a pointer, never a secret. A refused POST
writes nothing and says why; a valid link always gets its view of the approval back."""

from __future__ import annotations

from typing import Any

from production_orchestrator.domain.approval.receipts import check_receipt
from production_orchestrator.domain.errors import RefusalCode
from production_orchestrator.domain.records import audit_event
from production_orchestrator.services.deciding.decide import Decide, DecideResult, decide
from production_orchestrator.services.runs.start import StartResult
from tests.support.memory_world import TOKEN, MemoryWorld, Requested

ANA, BEN, CY = "ana@example.com", "ben@example.com", "cy@example.com"


def _setup(world: MemoryWorld, **policy: Any) -> tuple[StartResult, Requested]:
    started = world.start(approval=None)
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
    }
    args.update(kw)
    return decide(world.ports(), Decide(**args))


def test_an_approval_records_a_receipted_vote_and_wakes_the_workflow_once(world: MemoryWorld) -> None:
    started, made = _setup(world)
    result = _post(world, made, started, BEN)
    assert (result.status, result.approver, result.wake) == ("recorded", BEN, "woken")
    record = world.approval(made.approval_id)
    assert record.status == "decided" and record.decided_by == BEN and len(record.votes) == 1 and record.woken_at
    vote = record.votes[0]
    assert vote.receipt is not None and vote.receipt.approval_id == made.approval_id
    assert check_receipt(vote.receipt, world.mac_key, checkpoint=started.checkpoint, decision=vote.decision) is None
    assert world.callback.calls == [
        (TOKEN, {"checkpoint_id": started.checkpoint.checkpoint_id, "approval_id": made.approval_id, "revise": False})
    ]
    event = world.store.audit_events()[-1]
    assert event.event_type == "approval_vote" and event.detail["approver"] == BEN
    assert event.detail["receipt"]["mac"] == vote.receipt.mac
    again = _post(world, made, started, BEN)  # the same decision again: recorded already, not woken twice
    assert again.status == "already_recorded" and len(world.callback.calls) == 1
    other = _post(world, made, started, CY, approve=False)  # another decision: refused, with what stands
    assert (other.status, other.code) == ("refused", RefusalCode.ALREADY_DECIDED)
    assert other.view is not None and other.view.approval.status == "decided"


def test_refused_posts_write_nothing(world: MemoryWorld) -> None:
    started, made = _setup(world, requester=ANA, separation_of_duties=True)
    before = world.snapshot()
    cases = {
        RefusalCode.REVIEWED_HASH_MISMATCH: _post(world, made, started, BEN, reviewed_hash="f" * 64),
        RefusalCode.UNAUTHORIZED_APPROVER: _post(world, made, started, ANA),
    }
    blank = _post(world, made, started, BEN, approve=False, reason="   ")
    forged = _post(world, made, started, BEN, secret="y" * 43)
    too_long = _post(world, made, started, BEN, approve=False, reason="x" * 2001)
    removed = _post(world, made, started, CY, allowed_approvers=[ANA, BEN])
    assert {code: r.code for code, r in cases.items()} == {code: code for code in cases}
    assert blank.status == "invalid" and "needs a reason" in blank.detail and blank.view is not None
    assert forged.status == "closed" and forged.view is None  # not a valid link: nothing about the approval
    assert too_long.status == "invalid" and "too long" in too_long.detail
    assert removed.code is RefusalCode.UNAUTHORIZED_APPROVER and "no longer" in removed.detail
    assert world.snapshot() == before and world.callback.calls == []


def test_the_requester_may_still_reject(world: MemoryWorld) -> None:
    started, made = _setup(world, requester="Ana@Example.com", separation_of_duties=True)
    assert _post(world, made, started, ANA).code is RefusalCode.UNAUTHORIZED_APPROVER
    assert _post(world, made, started, ANA, approve=False).status == "recorded"
    record = world.approval(made.approval_id)
    assert record.status == "rejected" and record.decision is not None and not record.decision.approved


def test_a_quorum_wakes_the_workflow_at_the_last_approval(world: MemoryWorld) -> None:
    started, made = _setup(world, quorum=2, quorum_above_quantity=0)
    first = _post(world, made, started, ANA)
    assert first.status == "vote_recorded" and first.view is not None
    assert (first.view.approval.approving_votes(), first.view.approval.required) == (1, 2)
    assert world.callback.calls == [] and world.approval(made.approval_id).status == "pending"
    assert _post(world, made, started, ANA).code is RefusalCode.ALREADY_DECIDED  # not twice
    second = _post(world, made, started, CY)
    assert second.status == "recorded" and len(world.callback.calls) == 1
    assert world.approval(made.approval_id).decided_by == f"{ANA}, {CY}"


def test_a_reject_decides_at_once_even_under_a_quorum(world: MemoryWorld) -> None:
    started, made = _setup(world, quorum=2, quorum_above_quantity=0)
    assert _post(world, made, started, ANA).status == "vote_recorded"
    assert _post(world, made, started, BEN, approve=False).status == "recorded"
    assert len(world.callback.calls) == 1 and world.approval(made.approval_id).status == "rejected"
    assert _post(world, made, started, CY).code is RefusalCode.ALREADY_DECIDED


def test_an_approve_on_a_changed_shop_is_refused_a_reject_cancels_it(world: MemoryWorld) -> None:
    started, made = _setup(world)
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))
    before = world.snapshot()
    stale = _post(world, made, started, BEN)
    assert stale.code is RefusalCode.STALE_DOMAIN_STATE and world.snapshot() == before
    assert stale.view is not None and stale.view.changes
    assert _post(world, made, started, BEN, approve=False).status == "recorded"
    assert world.approval(made.approval_id).status == "rejected" and len(world.callback.calls) == 1


def test_a_token_closed_at_the_first_wake_expires_the_approval(world: MemoryWorld) -> None:
    started, made = _setup(world)
    world.callback.closed = True
    result = _post(world, made, started, BEN)
    assert result.status == "recorded" and result.wake == "expired"
    assert world.approval(made.approval_id).status == "expired"


def test_an_expired_link_is_refused_and_says_so(world: MemoryWorld) -> None:
    started, made = _setup(world)
    world.clock.advance(days=2)
    before = world.snapshot()
    late = _post(world, made, started, BEN)
    assert late.code is RefusalCode.EXPIRED and late.view is not None
    assert world.snapshot() == before
