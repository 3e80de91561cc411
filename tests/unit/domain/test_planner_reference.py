"""The quality bench's independent reference (tests/support/cpsat_reference.py, OR-Tools CP-SAT, dev-only):
its optimum and its own checker agree with the planner on small seeded shops, and its checker names breaks."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.shop.file_format import read_shop
from tests.support import cpsat_reference as ref
from tests.support.planner_families import PLANNING_DAY, shop

pytest.importorskip("ortools")


def _after(doc: dict[str, object]) -> tuple[dict[str, dict[tuple[str, str], int]], bool]:
    proposal = build_proposal(read_shop(doc), "NEW", PLANNING_DAY)
    after = {c.order_id: {(a.day, a.machine): a.minutes for a in c.after} for c in proposal.schedule_changes}
    return after, any(r.order_id == "NEW" for r in proposal.at_risk)


@pytest.mark.parametrize(("family", "seed"), [("tight", 0), ("chain", 0), ("materials", 1), ("small", 0)])
def test_the_planner_meets_the_cp_sat_optimum_and_keeps_the_references_rules(family: str, seed: int) -> None:
    doc = shop(family, "s", seed)
    after, at_risk = _after(doc)
    best = ref.reference(doc, "NEW", PLANNING_DAY, work=20)
    assert best.days_late is not None and best.days_late_proven
    assert ref.broken_rules(doc, "NEW", PLANNING_DAY, after) == []
    due = next(o["due"] for o in doc["orders"] if o["id"] == "NEW")
    assert ref.days_late(after["NEW"], due) == best.days_late
    assert at_risk == (best.days_late > 0)


def test_the_references_checker_names_a_remnant_under_the_minimum_split() -> None:
    doc = shop("tight", "s", 0)
    after, _ = _after(doc)
    moved = next((k for k in after if k != "NEW"), None)
    assert moved is not None
    order = next(o for o in doc["orders"] if o["id"] == moved)
    first = order["schedule"][0]
    unit = next(p["minutes_per_unit"] for p in doc["products"] if p["code"] == order["product"])
    broken = dict(after)
    # one unit left behind on its first machine-day, the rest where the planner put it
    broken[moved] = {**after[moved], (first["day"], first["machine"]): unit}
    assert any(b.startswith(f"min split {moved}") for b in ref.broken_rules(doc, "NEW", PLANNING_DAY, broken))
