"""Requests wait beside the shop; plans that do not conflict do not stale each other (issue 18)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from production_orchestrator.domain.errors import (
    AlreadyPendingError,
    PossibleDuplicateError,
    RefusalCode,
    RequestAlreadyDecidedError,
    ResumeRefusedError,
)
from production_orchestrator.domain.intake.request_key import RunRequest
from production_orchestrator.domain.records import audit_event
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.services.asking.request_approval import operator_plan
from production_orchestrator.services.runs.held import held_for
from production_orchestrator.services.runs.plan_request import PlanRequest
from production_orchestrator.services.runs.requests import pending_requests
from production_orchestrator.services.runs.start import StartResult, StartRun, start_run
from production_orchestrator.services.status import status
from tests.support.memory_world import MemoryWorld

EXAMPLES = Path(__file__).resolve().parents[4] / "docs" / "examples"
SHOP = read_shop(json.loads((EXAMPLES / "print-shop.json").read_text()))
TOTES = (EXAMPLES / "request-totes.eml").read_text()
CAPS = (EXAMPLES / "request-caps.txt").read_text()
DAY = "2026-12-01"


@pytest.fixture
def world() -> MemoryWorld:
    w = MemoryWorld()
    w.store.seed(SHOP, audit_event("shop_imported", w.clock()))
    return w


def start(world: MemoryWorld, text: str, *, again: bool = False) -> StartResult:
    request = PlanRequest(text=text, planning_day=DAY)
    return start_run(world.runtime(), StartRun(request, world.binding, timedelta(days=2), operator_plan(), again=again))


def applied_events(world: MemoryWorld) -> list[dict[str, object]]:
    return [e.detail for e in world.store.audit_events() if e.event_type == "plan_applied"]


def test_a_start_leaves_the_shop_and_lists_the_request_apart(world: MemoryWorld) -> None:
    before = world.store.load_state()
    totes = start(world, TOTES)
    assert world.store.load_state() == before  # the order is held with the run, not in the shop
    pending = pending_requests(world.ports())
    assert [(r.order.id, r.checkpoint_id, r.customer, r.status) for r in pending] == [
        (totes.proposal.target_order.id, totes.checkpoint.checkpoint_id, "Lena Vogt", "pending")
    ]


def test_two_plans_that_do_not_conflict_both_apply(world: MemoryWorld) -> None:
    totes, caps = start(world, TOTES), start(world, CAPS)
    assert world.resume(totes, True).outcome == "applied"
    second = world.resume(caps, True)  # proposed on revision 1, applied on revision 2
    assert second.outcome == "applied" and second.revision == 3 and world.store.application_count() == 2
    state = world.store.load_state()
    assert state is not None and {totes.proposal.target_order.id, caps.proposal.target_order.id} <= {
        o.id for o in state.orders if o.schedule
    }
    first_event, second_event = applied_events(world)
    assert first_event["proposed_on_digest"] == first_event["applied_on_digest"] == SHOP.digest()
    assert second_event["proposed_on_digest"] == SHOP.digest() != second_event["applied_on_digest"]
    assert second_event["result_digest"] == state.digest()
    assert pending_requests(world.ports()) == []


def test_a_reject_leaves_the_shop_digest_exactly_as_it_was(world: MemoryWorld) -> None:
    digest = SHOP.digest()
    caps = start(world, CAPS)
    assert world.resume(caps, False, reason="not this week").outcome == "rejected"
    state = world.store.load_state()
    assert state is not None and state.digest() == digest
    assert caps.proposal.target_order.id not in {o.id for o in state.orders}


def test_the_same_request_again_while_pending_returns_its_run_and_writes_nothing(world: MemoryWorld) -> None:
    totes = start(world, TOTES)
    before = world.snapshot()
    with pytest.raises(AlreadyPendingError) as again:
        start(world, TOTES.replace("Hi there,", "Hi   there,\n"))  # same Message-ID, the body re-wrapped
    assert (again.value.checkpoint_id, again.value.proposal_hash) == (
        totes.checkpoint.checkpoint_id,
        totes.checkpoint.proposal_hash,
    )
    assert world.snapshot() == before


def test_two_starts_of_one_request_at_once_write_one_run(world: MemoryWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second start read the request's runs before the first wrote its run (the check is not itself a write):
    its checkpoint write loses the request key, nothing of its run is written, and it answers as a second start
    after the first would, with the first run's ids."""
    first = start(world, TOTES)
    real = world.store.runs_of_request
    reads: list[int] = []

    def read_before_the_first_wrote(request_hash: str) -> list[RunRequest]:
        reads.append(1)
        return [] if len(reads) == 1 else real(request_hash)

    monkeypatch.setattr(world.store, "runs_of_request", read_before_the_first_wrote)
    checkpoints, approvals = world.store.list_checkpoints(), world.approvals.list_approvals()
    events = [e.event_type for e in world.store.audit_events()]
    with pytest.raises(AlreadyPendingError) as second:
        start(world, TOTES)
    assert second.value.checkpoint_id == first.checkpoint.checkpoint_id and len(reads) == 2
    assert world.store.list_checkpoints() == checkpoints and world.approvals.list_approvals() == approvals
    new_events = [e.event_type for e in world.store.audit_events()][len(events) :]
    assert "approval_requested" not in new_events  # the run's own event went with its checkpoint, not written


