"""authorize: every path asks the one policy with the approval record read from the store; the decision an
approval holds is given to a resume only if its votes make it and every receipt verifies. Refusals write
nothing."""

from __future__ import annotations

from typing import Any

import pytest

from production_orchestrator.domain.approval.approvals import Vote
from production_orchestrator.domain.approval.authority import Ask, CastVote, ResumeRecorded
from production_orchestrator.domain.approval.receipts import make_receipt
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.deciding.authorize import (
    ReadDecision,
    RecordVote,
    authorized,
    cast_vote,
    governing_approval,
    identities,
    new_decision,
    recorded_decision,
    stale_reasons,
)
from production_orchestrator.services.runs.start import StartResult
from tests.support.fakes import InMemoryMacKey
from tests.support.memory_world import MemoryWorld, Requested

ANA, BEN = "ana@example.com", "ben@example.com"


def _decided(world: MemoryWorld, approve: bool = True, **policy: Any) -> tuple[StartResult, Requested]:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN), **policy)
    decision = new_decision(approve, started.checkpoint.proposal_hash, BEN, "" if approve else "not now", world.clock())
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
    found = recorded_decision(world.ports(), ReadDecision(cp.checkpoint_id, made.approval_id))
    assert (found.approver, found.reason, found.approved) == (BEN, "not now", False)
    assert found.reviewed_hash == cp.proposal_hash


def test_approvals_that_hold_no_usable_decision_are_refused(world: MemoryWorld) -> None:
    started, made = _decided(world)
    cp = started.checkpoint
    other = world.start(approval=None)
    pending = world.request(other, (ANA,))
    now, key = world.clock(), world.mac_key

    def ask(checkpoint_id: str, approval_id: str, mac_key: Any = key) -> Any:
        return recorded_decision(world.ports(receipt_key=mac_key), ReadDecision(checkpoint_id, approval_id))

    oid = other.checkpoint.checkpoint_id
    assert _refusal(lambda: ask(oid, made.approval_id)) is RefusalCode.CHECKPOINT_INVALID  # another's approval
    assert _refusal(lambda: ask(oid, pending.approval_id)) is RefusalCode.UNAUTHORIZED_APPROVER  # no decision yet
    world.approvals.expire_approval(pending.approval_id, now=now)
    assert _refusal(lambda: ask(oid, pending.approval_id)) is RefusalCode.EXPIRED
    assert _refusal(lambda: ask(cp.checkpoint_id, made.approval_id, InMemoryMacKey())) is RefusalCode.RECEIPT_INVALID


def test_a_vote_altered_in_storage_fails_its_receipt(world: MemoryWorld) -> None:
    started, made = _decided(world, approve=False)
    record = world.approval(made.approval_id)
    flipped = record.votes[0].decision.model_copy(update={"reason": "changed later"})
    altered = record.model_copy(update={"votes": (record.votes[0].model_copy(update={"decision": flipped}),)})
    world.approvals._records[made.approval_id] = altered.model_copy(update={"decision": flipped}).model_dump_json()
    code = _refusal(
        lambda: recorded_decision(world.ports(), ReadDecision(started.checkpoint.checkpoint_id, made.approval_id))
    )
    assert code is RefusalCode.RECEIPT_INVALID


def test_a_cli_ask_meets_the_policy_of_the_approval(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    cid, plan = started.checkpoint.checkpoint_id, started.checkpoint.proposal_hash
    now = world.clock()
    # No approval record: nobody may decide, whoever asks.
    assert governing_approval(world.ports(), cid) is None
    assert _refusal(lambda: authorized(None, Ask("cli", True, plan, "anyone"), now)) is (
        RefusalCode.UNAUTHORIZED_APPROVER
    )
    world.request(started, (ANA, BEN), requester=" ANA@Example.com", separation_of_duties=True)
    approval = governing_approval(world.ports(), cid)
    for who, approve in (("mallory@example.com", False), (ANA, True), ("Ana@example.COM", True)):
        assert _refusal(lambda w=who, a=approve: authorized(approval, Ask("cli", a, plan, w), now)) is (
            RefusalCode.UNAUTHORIZED_APPROVER
        )
    assert authorized(approval, Ask("cli", False, plan, ANA), now) == CastVote(ANA, decides=True)
    assert authorized(approval, Ask("cli", True, plan, " BEN@example.com"), now) == CastVote(BEN, decides=True)


def test_a_quorum_cannot_be_met_by_one_cli_approval(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    world.request(started, (ANA, BEN), quorum=2, quorum_above_quantity=0)
    approval = governing_approval(world.ports(), started.checkpoint.checkpoint_id)
    plan, now = started.checkpoint.proposal_hash, world.clock()
    assert _refusal(lambda: authorized(approval, Ask("cli", True, plan, ANA), now)) is RefusalCode.UNAUTHORIZED_APPROVER
    assert isinstance(authorized(approval, Ask("cli", False, plan, ANA), now), CastVote)


def test_the_local_default_leaves_the_cli_open_to_the_operator(world: MemoryWorld) -> None:
    started = world.start()  # the operator plan: one link (shop-owner), the CLI open
    approval = governing_approval(world.ports(), started.checkpoint.checkpoint_id)
    plan, now = started.checkpoint.proposal_hash, world.clock()
    assert isinstance(authorized(approval, Ask("cli", True, plan, "operator"), now), CastVote)


def test_an_approve_needs_an_unchanged_shop_a_reject_does_not(world: MemoryWorld) -> None:
    started = world.start()
    cp = started.checkpoint
    world.store.set_inventory("THREAD-RED-40", 0, _event(world))
    assert stale_reasons(world.ports(), cp)
    approval = governing_approval(world.ports(), cp.checkpoint_id)
    ask = Ask("cli", True, cp.proposal_hash, "operator", stale=True)
    assert _refusal(lambda: authorized(approval, ask, world.clock())) is RefusalCode.STALE_DOMAIN_STATE
    assert isinstance(
        authorized(approval, Ask("cli", False, cp.proposal_hash, "op", stale=True), world.clock()), CastVote
    )


def test_a_cast_vote_is_receipted_audited_and_closes_the_approval(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN))
    approval = world.approval(made.approval_id)
    decision = new_decision(True, started.checkpoint.proposal_hash, " Ben@Example.com ", "", world.clock())
    assert decision.approver == BEN  # identities are stored in their one comparable form
    recorded = cast_vote(world.ports(), RecordVote(approval, started.checkpoint, decision, via="cli"))
    assert recorded.status == "decided" and recorded.votes[0].receipt is not None
    event = world.store.audit_events()[-1]
    assert event.event_type == "approval_vote" and event.detail["receipt"]["mac"] == recorded.votes[0].receipt.mac
    assert isinstance(
        authorized(recorded, Ask("workflow", True, started.checkpoint.proposal_hash), world.clock()), ResumeRecorded
    )


def test_a_configured_list_is_compared_in_one_form() -> None:
    assert identities([" ANA@Example.com", "ben@example.com"]) == frozenset({ANA, BEN})
    assert identities(None) is None


def _event(world: MemoryWorld) -> Any:
    from production_orchestrator.domain.records import audit_event

    return audit_event("inventory_set", world.clock())


def test_decisions_are_objects_with_a_timestamp(world: MemoryWorld) -> None:
    made = new_decision(False, "a" * 64, "x@y.z", "no", world.clock())
    assert isinstance(made, Decision) and made.decided_at == utc_iso(world.clock())
