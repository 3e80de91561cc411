"""Planning figures for evidence/bench.json: the planner on generated shops over a 90-day horizon.

    python scripts/bench_planning.py [--runs 5] [--update evidence/bench.json]

Shops of 5 machines / 100 open orders, 20 / 1,000 and 50 / 5,000, each booked to about 70% of its
capacity over 90 days (orders split over days and machines, due dates after their schedule), and an
urgent new order that only fits by moving lower-priority work. For each: the median CPU time of
``build_proposal`` (blockers, placement, moves, procurement, drafts and both digests), the peak memory
Python allocated during one plan (tracemalloc), the shop's size as canonical JSON, and how time grows
against orders x horizon. ``make bench`` runs it as one of its steps.

The optimizing planner (domain/planning/solver.py) is what ``build_proposal`` runs, so those times include
it; the greedy plan alone is timed beside it (``solver_nodes=0``), and the peak resident memory of a fresh
process planning once is read from the OS (tracemalloc does not see HiGHS's own allocations).

Quality (``--quality N``): N seeded generated shops of 2-6 machines and 5-40 orders over 90 days, each
planned by greedy, by the solver at its default budget, and by a reference solve of the same model with a
generous budget (REFERENCE_NODES per stage, REFERENCE_CANDIDATES movable orders): the share of at-risk
verdicts where the reference is on time (goal 0), and total lateness and moved minutes against the
reference (goal within 1.05x). The reference is our own HiGHS model, not an independent CP-SAT model.

    python scripts/bench_planning.py --sizes 5x100,20x1000 --runs 3 --quality 40 --update evidence/bench.json
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support.generated_shops import PLANNING_DAY, generate  # noqa: E402

from production_orchestrator.domain.canonical import canonical_bytes  # noqa: E402
from production_orchestrator.domain.planning import mip, rules, solver  # noqa: E402
from production_orchestrator.domain.planning.greedy import HORIZON_DAYS  # noqa: E402
from production_orchestrator.domain.planning.propose import apply_proposal, build_proposal  # noqa: E402
from production_orchestrator.domain.shop.file_format import read_shop  # noqa: E402
from production_orchestrator.domain.shop.model import ShopState  # noqa: E402

SIZES = ((5, 100), (20, 1_000), (50, 5_000))
# The goals: median plan CPU time per size (machines, orders) and peak memory of a plan (CPU seconds:
# the machine is shared, so wall time is not the figure; each also as a ratio to greedy alone in the same run).
GOAL_SECONDS = {(20, 1_000): 0.5, (50, 5_000): 3.0}
GOAL_MB = 200
REFERENCE_NODES, REFERENCE_CANDIDATES = 5_000, 200


def _plan_once(state: ShopState, nodes: int = solver.DEFAULT_NODES) -> tuple[float, Any]:
    began = time.process_time()
    proposal = build_proposal(state, "URGENT", PLANNING_DAY, solver_nodes=nodes)
    return time.process_time() - began, proposal


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_rss(machines: int, orders: int) -> dict[str, float]:
    """Peak resident memory of a fresh process: after reading the shop, and after planning once."""
    done = subprocess.run(
        [sys.executable, __file__, "--rss", f"{machines}x{orders}"], capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout))


def _rss_child(machines: int, orders: int) -> None:
    state = read_shop(generate(machines, orders))
    loaded = _rss_mb()
    _plan_once(state)
    print(json.dumps({"after_read_shop_mb": round(loaded, 1), "after_plan_mb": round(_rss_mb(), 1)}))


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
    greedy_times = [_plan_once(state, nodes=0)[0] for _ in range(runs)]
    tracemalloc.start()
    _plan_once(state)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = peak_rss(machines, orders)
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
        "plan_vs_greedy_ratio": round(statistics.median(times) / max(statistics.median(greedy_times), 1e-6), 2),
        "plan_peak_mb": round(peak / 1_048_576, 1),
        "plan_peak_rss_mb": rss["after_plan_mb"],
        "read_shop_peak_rss_mb": rss["after_read_shop_mb"],
        "planned_by": proposal.planned_by,
        "greedy_seconds_median": round(statistics.median(greedy_times), 4),
        "plan_moves": len(proposal.schedule_changes) - 1,
        "plan_at_risk": len(proposal.at_risk),
        "apply_matches_result_digest": after.digest() == proposal.result_digest,
    }


def _figures(state: ShopState, nodes: int) -> tuple[bool, int, int]:
    """(new order at risk, its days late, moved minutes) of the plan built with ``nodes``."""
    proposal = build_proposal(state, "URGENT", PLANNING_DAY, solver_nodes=nodes)
    after = {c.order_id: c.after for c in proposal.schedule_changes}
    target = state.order("URGENT")
    assert target is not None
    moved = sum(
        rules.moved_minutes(o.schedule, after[o.id]) for o in state.orders if o.id in after and o.id != "URGENT"
    )
    late = rules.lateness(after["URGENT"], target.due)[0]
    return any(r.order_id == "URGENT" for r in proposal.at_risk), late, moved


def quality(shops: int) -> dict[str, Any]:
    """Greedy, the solver at its default budget and a generous reference solve on ``shops`` seeded shops."""
    rows = []
    for seed in range(shops):
        state = read_shop(generate(2 + seed % 5, 5 + (seed * 7) % 36, seed=1_000 + seed))
        figures = {"greedy": _figures(state, 0), "solver": _figures(state, solver.DEFAULT_NODES)}
        default_candidates = mip.MAX_CANDIDATES
        mip.MAX_CANDIDATES = REFERENCE_CANDIDATES
        try:
            figures["reference"] = _figures(state, REFERENCE_NODES)
        finally:
            mip.MAX_CANDIDATES = default_candidates
        rows.append(figures)
    report: dict[str, Any] = {"shops": shops, "reference_nodes": REFERENCE_NODES}
    for who in ("greedy", "solver"):
        at_risk = [r for r in rows if r[who][0]]
        wrong = [r for r in at_risk if not r["reference"][0]]
        late, moved = sum(r[who][1] for r in rows), sum(r[who][2] for r in rows)
        ref_late, ref_moved = sum(r["reference"][1] for r in rows), sum(r["reference"][2] for r in rows)
        report[who] = {
            "at_risk_verdicts": len(at_risk),
            "at_risk_where_reference_on_time": len(wrong),
            "share_at_risk_where_reference_on_time": round(len(wrong) / len(at_risk), 3) if at_risk else 0.0,
            "total_days_late": late,
            "total_moved_minutes": moved,
            "days_late_vs_reference": round(late / ref_late, 3) if ref_late else (1.0 if not late else None),
            "moved_minutes_vs_reference": round(moved / ref_moved, 3) if ref_moved else (1.0 if not moved else None),
        }
    report["reference"] = {
        "at_risk_verdicts": sum(1 for r in rows if r["reference"][0]),
        "total_days_late": sum(r["reference"][1] for r in rows),
        "total_moved_minutes": sum(r["reference"][2] for r in rows),
    }
    return report


def run(runs: int, sizes: tuple[tuple[int, int], ...] = SIZES, shops: int = 0) -> dict[str, Any]:
    """Every size with its goal, how time grows against orders x horizon, and (``shops`` > 0) quality."""
    measured = [measure(m, o, runs) for m, o in sizes]
    largest, smallest = measured[-1], measured[0]
    work = (largest["orders"] * HORIZON_DAYS) / (smallest["orders"] * HORIZON_DAYS)
    growth = largest["plan_seconds_median"] / smallest["plan_seconds_median"]
    for size in measured:
        goal = GOAL_SECONDS.get((size["machines"], size["orders"] - 1))
        size["goal"] = (
            f"median CPU under {goal} s, peak RSS under {GOAL_MB} MB" if goal else f"peak RSS under {GOAL_MB} MB"
        )
        size["goal_met"] = size["plan_peak_rss_mb"] < GOAL_MB and (goal is None or size["plan_seconds_median"] < goal)
    report: dict[str, Any] = {
        "sizes": measured,
        "sizes_run": [f"{m}x{o}" for m, o in sizes],
        "goal_met": all(s["goal_met"] for s in measured),
        "time_growth_smallest_to_largest": round(growth, 1),
        "orders_x_horizon_growth": round(work, 1),
        "grows_no_faster_than_orders_x_horizon": growth <= work,
        "solver_default_nodes": solver.DEFAULT_NODES,
    }
    if shops:
        report["quality"] = quality(shops)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default=",".join(f"{m}x{o}" for m, o in SIZES), help="e.g. 5x100,20x1000")
    parser.add_argument("--quality", type=int, default=400, help="seeded shops for the quality figures (0: none)")
    parser.add_argument("--rss", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--update", type=Path, default=None, help="merge the figures into this bench.json")
    args = parser.parse_args(argv)
    if args.rss:
        _rss_child(*(int(n) for n in args.rss.split("x")))
        return 0
    sizes = tuple((int(m), int(o)) for m, o in (size.split("x") for size in args.sizes.split(",")))
    report = run(args.runs, sizes, args.quality)
    print(json.dumps(report, indent=2))
    if args.update is not None:
        existing = json.loads(args.update.read_text()) if args.update.exists() else {}
        existing["planning"] = report
        args.update.write_text(json.dumps(existing, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