def test_a_different_request_reusing_a_message_id_is_a_new_request_noted_in_the_audit(world: MemoryWorld) -> None:
    totes = start(world, TOTES)
    other = TOTES.replace("400 navy tote bags", "150 navy tote bags").replace("by Friday", "by Thursday")
    second = start(world, other)
    assert second.checkpoint.checkpoint_id != totes.checkpoint.checkpoint_id
    [_, noted] = [e for e in world.store.audit_events() if e.event_type == "approval_requested"]
    assert noted.checkpoint_id == second.checkpoint.checkpoint_id
    assert noted.detail["reuses_message_id_of"] == [totes.checkpoint.checkpoint_id]


def test_another_sender_with_the_same_message_id_and_words_is_a_new_request(world: MemoryWorld) -> None:
    totes = start(world, TOTES)
    other = start(world, TOTES.replace("lena@harbour-books.example>", "ops@tide-cafe.example>", 1))
    assert other.checkpoint.checkpoint_id != totes.checkpoint.checkpoint_id
    assert world.store.held_requests() == []


@pytest.mark.parametrize(
    "envelope",
    [
        pytest.param(TOTES.replace("festival-totes-0001", "festival-totes-0002"), id="a new Message-ID"),
        pytest.param("\n".join(line for line in TOTES.splitlines() if not line.startswith("Message-ID")), id="none"),
        pytest.param(TOTES.split("\n\n", 1)[1], id="the body pasted"),
    ],
)
def test_the_same_words_in_another_envelope_are_held_as_a_possible_duplicate(world: MemoryWorld, envelope: str) -> None:
    totes = start(world, TOTES)
    before = world.snapshot()
    with pytest.raises(PossibleDuplicateError) as held:
        start(world, envelope)
    assert (held.value.checkpoint_id, held.value.order_id) == (
        totes.checkpoint.checkpoint_id,
        totes.proposal.target_order.id,
    )
    assert held.value.code == "POSSIBLE_DUPLICATE" and "--again" in str(held.value)
    [hold] = world.store.held_requests()
    assert (hold.held_id, hold.status, hold.duplicate_of) == (
        held.value.held_id,
        "held",
        totes.checkpoint.checkpoint_id,
    )
    after = world.snapshot()  # the hold and its event are the only writes: no run, no approval, no model call
    assert after[:2] == before[:2] and after[3:] == before[3:]
    assert [e.event_type for e in world.store.audit_events()][len(before[2]) :] == ["request_held"]
    assert held_for(world.ports(), totes.checkpoint.checkpoint_id) == [hold]
    events = len(world.store.audit_events())
    with pytest.raises(PossibleDuplicateError):  # the same envelope again: the same hold, nothing written
        start(world, envelope)
    assert world.store.held_requests() == [hold] and len(world.store.audit_events()) == events


