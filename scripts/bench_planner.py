"""The planner against an independent OR-Tools CP-SAT model of the same rules: evidence/bench_planner.json.

    python scripts/bench_planner.py [--seeds 2] [--first-seed 0] [--sizes s,m,l] [--families ...] [--work 10]
    python scripts/bench_planner.py --shop horizon-l-1 [--shop ...]   one shop alone: printed, not written
    make bench-planner

Repeatable: CP-SAT's budget is work (``--work`` deterministic seconds per objective stage, interleaved workers,
a fixed seed), never wall time, so the same command proves the same shops and prints the same figures on a
loaded machine and an idle one; only the seconds differ. ``--first-seed`` reaches shops the bench's usual
seeds (0 and 1) never showed anyone: fresh shops to check the figures are not tuned to those.

For every seeded shop of every family and size (tests/support/planner_families.py) it plans the order ``NEW``
with the planner as ``start`` does (``build_proposal``, default solver budget) and with greedy alone, and
solves tests/support/cpsat_reference.py's CP-SAT model of the rules twice: with the shop's minimum split,
and without it (min_split_minutes 1). Every plan is checked by the reference's own checker and by the
planner's (domain/planning/checker.py). Reported, over the shops where CP-SAT proved its optimum:

- days late: the planner's total against the optimum's (goal 1.02x), and against the optimum without the
  minimum split (goal 1.05x); the same per family; the worst shops by days over the optimum
- at risk where the optimum is on time (goal 0); greedy's plan proposed where the optimum is on time and
  greedy is late, or the optimum is far better (goal 0)
- where both are on time: priority-weighted moved minutes (the planner's objective) and plain moved minutes
  against CP-SAT's least (goal 1.05x)
- rule breaks found by either checker (goal 0), and the planner's CPU seconds per plan

OR-Tools is a dev-only dependency (requirements-dev.txt); it is never part of a Lambda asset.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support import cpsat_reference as ref  # noqa: E402
from tests.support.planner_families import FAMILIES, PLANNING_DAY, SIZES, shop  # noqa: E402

from production_orchestrator.domain.planning.checker import Plan, violations  # noqa: E402
from production_orchestrator.domain.planning.propose import build_proposal  # noqa: E402
from production_orchestrator.domain.planning.solver import DEFAULT_NODES  # noqa: E402
from production_orchestrator.domain.shop.file_format import read_shop  # noqa: E402

GOAL_DAYS_LATE = 1.02
GOAL_DAYS_LATE_NO_SPLIT = 1.05
GOAL_MOVED = 1.05
FAR_BETTER = 1.25  # greedy's days late over the optimum's beyond this (or late where it is on time): a miss


def _plan(state: Any, nodes: int) -> dict[str, Any]:
    began = time.process_time()
    proposal = build_proposal(state, "NEW", PLANNING_DAY, solver_nodes=nodes)
    seconds = time.process_time() - began
    after = {c.order_id: {(a.day, a.machine): a.minutes for a in c.after} for c in proposal.schedule_changes}
    plan = Plan(
        state,
        state.order("NEW"),
        PLANNING_DAY,
        _earliest(proposal),
        {c.order_id: c.after for c in proposal.schedule_changes},
    )
    return {
        "proposal": proposal,
        "after": after,
        "seconds": seconds,
        "planner_checker": [str(v) for v in violations(plan)],
        "at_risk": any(r.order_id == "NEW" for r in proposal.at_risk),
        "planned_by": proposal.planned_by,
    }


def _earliest(proposal: Any) -> str:
    """The day the new order's materials can be there, as the proposal's evidence gives it."""
    days = [getattr(b, "arrives", None) for b in proposal.evidence]
    return max([PLANNING_DAY, *(d for d in days if isinstance(d, str))])


def _figures(doc: dict[str, Any], plan: dict[str, Any]) -> dict[str, Any]:
    orders = {o["id"]: o for o in doc["orders"]}
    after = plan["after"]
    placed = after.get("NEW", {})
    moved = cost = 0
    for order_id, sched in after.items():
        if order_id == "NEW":
            continue
        order = orders[order_id]
        before = {(a["day"], a["machine"]): a["minutes"] for a in order["schedule"]}
        minutes = ref.moved(before, sched)
        moved += minutes
        cost += minutes * order["priority"]
    return {
        "days_late": ref.days_late(placed, orders["NEW"]["due"]),
        "placed_all": sum(placed.values()) == orders["NEW"]["quantity"] * _unit(doc, orders["NEW"]),
        "moved_minutes": moved,
        "moved_cost": cost,
        "at_risk": plan["at_risk"],
        "planned_by": plan["planned_by"],
        "cpu_seconds": round(plan["seconds"], 3),
        "broken_rules": ref.broken_rules(doc, "NEW", PLANNING_DAY, after) + plan["planner_checker"],
    }


def _unit(doc: dict[str, Any], order: dict[str, Any]) -> int:
    return int(next(p for p in doc["products"] if p["code"] == order["product"])["minutes_per_unit"])


def one_shop(family: str, size: str, seed: int, work: float, known: dict[str, Any] | None = None) -> dict[str, Any]:
    """Planner, greedy and both CP-SAT optima on one shop (``known``: the optima a run with the same ``work`` found
    for it, reused: the reference never depends on the planner, and CP-SAT's deterministic time repeats them)."""
    doc = shop(family, size, seed)
    state = read_shop(doc)
    planner = _figures(doc, _plan(state, DEFAULT_NODES))
    greedy = _figures(doc, _plan(state, 0))
    if known is not None:
        return {**known, "planner": planner, "greedy": greedy}
    with_split = ref.reference(doc, "NEW", PLANNING_DAY, work=work)
    without = ref.reference(doc, "NEW", PLANNING_DAY, min_split=False, work=work)
    return {
        "shop": doc["name"],
        "family": family,
        "size": size,
        "orders": len(doc["orders"]),
        "machines": len(doc["machines"]),
        "planner": planner,
        "greedy": greedy,
        "optimum": with_split.__dict__,
        "optimum_no_split": without.__dict__,
    }


def _ratio(got: int, best: int) -> float | None:
    if best == 0:
        return 1.0 if got == 0 else None
    return round(got / best, 4)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The ratios and counts over ``rows`` (see the module docstring)."""
    proven = [r for r in rows if r["optimum"]["days_late_proven"]]
    late = sum(r["planner"]["days_late"] for r in proven)
    best = sum(r["optimum"]["days_late"] for r in proven)
    proven_ns = [r for r in rows if r["optimum_no_split"]["days_late_proven"]]
    late_ns = sum(r["planner"]["days_late"] for r in proven_ns)
    best_ns = sum(r["optimum_no_split"]["days_late"] for r in proven_ns)
    on_time = [r for r in rows if r["optimum"]["days_late"] == 0]
    false_at_risk = [r["shop"] for r in on_time if r["planner"]["at_risk"]]
    fallback = [
        r["shop"]
        for r in rows
        if r["optimum"]["days_late"] is not None
        and r["planner"]["planned_by"] == "greedy"
        and (
            (r["optimum"]["days_late"] == 0 and r["greedy"]["days_late"] > 0)
            or r["greedy"]["days_late"] > FAR_BETTER * max(1, r["optimum"]["days_late"])
        )
    ]
    both = [
        r
        for r in on_time
        if r["planner"]["days_late"] == 0 and r["planner"]["placed_all"] and r["optimum"]["moved_cost_proven"]
    ]
    both_minutes = [r for r in both if r["optimum"]["moved_minutes_proven"]]
    cost = sum(r["planner"]["moved_cost"] for r in both)
    best_cost = sum(r["optimum"]["moved_cost"] for r in both)
    minutes = sum(r["planner"]["moved_minutes"] for r in both_minutes)
    best_minutes = sum(r["optimum"]["moved_minutes"] for r in both_minutes)
    breaks = [(r["shop"], who, b) for r in rows for who in ("planner", "greedy") for b in r[who]["broken_rules"]]
    worst = sorted(
        (r for r in proven if r["planner"]["days_late"] > r["optimum"]["days_late"]),
        key=lambda r: (r["optimum"]["days_late"] - r["planner"]["days_late"], r["shop"]),
    )[:5]
    families: dict[str, Any] = {}
    for family in sorted({r["family"] for r in proven}):
        mine = [r for r in proven if r["family"] == family]
        families[family] = {
            "shops": len(mine),
            "days_late": sum(r["planner"]["days_late"] for r in mine),
            "optimum_days_late": sum(r["optimum"]["days_late"] for r in mine),
            "ratio": _ratio(sum(r["planner"]["days_late"] for r in mine), sum(r["optimum"]["days_late"] for r in mine)),
        }
    ratio, ratio_ns = _ratio(late, best), _ratio(late_ns, best_ns)
    cost_ratio, minutes_ratio = _ratio(cost, best_cost), _ratio(minutes, best_minutes)
    cpu = [r["planner"]["cpu_seconds"] for r in rows]
    return {
        "shops": len(rows),
        "proven_optimal": len(proven),
        "reference_found_no_plan": sum(1 for r in rows if r["optimum"]["days_late"] is None),
        "days_late": {"planner": late, "optimum": best, "ratio": ratio, "goal": GOAL_DAYS_LATE},
        "days_late_no_split": {
            "planner": late_ns,
            "optimum": best_ns,
            "ratio": ratio_ns,
            "goal": GOAL_DAYS_LATE_NO_SPLIT,
        },
        "days_late_by_family": families,
        "false_at_risk": {"count": len(false_at_risk), "shops": false_at_risk, "of_optimum_on_time": len(on_time)},
        "greedy_fallback_where_optimum_better": {"count": len(fallback), "shops": fallback},
        "moved_where_both_on_time": {
            "shops": len(both),
            "weighted_cost": {"planner": cost, "optimum": best_cost, "ratio": cost_ratio, "goal": GOAL_MOVED},
            "minutes": {"planner": minutes, "optimum": best_minutes, "ratio": minutes_ratio, "goal": GOAL_MOVED},
        },
        "rule_breaks": {"count": len(breaks), "found": [list(b) for b in breaks[:20]]},
        "worst": [
            {"shop": r["shop"], "planner": r["planner"]["days_late"], "optimum": r["optimum"]["days_late"]}
            for r in worst
        ],
        "planner_cpu_seconds": {"median": round(statistics.median(cpu), 3), "max": round(max(cpu), 3)},
        "goals_met": {
            "days_late": ratio is not None and ratio <= GOAL_DAYS_LATE,
            "days_late_no_split": ratio_ns is not None and ratio_ns <= GOAL_DAYS_LATE_NO_SPLIT,
            "no_false_at_risk": not false_at_risk,
            "no_greedy_fallback_where_optimum_better": not fallback,
            "moved_weighted": cost_ratio is not None and cost_ratio <= GOAL_MOVED,
            "moved_minutes": minutes_ratio is not None and minutes_ratio <= GOAL_MOVED,
            "no_rule_breaks": not breaks,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=2, help="shops per family and size")
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed of each family and size")
    parser.add_argument(
        "--work", type=float, default=ref.DEFAULT_WORK, help="CP-SAT deterministic seconds per objective stage"
    )
    parser.add_argument(
        "--shop", action="append", default=[], help="FAMILY-SIZE-SEED alone (repeatable); written only with --out"
    )
    parser.add_argument("--out", type=Path, default=None, help="default evidence/bench_planner.json (not with --shop)")
    parser.add_argument(
        "--reuse-reference",
        type=Path,
        default=None,
        help="take the CP-SAT optima from this earlier report (same --work) for the shops it holds; run the planner",
    )
    args = parser.parse_args(argv)
    known: dict[str, Any] = {}
    if args.reuse_reference is not None:
        earlier = json.loads(args.reuse_reference.read_text(encoding="utf-8"))
        if f"--work {args.work}" not in earlier["how"]:
            parser.error(f"{args.reuse_reference} was not run with --work {args.work}")
        known = {r["shop"]: {k: v for k, v in r.items() if k not in ("planner", "greedy")} for r in earlier["shops"]}
    chosen = [(family, size, int(seed)) for family, size, seed in (name.rsplit("-", 2) for name in args.shop)] or [
        (family, size, seed)
        for family in args.families.split(",")
        for size in args.sizes.split(",")
        for seed in range(args.first_seed, args.first_seed + args.seeds)
    ]
    out = args.out or (None if args.shop else ROOT / "evidence" / "bench_planner.json")
    rows = []
    for family, size, seed in chosen:
        row = one_shop(family, size, seed, args.work, known.get(f"{family}-{size}-{seed}"))
        rows.append(row)
        print(
            f"{row['shop']}: planner {row['planner']['days_late']}d ({row['planner']['planned_by']}), "
            f"optimum {row['optimum']['days_late']}d{'' if row['optimum']['days_late_proven'] else '?'}, "
            f"moved {row['planner']['moved_cost']} vs {row['optimum']['moved_cost']}",
            file=sys.stderr,
        )
    report = {
        "how": "python scripts/bench_planner.py "
        + (
            " ".join(f"--shop {name}" for name in args.shop)
            or f"--seeds {args.seeds} --first-seed {args.first_seed} --sizes {args.sizes} --families {args.families}"
        )
        + f" --work {args.work}"
        + (f" --reuse-reference {args.reuse_reference} (the CP-SAT optima of that run)" if known else ""),
        "reference": "OR-Tools CP-SAT (tests/support/cpsat_reference.py), written from the rules, not the planner",
        "planner_solver_nodes": DEFAULT_NODES,
        "summary": summarize(rows),
        "shops": [
            {k: v for k, v in r.items() if k not in ("planner", "greedy")}
            | {"planner": {k: v for k, v in r["planner"].items()}, "greedy": r["greedy"]}
            for r in rows
        ],
    }
    if out is not None:
        out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(report["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
