"""Pending plans hold what they book (domain/planning/holds.py), on both stores: two requests planned side by side
on the same free capacity never book it twice, so approving both stales neither and overbooks nothing; when the
first is rejected its hold ends and the second still applies as it was planned."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.aws.s3_sessions import S3SessionStore
from production_orchestrator.adapters.local.mac_key import FileMacKey
from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.planning.proposal import ProposalContent
from production_orchestrator.domain.records import parse_utc
from production_orchestrator.domain.shop.model import ShopState
from production_orchestrator.services.asking.request_approval import operator_plan
from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct
from production_orchestrator.services.runs.plan_request import PlanRequest
from production_orchestrator.services.runs.start import StartResult, StartRun, start_run
from production_orchestrator.services.runtime import Runtime
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.moto_aws import AwsWorld
from tests.support.policy_model import BINDING, Clock, sqlite_worlds
from tests.support.week_model import DAY, SHOP, WINDOW, _totes

# Two customers, one product: each order alone fits the free capacity the other would take.
FIRST, SECOND = _totes(1, 400), _totes(2, 390)


def _on_table(aws: AwsWorld, key_dir: Path) -> Callable[[Clock], Runtime]:
    """The week model's DynamoDB runtime (tests/support/policy_model.py) on this test's own table and bucket."""
    key_dir.mkdir(parents=True, exist_ok=True)
    key = FileMacKey(key_dir / "receipt.key")

    def runtime(clock: Clock) -> Runtime:
        return Runtime(
            store=DynamoShopStore(aws.dynamodb, aws.table, audit_key=key),
            sessions=S3SessionStore(aws.bucket, aws.prefix, aws.session),
            clock=clock,
            pid=os.getpid(),
            approvals=DynamoApprovalStore(aws.dynamodb, aws.table),
            receipt_key=key,
        )

    return runtime


@pytest.fixture(params=["sqlite", "dynamodb"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Runtime]:
    if request.param == "sqlite":
        new_world = sqlite_worlds(tmp_path)()
    else:
        new_world = _on_table(request.getfixturevalue("aws"), tmp_path / "keys")
    clock = Clock()
    clock.now = parse_utc("2026-12-01T07:00:00Z")
    rt = new_world(clock)
    import_shop(rt, ImportShop(SHOP))
    yield rt


def _start(rt: Runtime, text: str) -> StartResult:
    return start_run(rt, StartRun(PlanRequest(text, DAY), BINDING, WINDOW, operator_plan()))


def _decide(rt: Runtime, run: StartResult, approve: bool) -> str:
    request = ResumeRequest(run.checkpoint.checkpoint_id, approve, run.checkpoint.proposal_hash)
    decided = ResumeDirect(request, BINDING, approver="operator", reason="" if approve else "no")
    return resume_direct(rt, decided).outcome


def _shop(rt: Runtime) -> ShopState:
    state = rt.store.load_state()
    assert state is not None
    return state


def _over_capacity(state: ShopState) -> list[str]:
    found = []
    for machine_id, day in {(a.machine, a.day) for o in state.orders for a in o.schedule}:
        machine = state.machine(machine_id)
        assert machine is not None
        if state.booked_minutes(machine_id, day) > machine.minutes_on(day):
            found.append(f"{machine_id} {day}")
    return found


def _slots(proposal: ProposalContent) -> set[tuple[str, str]]:
    return {(a.machine, a.day) for a in proposal.new_schedule()}


def _free(state: ShopState, machine: str, day: str) -> int:
    m = state.machine(machine)
    assert m is not None
    return m.minutes_on(day) - state.booked_minutes(machine, day)


def test_two_plans_on_the_same_free_capacity_both_apply(world: Runtime) -> None:
    rt = world
    shop = _shop(rt)
    first = _start(rt, FIRST)
    second = _start(rt, SECOND)
    a, b = first.proposal, second.proposal
    assert not a.held_capacity, "the first plan was made with nothing pending"
    # The second plan books none of the minutes the first books beyond what is free alongside them, and says so.
    held = {(h.machine, h.day): h.minutes for h in b.held_capacity}
    assert held and {h.by for h in b.held_capacity} == {a.target_order.id}
    for slot in _slots(a) & _slots(b):
        mine = sum(x.minutes for x in b.new_schedule() if (x.machine, x.day) == slot)
        assert mine <= _free(shop, *slot) - held[slot], f"{slot} booked twice"
    assert f"held by pending plan {a.target_order.id}" in b.summary()
    assert _decide(rt, first, True) == "applied"
    assert _decide(rt, second, True) == "applied"  # not stale: it only used what the first left free
    after = _shop(rt)
    assert _over_capacity(after) == []
    assert after.order(b.target_order.id).schedule == b.new_schedule()  # type: ignore[union-attr]
    assert rt.store.application_count() == 2


def test_a_rejected_plan_holds_nothing_and_the_plan_made_around_it_applies(world: Runtime) -> None:
    rt = world
    first = _start(rt, FIRST)
    second = _start(rt, SECOND)
    assert second.proposal.held_capacity
    assert _decide(rt, first, False) == "rejected"
    assert _decide(rt, second, True) == "applied"
    after = _shop(rt)
    assert _over_capacity(after) == []
    assert after.order(first.proposal.target_order.id) is None
    assert rt.store.application_count() == 1
    third = _start(rt, _totes(3, 150))  # nothing pending any more: nothing held
    assert not third.proposal.held_capacity and not third.proposal.held_stock
