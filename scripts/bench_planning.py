"""Planning figures for evidence/bench.json: the planner on generated shops over a 90-day horizon.

    python scripts/bench_planning.py [--runs 5] [--update evidence/bench.json]

Shops of 5 machines / 100 open orders, 20 / 1,000 and 50 / 5,000, each booked to about 70% of its
capacity over 90 days (orders split over days and machines, due dates after their schedule), and an
urgent new order that only fits by moving lower-priority work. For each: the median time of
``build_proposal`` (blockers, placement, moves, procurement, drafts and both digests), the peak memory
Python allocated during one plan (tracemalloc), the shop's size as canonical JSON, and how time grows
against orders x horizon. ``make bench`` runs it as one of its steps.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support.generated_shops import PLANNING_DAY, generate  # noqa: E402

from production_orchestrator.domain.canonical import canonical_bytes  # noqa: E402
from production_orchestrator.domain.planning.greedy import HORIZON_DAYS  # noqa: E402
from production_orchestrator.domain.planning.propose import apply_proposal, build_proposal  # noqa: E402
from production_orchestrator.domain.shop.file_format import read_shop  # noqa: E402
from production_orchestrator.domain.shop.model import ShopState  # noqa: E402

SIZES = ((5, 100), (20, 1_000), (50, 5_000))
GOAL_SECONDS, GOAL_MB = 1.0, 300


def _plan_once(state: ShopState) -> tuple[float, Any]:
    began = time.perf_counter()
    proposal = build_proposal(state, "URGENT", PLANNING_DAY)
    return time.perf_counter() - began, proposal


def measure(machines: int, orders: int, runs: int) -> dict[str, Any]:
    """One shop size: plan time (median of ``runs``), peak memory of one plan, and what the plan did."""
    doc = generate(machines, orders)
    began = time.perf_counter()
    state = read_shop(doc)
    load_seconds = time.perf_counter() - began
    times, proposal = [], None
    for _ in range(runs):
        took, proposal = _plan_once(state)
        times.append(took)
    tracemalloc.start()
    _plan_once(state)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert proposal is not None
    after = apply_proposal(state, proposal)
    scheduled = sum(1 for o in state.orders if o.schedule)
    return {
        "machines": machines,
        "orders": len(state.orders),
        "scheduled_orders": scheduled,
        "allocations": sum(len(o.schedule) for o in state.orders),
        "horizon_days": HORIZON_DAYS,
        "shop_canonical_bytes": len(canonical_bytes(state.to_canonical())),
        "read_shop_seconds": round(load_seconds, 4),
        "plan_seconds_median": round(statistics.median(times), 4),
        "plan_seconds_all": [round(t, 4) for t in times],
        "plan_peak_mb": round(peak / 1_048_576, 1),
        "plan_moves": len(proposal.schedule_changes) - 1,
        "plan_at_risk": len(proposal.at_risk),
        "apply_matches_result_digest": after.digest() == proposal.result_digest,
    }


def run(runs: int) -> dict[str, Any]:
    """Every size, the goal for the largest, and how time grows against orders x horizon."""
    sizes = [measure(m, o, runs) for m, o in SIZES]
    largest, smallest = sizes[-1], sizes[0]
    work = (largest["orders"] * HORIZON_DAYS) / (smallest["orders"] * HORIZON_DAYS)
    growth = largest["plan_seconds_median"] / smallest["plan_seconds_median"]
    return {
        "sizes": sizes,
        "goal": f"largest under {GOAL_SECONDS} s and {GOAL_MB} MB",
        "goal_met": largest["plan_seconds_median"] < GOAL_SECONDS and largest["plan_peak_mb"] < GOAL_MB,
        "time_growth_smallest_to_largest": round(growth, 1),
        "orders_x_horizon_growth": round(work, 1),
        "grows_no_faster_than_orders_x_horizon": growth <= work,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--update", type=Path, default=None, help="merge the figures into this bench.json")
    args = parser.parse_args(argv)
    report = run(args.runs)
    print(json.dumps(report, indent=2))
    if args.update is not None:
        existing = json.loads(args.update.read_text()) if args.update.exists() else {}
        existing["planning"] = report
        args.update.write_text(json.dumps(existing, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
