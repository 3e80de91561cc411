"""start: the agent runs until the approval interrupt; session, proposal and sealed checkpoint are stored."""

from __future__ import annotations

from datetime import timedelta

import pytest

from production_orchestrator.domain.canonical import sha256_hex
from production_orchestrator.domain.errors import IntakeError, ShopError, UnplannableError
from production_orchestrator.domain.planning.proposal import load_proposal
from production_orchestrator.domain.records import INTERRUPT_NAME, agent_identity, audit_event, parse_utc
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop.model import day_range, parse_day
from production_orchestrator.services.asking.request_approval import operator_plan
from production_orchestrator.services.evidence import load_checkpoint
from production_orchestrator.services.runs.plan_request import PlanRequest
from production_orchestrator.services.runs.start import StartRun, start_run
from tests.support.memory_world import MemoryWorld


def test_start_leaves_a_sealed_checkpoint_pointing_at_durable_evidence(world: MemoryWorld) -> None:
    started = world.start(window=timedelta(hours=2))
    cp = started.checkpoint
    assert started.stop_reason == "interrupt" and started.revision == 1
    assert load_checkpoint(world.store, cp.checkpoint_id) == cp and cp.is_intact()
    assert cp.interrupt_name == INTERRUPT_NAME and cp.agent_id == agent_identity(world.binding, "rush-order")
    assert parse_utc(cp.expires_at) - parse_utc(cp.created_at) == timedelta(hours=2)
    stored = world.store.get_proposal(cp.proposal_hash)
    assert stored is not None and load_proposal(stored, cp.proposal_hash) == started.proposal
    facts = world.sessions.read_facts(cp.session_id, cp.agent_id)
    assert facts.pending_interrupt_ids == frozenset({cp.interrupt_id})
    assert facts.interrupt_proposal_hash == cp.proposal_hash
    state = world.store.load_state()
    assert state is not None and cp.domain_digest == state.digest()
    snapshot = world.store.get_state_snapshot(cp.domain_digest)
    assert snapshot is not None and sha256_hex(snapshot) == cp.domain_digest
    types = [e.event_type for e in world.store.audit_events()]
    assert types[0] == "shop_seeded" and types[-1] == "approval_requested"
    assert "order_taken_in" in types and "proposal_created" in types
    assert world.store.application_count() == 0


def test_a_second_start_reuses_the_shop_and_the_order(world: MemoryWorld) -> None:
    first = world.start()
    second = world.start()
    assert second.checkpoint.checkpoint_id != first.checkpoint.checkpoint_id
    assert second.checkpoint.proposal_hash == first.checkpoint.proposal_hash
    assert [e.event_type for e in world.store.audit_events()].count("shop_seeded") == 1
    assert len(world.store.list_checkpoints()) == 2


def test_a_shop_of_another_scenario_is_refused_before_the_agent_runs(world: MemoryWorld) -> None:
    world.start("team-jerseys")
    before = world.snapshot()
    with pytest.raises(ShopError):
        world.start("rush-order")
    assert world.snapshot() == before


def test_a_request_already_planned_is_refused_before_the_agent_runs(world: MemoryWorld) -> None:
    started = world.start()
    assert world.resume(started, True).outcome == "applied"
    before = world.snapshot()
    with pytest.raises(IntakeError, match="already in the shop and scheduled"):
        start_run(world.runtime(), StartRun("rush-order", world.binding, timedelta(days=1)))
    assert world.snapshot() == before


def test_a_request_of_which_nothing_fits_is_refused_with_the_reason_before_anything_is_written(
    world: MemoryWorld,
) -> None:
    rush = SCENARIOS["rush-order"]
    sundays = [d for d in day_range(rush.planning_day, 90) if parse_day(d).weekday() == 6]
    machine = rush.state.machines[0].model_copy(update={"weekdays": ("sun",), "closed_days": tuple(sundays)})
    world.store.seed(
        rush.state.model_copy(update={"machines": (machine,)}), audit_event("shop_imported", world.clock())
    )
    before = world.snapshot()
    request = PlanRequest(text=rush.customer_email, planning_day=rush.planning_day)
    with pytest.raises(UnplannableError) as refused:
        start_run(world.runtime(), StartRun(request, world.binding, timedelta(days=1)))
    assert str(refused.value) == (
        "UNPLANNABLE: RUSH-200 cannot be made: EMB-01 has no working day from 2026-08-12 to 2026-11-09"
    )
    assert refused.value.code == "UNPLANNABLE"
    assert world.snapshot() == before and world.sessions.repository._sessions == {}  # no session, no model run


def test_a_request_of_which_part_fits_starts_and_its_plan_lists_the_rest_at_risk(world: MemoryWorld) -> None:
    rush = SCENARIOS["rush-order"]
    huge = rush.customer_email.replace("Quantity: 120", "Quantity: 30000")  # 60,000 minutes; 90 days hold 43,200
    assert huge != rush.customer_email
    request = PlanRequest.of_scenario("rush-order", text=huge)
    started = start_run(world.runtime(), StartRun(request, world.binding, timedelta(days=1), operator_plan()))
    [risk] = started.proposal.at_risk
    assert risk.order_id == "RUSH-200" and risk.unplaced_minutes > 0
