"""authorize: the decision an approval holds, checked against its policy and receipts before a resume; and
the policy check of a decision typed at the CLI. Both refuse with a code and write nothing."""

from __future__ import annotations

from typing import Any

import pytest

from production_orchestrator.domain.approvals import Vote
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.domain.receipts import make_receipt
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.lifecycle.authorize import authorize_direct, decision_for_resume, receipt_event
from production_orchestrator.lifecycle.start import StartResult
from tests.support.fakes import InMemoryMacKey
from tests.support.memory_world import MemoryWorld, Requested

ANA, BEN = "ana@example.com", "ben@example.com"


def _decided(world: MemoryWorld, approve: bool = True, **policy: Any) -> tuple[StartResult, Requested]:
    started = world.start()
    made = world.request(started, (ANA, BEN), **policy)
    decision = Decision(
        approved=approve,
        reviewed_hash=started.checkpoint.proposal_hash,
        approver=BEN,
        reason="" if approve else "not now",
        decided_at=utc_iso(world.clock()),
    )
    receipt = make_receipt(started.checkpoint, decision, world.mac_key, approval_id=made.approval_id)
    world.approvals.record_approval_vote(made.approval_id, Vote(decision=decision, receipt=receipt), now=world.clock())
    return started, made


def _refusal(call: Any) -> RefusalCode:
    with pytest.raises(ResumeRefusedError) as refused:
        call()
    return refused.value.code


def test_a_decided_approval_gives_the_decision_to_resume_with(world: MemoryWorld) -> None:
    started, made = _decided(world, approve=False)
    cp = started.checkpoint
    found = decision_for_resume(
        world.approvals, cp.checkpoint_id, made.approval_id, store=world.store, mac_key=world.mac_key
    )
    assert (found.approver, found.reason) == (BEN, "not now")
    assert found.request.checkpoint_id == cp.checkpoint_id and not found.request.approved
    assert found.request.reviewed_hash == cp.proposal_hash


def test_approvals_that_hold_no_usable_decision_are_refused(world: MemoryWorld) -> None:
    started, made = _decided(world)
    cp = started.checkpoint
    other = world.start()
    pending = world.request(other, (ANA,))
    ids = world.approvals
    assert _refusal(lambda: decision_for_resume(ids, other.checkpoint.checkpoint_id, made.approval_id)) is (
        RefusalCode.CHECKPOINT_INVALID
    )
    assert _refusal(lambda: decision_for_resume(ids, other.checkpoint.checkpoint_id, pending.approval_id)) is (
        RefusalCode.CHECKPOINT_INVALID
    )
    world.approvals.expire_approval(pending.approval_id, now=world.clock())
    assert _refusal(lambda: decision_for_resume(ids, other.checkpoint.checkpoint_id, pending.approval_id)) is (
        RefusalCode.EXPIRED
    )
    assert (
        _refusal(
            lambda: decision_for_resume(
                ids, cp.checkpoint_id, made.approval_id, store=world.store, mac_key=InMemoryMacKey()
            )
        )
        is RefusalCode.RECEIPT_INVALID
    )


def test_a_vote_altered_in_storage_fails_its_receipt(world: MemoryWorld) -> None:
    started, made = _decided(world, approve=False)
    record = world.approval(made.approval_id)
    flipped = record.votes[0].decision.model_copy(update={"reason": "changed later"})
    altered = record.model_copy(update={"votes": (record.votes[0].model_copy(update={"decision": flipped}),)})
    world.approvals._records[made.approval_id] = altered.model_copy(update={"decision": flipped}).model_dump_json()
    code = _refusal(
        lambda: decision_for_resume(
            world.approvals,
            started.checkpoint.checkpoint_id,
            made.approval_id,
            store=world.store,
            mac_key=world.mac_key,
        )
    )
    assert code is RefusalCode.RECEIPT_INVALID


def test_a_cli_decision_meets_the_policy_of_the_approval(world: MemoryWorld) -> None:
    started = world.start()
    cid = started.checkpoint.checkpoint_id
    authorize_direct(world.approvals, cid, "anyone", True)  # no approval record yet: the local operator decides
    world.request(started, (ANA, BEN), requester=ANA, separation_of_duties=True)
    assert _refusal(lambda: authorize_direct(world.approvals, cid, "mallory", False)) is (
        RefusalCode.UNAUTHORIZED_APPROVER
    )
    assert _refusal(lambda: authorize_direct(world.approvals, cid, ANA, True)) is RefusalCode.UNAUTHORIZED_APPROVER
    authorize_direct(world.approvals, cid, ANA, False)
    authorize_direct(world.approvals, cid, BEN, True)


def test_a_quorum_cannot_be_met_by_one_cli_approval(world: MemoryWorld) -> None:
    started = world.start()
    world.request(started, (ANA, BEN), quorum=2, quorum_above_quantity=0)
    cid = started.checkpoint.checkpoint_id
    assert _refusal(lambda: authorize_direct(world.approvals, cid, ANA, True)) is RefusalCode.UNAUTHORIZED_APPROVER
    authorize_direct(world.approvals, cid, ANA, False)


def test_an_unrestricted_approval_leaves_the_cli_open(world: MemoryWorld) -> None:
    started = world.start()
    world.request(started, ("shop-owner",), restricted=False)
    authorize_direct(world.approvals, started.checkpoint.checkpoint_id, "operator", True)


def test_the_receipt_event_keeps_the_receipt(world: MemoryWorld) -> None:
    started = world.start()
    decision = Decision(
        approved=True,
        reviewed_hash=started.checkpoint.proposal_hash,
        approver=ANA,
        decided_at=utc_iso(world.clock()),
    )
    receipt = make_receipt(started.checkpoint, decision, world.mac_key)
    event = receipt_event(started.checkpoint, receipt, at=world.clock())
    assert event.event_type == "decision_receipt" and event.checkpoint_id == started.checkpoint.checkpoint_id
    assert event.detail["receipt"]["mac"] == receipt.mac
