"""The solver is imported only when it could do better: a request greedy places on time, moving nothing, is
planned without loading domain/planning/solver.py (a fresh interpreter tells which modules a plan loaded)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import json, sys
from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY
from production_orchestrator.domain.shop.file_format import read_shop, write_shop

scenario = SCENARIOS["rush-order"]
document = write_shop(scenario.state)
if sys.argv[1] == "room":  # thread enough, and the standard order's day left free: the rush fits as it is
    document["materials"] = [{**m, "on_hand": 5000} for m in document["materials"]]
    document["orders"] = [{**o, "schedule": []} for o in document["orders"]]
state = read_shop(document).with_order(scenario.target_order())
proposal = build_proposal(state, scenario.target_order_id, TODAY)
loaded = "production_orchestrator.domain.planning.solver" in sys.modules
print(json.dumps({"planned_by": proposal.planned_by, "moved": len(proposal.schedule_changes), "solver": loaded}))
"""


def _plan(case: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, case],
        capture_output=True, text=True, check=True, timeout=120, env={"PYTHONPATH": str(ROOT / "functions")},
    )  # fmt: skip
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_an_order_greedy_places_on_time_moving_nothing_never_loads_the_solver() -> None:
    found = _plan("room")
    assert found["planned_by"] == "greedy" and found["solver"] is False, found


def test_an_order_that_needs_moves_asks_the_solver() -> None:
    found = _plan("seed")
    assert found["solver"] is True, found
