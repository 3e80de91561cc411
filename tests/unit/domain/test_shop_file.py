"""Reading a shop file: every problem is named by its JSON path and the id of the record it is in, and nothing
partial is ever returned."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.domain.errors import ShopFileError
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop.file_format import read_shop, shop_problems, write_shop

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE: dict[str, Any] = {
    "name": "Print Co",
    "timezone": "Europe/Berlin",
    "machines": [
        {"id": "PRESS-A", "minutes_per_day": 480, "closed_days": ["2026-12-25"]},
        {"id": "PRESS-B", "minutes_per_day": 480, "weekdays": ["mon", "tue", "wed", "thu", "fri"]},
        {"id": "CUTTER", "minutes_per_day": 480},
    ],
    "materials": [{"id": "INK-NAVY", "on_hand": 1000, "supplier_email": "ink@supply.example", "lead_time_days": 2}],
    "products": [
        {
            "code": "TOTE-NAVY",
            "description": "navy tote",
            "machines": ["PRESS-A", "PRESS-B"],
            "minutes_per_unit": 2,
            "materials": [{"id": "INK-NAVY", "per_unit": 5}],
        },
    ],
    "orders": [
        {
            "id": "ORD-1001",
            "customer": "Cafe",
            "customer_email": "c@cafe.example",
            "product": "TOTE-NAVY",
            "quantity": 120,
            "due": "2026-12-04",
            "priority": 40,
            "schedule": [{"machine": "PRESS-A", "day": "2026-12-02", "minutes": 240}],
        },
    ],
}


def problems_of(doc: Any) -> list[tuple[str, str]]:
    with pytest.raises(ShopFileError) as caught:
        read_shop(doc)
    return caught.value.problems


def edited(**paths: Any) -> dict[str, Any]:
    doc = copy.deepcopy(EXAMPLE)
    for path, value in paths.items():
        target: Any = doc
        *parents, last = path.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return doc


def test_the_issue_example_is_a_shop() -> None:
    state = read_shop(EXAMPLE)
    assert state.order("ORD-1001").schedule[0].minutes == 240  # type: ignore[union-attr]
    assert read_shop(write_shop(state)) == state


@pytest.mark.parametrize(
    ("doc", "path", "words"),
    [
        (edited(machines__1__id="PRESS-A"), "$.machines[1] (PRESS-A).id", "duplicate id"),
        (edited(orders__0__product="MUG"), "$.orders[0] (ORD-1001).product", "unknown product"),
        (
            edited(products__0__machines=["PRESS-A", "LASER"]),
            "$.products[0] (TOTE-NAVY).machines[1]",
            "unknown machine",
        ),
        (
            edited(products__0__materials=[{"id": "INK-RED", "per_unit": 1}]),
            "$.products[0] (TOTE-NAVY).materials[0].id",
            "unknown material",
        ),
        (
            edited(orders__0__schedule__0__machine="CUTTER"),
            "$.orders[0] (ORD-1001).schedule[0].machine",
            "cannot make TOTE-NAVY",
        ),
        (
            edited(orders__0__schedule__0__machine="GHOST"),
            "$.orders[0] (ORD-1001).schedule[0].machine",
            "unknown machine",
        ),
        (edited(orders__0__schedule__0__day="2026-12-25"), "$.orders[0] (ORD-1001).schedule[0].day", "a closed day"),
        (
            edited(orders__0__schedule__0__machine="PRESS-B", orders__0__schedule__0__day="2026-12-05"),
            "$.orders[0] (ORD-1001).schedule[0].day",
            "sat",
        ),
        (edited(orders__0__quantity=-5), "$.orders[0] (ORD-1001).quantity", "positive"),
    ],
)
def test_each_problem_is_named_by_its_path(doc: dict[str, Any], path: str, words: str) -> None:
    found = problems_of(doc)
    assert any(p == path and words in m for p, m in found), found


def test_every_problem_is_listed_at_once() -> None:
    doc = edited(machines__1__id="PRESS-A", orders__0__product="MUG", timezone="Mars/Olympus")
    doc["orders"].append(copy.deepcopy(EXAMPLE["orders"][0]))
    paths = {p for p, _ in problems_of(doc)}
    assert {"$.machines[1] (PRESS-A).id", "$.orders[0] (ORD-1001).product", "$.orders[1] (ORD-1001).id"} <= paths


def test_bad_types_and_ranges_are_named_without_a_schema() -> None:
    paths = {p for p, _ in problems_of(edited(timezone="Mars/Olympus", orders__0__due="2026-02-30"))}
    assert {"$.timezone", "$.orders[0] (ORD-1001).due"} <= paths


def test_a_record_without_a_usable_id_is_named_by_its_path_alone() -> None:
    doc = edited(orders__0__product="MUG")
    doc["orders"][0]["id"] = "bad id with spaces"
    doc["orders"].append({"customer": "no id", "product": "MUG"})
    found = dict(problems_of(doc))
    assert found["$.orders[0] ('bad id with spaces').product"] == "unknown product 'MUG'"
    assert found["$.orders[1].product"] == "unknown product 'MUG'"


def test_a_schedule_may_hold_only_the_remaining_work() -> None:
    # 120 totes take 240 minutes; 60 already made: the schedule books the other 120.
    state = read_shop(edited(orders__0__schedule__0__minutes=120))
    assert state.order("ORD-1001").scheduled_minutes == 120  # type: ignore[union-attr]


def test_overbooked_machine_day_is_refused() -> None:
    doc = copy.deepcopy(EXAMPLE)
    second = copy.deepcopy(doc["orders"][0])
    second.update(id="ORD-1002", quantity=150, schedule=[{"machine": "PRESS-A", "day": "2026-12-02", "minutes": 300}])
    doc["orders"].append(second)
    assert ("$.orders[1] (ORD-1002).schedule[0]", "PRESS-A is booked 540 of 480 minutes on 2026-12-02") in problems_of(
        doc
    )


def test_problems_never_crash_on_a_malformed_document() -> None:
    for doc in ([], "x", {"machines": "no"}, {"orders": [1, None, {"schedule": [None, {"machine": 3}]}]}):
        assert isinstance(shop_problems(doc), list)
        with pytest.raises(ShopFileError):
            read_shop(doc)


def test_scenario_files_are_valid_shop_files() -> None:
    for chosen in SCENARIOS.values():
        assert chosen.state.orders and chosen.state.digest() == read_shop(write_shop(chosen.state)).digest()


def test_docs_schema_is_the_one_the_importer_uses() -> None:
    shipped = ROOT / "functions" / "production_orchestrator" / "cli" / "shop.schema.json"
    assert json.loads((ROOT / "docs" / "shop.schema.json").read_text()) == json.loads(shipped.read_text())


def test_a_planning_cutoff_plans_from_the_next_day_and_is_validated() -> None:
    from datetime import UTC, datetime

    from production_orchestrator.domain.errors import ShopFileError
    from production_orchestrator.domain.scenarios import SCENARIOS
    from production_orchestrator.domain.shop.file_format import read_shop, write_shop

    document = write_shop(SCENARIOS["rush-order"].state)
    assert "planning_cutoff" not in document  # absent by default: every request is planned from today
    shop = read_shop({**document, "planning_cutoff": "14:00"})
    assert shop.digest() != SCENARIOS["rush-order"].state.digest() and write_shop(shop)["planning_cutoff"] == "14:00"
    assert read_shop(document).digest() == SCENARIOS["rush-order"].state.digest()
    morning, afternoon = datetime(2026, 8, 12, 11, 59, tzinfo=UTC), datetime(2026, 8, 12, 12, 0, tzinfo=UTC)
    assert shop.timezone == "Europe/Berlin"  # 13:59 and 14:00 there
    assert (shop.planning_day(morning), shop.planning_day(afternoon)) == ("2026-08-12", "2026-08-13")
    assert SCENARIOS["rush-order"].state.planning_day(afternoon) == "2026-08-12"
    for bad in ("24:00", "2pm", "14:0"):
        try:
            read_shop({**document, "planning_cutoff": bad})
        except ShopFileError as refused:
            assert "planning_cutoff" in str(refused)
        else:
            raise AssertionError(f"{bad} was read")