def test_a_start_reads_only_the_runs_of_its_own_request(world: MemoryWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    start(world, TOTES)
    start(world, CAPS)

    def every_run() -> list[str]:
        raise AssertionError("a start read every stored run")

    monkeypatch.setattr(world.store, "list_checkpoints", every_run)
    with pytest.raises(AlreadyPendingError):
        start(world, TOTES)
    with pytest.raises(PossibleDuplicateError):
        start(world, CAPS)
    start(world, TOTES.replace("400 navy tote bags", "150 navy tote bags"))


def test_a_decided_request_is_refused_unless_again(world: MemoryWorld) -> None:
    totes = start(world, TOTES)
    world.resume(totes, False, reason="no capacity")
    before = world.snapshot()
    with pytest.raises(RequestAlreadyDecidedError, match=r"rejected.*--again"):
        start(world, TOTES)
    assert world.snapshot() == before
    assert start(world, TOTES, again=True).checkpoint.checkpoint_id != totes.checkpoint.checkpoint_id


def test_an_expired_request_is_closed(world: MemoryWorld) -> None:
    start(world, TOTES)
    world.clock.advance(days=3)
    assert pending_requests(world.ports()) == []
    with pytest.raises(RequestAlreadyDecidedError, match="expired"):
        start(world, TOTES)


def test_a_change_inside_the_footprint_stales_and_names_it(world: MemoryWorld) -> None:
    totes = start(world, TOTES)
    world.store.set_inventory("INK-NAVY", 0, audit_event("inventory_set", world.clock()))
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(totes, True)
    assert refused.value.code is RefusalCode.STALE_DOMAIN_STATE and "materials: INK-NAVY would be" in str(refused.value)
    [held] = pending_requests(world.ports())
    assert held.status == "stale"
    [row] = status(world.ports())["approvals"]
    assert (row["status"], row["stale"]) == ("stale", True)  # status names it stale (issue 22), beside the flag
    assert world.resume(totes, False, reason="stale").outcome == "rejected"  # a reject is always accepted


def test_a_change_outside_the_footprint_does_not(world: MemoryWorld) -> None:
    caps = start(world, CAPS)
    world.store.set_inventory("INK-RED", 1, audit_event("inventory_set", world.clock()))
    assert world.resume(caps, True).outcome == "applied"


def test_the_strict_rule_stales_on_any_change(world: MemoryWorld) -> None:
    strict = MemoryWorld()
    strict.store.seed(SHOP.model_copy(update={"staleness": "any-change"}), audit_event("shop_imported", strict.clock()))
    caps = start(strict, CAPS)
    strict.store.set_inventory("INK-RED", 1, audit_event("inventory_set", strict.clock()))
    with pytest.raises(ResumeRefusedError) as refused:
        strict.resume(caps, True)
    assert refused.value.code is RefusalCode.STALE_DOMAIN_STATE and "any-change" in str(refused.value)


def test_a_proposal_from_before_footprints_is_refused_clearly(world: MemoryWorld) -> None:
    from production_orchestrator.domain.canonical import canonical_bytes, sha256_hex
    from production_orchestrator.domain.errors import IntegrityError
    from production_orchestrator.domain.planning.proposal import load_proposal

    totes = start(world, TOTES)
    old = totes.proposal.to_canonical()
    for name in ("footprint", "footprint_digest", "result_footprint_digest"):
        del old[name]
    old["planner_version"] = "planner-2"
    data = canonical_bytes(old)
    with pytest.raises(IntegrityError, match=r"planner-2.*propose again"):
        load_proposal(data, sha256_hex(data))
