"""Held requests: a possible duplicate waits until a person starts it (--again) or drops it (issue 27)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from production_orchestrator.domain.errors import (
    AlreadyPendingError,
    HeldRequestCode,
    HeldRequestError,
    PossibleDuplicateError,
)
from production_orchestrator.domain.records import audit_event
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.services.asking.request_approval import operator_plan
from production_orchestrator.services.runs.held import DropHeld, drop_held, held_requests
from production_orchestrator.services.runs.plan_request import PlanRequest
from production_orchestrator.services.runs.start import StartResult, StartRun, start_run
from tests.support.memory_world import MemoryWorld

EXAMPLES = Path(__file__).resolve().parents[4] / "docs" / "examples"
SHOP = read_shop(json.loads((EXAMPLES / "print-shop.json").read_text()))
TOTES = (EXAMPLES / "request-totes.eml").read_text()
DAY = "2026-12-01"


@pytest.fixture
def world() -> MemoryWorld:
    w = MemoryWorld()
    w.store.seed(SHOP, audit_event("shop_imported", w.clock()))
    return w


def start(world: MemoryWorld, text: str, *, again: bool = False) -> StartResult:
    request = PlanRequest(text=text, planning_day=DAY)
    return start_run(world.runtime(), StartRun(request, world.binding, timedelta(days=2), operator_plan(), again=again))


def test_a_held_request_started_with_again_closes_its_hold(world: MemoryWorld) -> None:
    start(world, TOTES)
    envelope = TOTES.replace("festival-totes-0001", "festival-totes-0002")
    with pytest.raises(PossibleDuplicateError) as held:
        start(world, envelope)
    second = start(world, envelope, again=True)
    [hold] = world.store.held_requests()
    assert (hold.held_id, hold.status, hold.started_as) == (
        held.value.held_id,
        "started",
        second.checkpoint.checkpoint_id,
    )
    assert held_requests(world.ports()) == []
    with pytest.raises(AlreadyPendingError) as again:  # that envelope's own run now answers for it
        start(world, envelope)
    assert again.value.checkpoint_id == second.checkpoint.checkpoint_id


def test_a_held_request_is_dropped_once(world: MemoryWorld) -> None:
    start(world, TOTES)
    with pytest.raises(PossibleDuplicateError) as held:
        start(world, TOTES.replace("festival-totes-0001", "festival-totes-0002"))
    dropped = drop_held(world.ports(), DropHeld(held.value.held_id, "olga@shop.example", "the same order"))
    assert (dropped.status, dropped.closed_by) == ("dropped", "olga@shop.example")
    assert [e.event_type for e in world.store.audit_events()][-1] == "request_dropped"
    assert held_requests(world.ports()) == [] and len(held_requests(world.ports(), open_only=False)) == 1


@pytest.mark.parametrize(
    ("held_id", "code"),
    [
        ("HELD-1", HeldRequestCode.HELD_ID_INVALID),
        ("held-" + "0" * 16, HeldRequestCode.NOT_FOUND),
        (None, HeldRequestCode.REQUEST_NOT_HELD),
    ],
)
def test_a_drop_refused_writes_nothing(world: MemoryWorld, held_id: str | None, code: HeldRequestCode) -> None:
    start(world, TOTES)
    with pytest.raises(PossibleDuplicateError) as held:
        start(world, TOTES.replace("festival-totes-0001", "festival-totes-0002"))
    if held_id is None:
        held_id = held.value.held_id
        drop_held(world.ports(), DropHeld(held_id, "olga@shop.example"))
    before, holds = world.snapshot(), world.store.held_requests()
    with pytest.raises(HeldRequestError) as refused:
        drop_held(world.ports(), DropHeld(held_id, "olga@shop.example"))
    assert refused.value.code is code
    assert world.snapshot() == before and world.store.held_requests() == holds
