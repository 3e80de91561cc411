"""What a start plans: a reference scenario, the data dir's own shop, or the same request again; the shop it
plans on is read without writing anything, and a data dir holding another shop is refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from production_orchestrator.domain.errors import ShopError
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.services.runs.plan_request import PlanRequest, on_current_shop, shop_for
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.memory_world import MemoryWorld

RUSH = SCENARIOS["rush-order"]


def test_a_scenario_plans_its_own_email_on_its_own_day_unless_told_otherwise() -> None:
    plain = PlanRequest.of_scenario("rush-order")
    assert (plain.text, plain.planning_day, plain.scenario) == (RUSH.customer_email, RUSH.planning_day, "rush-order")
    other = PlanRequest.of_scenario("rush-order", text="Need 10 more", planning_day="2026-08-13")
    assert (other.text, other.planning_day, other.scenario) == ("Need 10 more", "2026-08-13", "rush-order")


def test_the_current_shop_defaults_to_today_in_the_shops_time_zone(world: MemoryWorld) -> None:
    import_shop(world.ports(), ImportShop(RUSH.state))
    # 23:30 UTC on the 11th is already the 12th in Berlin (the scenario shop's zone).
    late = datetime(2026, 8, 11, 23, 30, tzinfo=UTC)
    assert on_current_shop(world.ports(clock=lambda: late), "text", None).planning_day == "2026-08-12"
    assert on_current_shop(world.ports(clock=lambda: late), "text", "2026-09-01").planning_day == "2026-09-01"


def test_no_shop_to_plan_on_is_refused_and_writes_nothing(world: MemoryWorld) -> None:
    before = world.snapshot()
    with pytest.raises(ShopError, match="import one"):
        on_current_shop(world.ports(), "text", None)
    with pytest.raises(ShopError, match="import one"):
        shop_for(world.ports(), PlanRequest(text="text", planning_day="2026-08-12"))
    assert world.snapshot() == before


def test_a_scenario_on_a_data_dir_holding_another_shop_is_refused(world: MemoryWorld) -> None:
    import_shop(world.ports(), ImportShop(SCENARIOS["team-jerseys"].state))
    before = world.snapshot()
    with pytest.raises(ShopError, match="team-jerseys"):
        shop_for(world.ports(), PlanRequest.of_scenario("rush-order"))
    assert world.snapshot() == before


def test_a_scenario_plans_on_the_stored_shop_once_it_is_there(world: MemoryWorld) -> None:
    assert shop_for(world.ports(), PlanRequest.of_scenario("rush-order")) == RUSH.state  # not written yet
    counted = RUSH.state.with_inventory(RUSH.state.materials[0].id, 1)
    import_shop(world.ports(), ImportShop(counted))
    assert shop_for(world.ports(), PlanRequest.of_scenario("rush-order")).digest() == counted.digest()


def test_again_replans_the_same_request_on_the_same_day(world: MemoryWorld) -> None:
    started = world.start()
    again = PlanRequest.again(started.checkpoint, started.proposal)
    assert (again.text, again.planning_day) == (started.proposal.request_text, started.proposal.planning_day)
    assert again.scenario == started.checkpoint.scenario
    later = PlanRequest.again(started.checkpoint, started.proposal, "2026-08-14")
    assert later.planning_day == "2026-08-14"  # its day has passed: proposed again from today
