"""status: every approval as an operator sees it, and how long the open ones have waited. Reads only."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from production_orchestrator.domain.records import Decision, audit_event, utc_iso
from production_orchestrator.services.deciding.claim import Hold, hold
from production_orchestrator.services.runs.repropose import ProposeAgain, propose_again
from production_orchestrator.services.runtime import run_context
from production_orchestrator.services.status import StatusQuery, checkpoint_status, pending_approval_ages, status
from tests.support.memory_world import MemoryWorld


def _labels(world: MemoryWorld) -> dict[str, str]:
    report = status(world.ports())
    return {row["checkpoint_id"]: row["status"] for row in report["approvals"]}


def test_each_state_an_approval_can_be_in(world: MemoryWorld) -> None:
    applied, rejected, resuming, pending, short, tampered = (world.start() for _ in range(6))
    world.resume(rejected, False, reason="no")
    cp = resuming.checkpoint
    rt = world.runtime()
    decision = Decision(
        approved=True, reviewed_hash=cp.proposal_hash, approver="ana", decided_at=utc_iso(world.clock())
    )
    hold(rt, Hold(run_context(rt, cp.session_id, cp.checkpoint_id), cp, decision))
    raw = json.loads(tampered.checkpoint.model_dump_json())
    raw["target_order_id"] = "OTHER-1"
    world.store.tamper_checkpoint(tampered.checkpoint.checkpoint_id, json.dumps(raw))
    world.store.tamper_checkpoint(  # an approval window of one minute, sealed as start would seal it
        short.checkpoint.checkpoint_id,
        short.checkpoint.model_copy(update={"expires_at": utc_iso(world.clock() + timedelta(minutes=1))})
        .sealed()
        .model_dump_json(),
    )
    world.clock.advance(minutes=5)
    world.resume(applied, True)
    labels = _labels(world)
    assert labels == {
        applied.checkpoint.checkpoint_id: "approved",
        rejected.checkpoint.checkpoint_id: "rejected",
        resuming.checkpoint.checkpoint_id: "resuming",
        # the applied plan changed the shop under it: stale, not pending (approving it would be refused)
        pending.checkpoint.checkpoint_id: "stale",
        short.checkpoint.checkpoint_id: "expired",
        tampered.checkpoint.checkpoint_id: "invalid",
    }
    report = status(world.ports())
    stale = next(r for r in report["approvals"] if r["checkpoint_id"] == pending.checkpoint.checkpoint_id)
    assert any("STANDARD-100" in line or "RUSH-200" in line for line in stale["changes"]), stale["changes"]
    assert (report["revision"], report["plan_applied_count"]) == (2, 1)
    row = next(r for r in report["approvals"] if r["checkpoint_id"] == rejected.checkpoint.checkpoint_id)
    assert row["approver"] == "ana@example.com" and row["target_order_id"] == "RUSH-200"


def test_a_superseded_plan_says_so(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started)
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))
    again = propose_again(world.runtime(), ProposeAgain(made.approval_id, world.binding))
    assert checkpoint_status(world.ports(), started.checkpoint, world.clock()) == ("superseded", "")
    assert _labels(world)[again.checkpoint.checkpoint_id] == "pending"


def test_the_approval_says_what_happened_before_a_resume_claims_it(world: MemoryWorld) -> None:
    from production_orchestrator.services.deciding.decide import Decide, decide

    bare = world.start(approval=None)  # a checkpoint no approval governs: never approvable
    assert checkpoint_status(world.ports(), bare.checkpoint, world.clock()) == ("no_approval", "")
    started = world.start(approval=None)
    made = world.request(started)
    decide(
        world.ports(receipt_key=None),
        Decide(
            approval_id=made.approval_id,
            secret=made.secrets["ben@example.com"],
            approve=False,
            reviewed_hash=started.checkpoint.proposal_hash,
            reason="not now",
        ),
    )
    assert checkpoint_status(world.ports(), started.checkpoint, world.clock()) == (
        "rejected",
        "ben@example.com",
    )


def test_status_writes_nothing(world: MemoryWorld) -> None:
    world.start()
    before = world.snapshot()
    status(world.ports())
    assert world.snapshot() == before


def test_pending_ages_count_only_approvals_still_waiting(world: MemoryWorld) -> None:
    old = world.start(approval=None)
    world.request(old)
    world.clock.advance(minutes=30)
    newer = world.start(approval=None)
    world.request(newer)
    decided = world.start(approval=None)
    made = world.request(decided)
    world.approvals.expire_approval(made.approval_id, now=world.clock())
    world.clock.advance(minutes=10)
    assert pending_approval_ages(world.ports()) == [40 * 60, 10 * 60]
    assert pending_approval_ages(world.ports(clock=lambda: world.clock() + timedelta(days=2))) == []


def test_every_vote_of_a_quorum_is_listed_in_order(world: MemoryWorld) -> None:
    from production_orchestrator.domain.approval.approvals import Vote

    started = world.start(approval=None)
    made = world.request(started, ("ana@example.com", "ben@example.com", "cy@example.com"), quorum=2, quorum_above=0)
    for who in ("ben@example.com", "cy@example.com"):
        decision = Decision(approved=True, reviewed_hash=started.checkpoint.proposal_hash, approver=who,
                            decided_at=utc_iso(world.clock.advance(minutes=3)))  # fmt: skip
        world.approvals.record_approval_vote(made.approval_id, Vote(decision=decision), now=world.clock())
    (row,) = status(world.ports())["approvals"]
    assert row["status"] == "decided"
    assert [(v["approver"], v["approved"]) for v in row["votes"]] == [
        ("ben@example.com", True),
        ("cy@example.com", True),
    ]
    assert row["votes"][0]["at"] < row["votes"][1]["at"]


def test_a_pending_plan_on_an_unchanged_shop_has_no_changes(world: MemoryWorld) -> None:
    world.start()
    (row,) = status(world.ports())["approvals"]
    assert (row["status"], row["changes"], row["votes"]) == ("pending", (), ())


def test_status_shows_the_latest_runs_and_reads_only_those(world: MemoryWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = []
    for _ in range(4):
        runs.append(world.start())
        world.clock.advance(days=1)
    judged: list[str] = []
    real = world.store.get_decision

    def counted(checkpoint_id: str) -> object:
        judged.append(checkpoint_id)
        return real(checkpoint_id)

    monkeypatch.setattr(world.store, "get_decision", counted)
    report = status(world.ports(), StatusQuery(limit=2))
    ids = [r.checkpoint.checkpoint_id for r in runs]
    assert [row["checkpoint_id"] for row in report["approvals"]] == ids[-2:] and report["runs_total"] == 4
    assert set(judged) == set(ids[-2:])  # the runs not shown are not read beyond their listing
    since = runs[1].checkpoint.created_at
    assert [row["checkpoint_id"] for row in status(world.ports(), StatusQuery(None, since))["approvals"]] == ids[1:]
    assert len(status(world.ports(), StatusQuery(limit=None))["approvals"]) == 4
