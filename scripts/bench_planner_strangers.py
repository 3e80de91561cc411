"""The planner against the CP-SAT reference on shops a stranger generated (evidence/planner_strangers/: its own
generator, written from the shop-file docs only, never from the planner's code; ``gen.py 41`` writes the shops):
planner, greedy and both optima on each (the NEW order, planning day 2027-03-01), the bench's summary to
evidence/bench_planner_strangers.json.

    .venv/bin/python scripts/bench_planner_strangers.py [--work 10] [--out evidence/bench_planner_strangers.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "functions"), str(ROOT), str(ROOT / "scripts")]

import bench_planner as bp  # noqa: E402
from tests.support import cpsat_reference as ref  # noqa: E402

from production_orchestrator.domain.shop.file_format import read_shop  # noqa: E402

SHOPS = ROOT / "evidence" / "planner_strangers" / "shops"
PLANNING_DAY = "2027-03-01"


def one(path: Path, work: float) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.setdefault("name", path.stem)
    state = read_shop(doc)
    return {
        "shop": path.stem,
        "family": path.stem.rsplit("-", 1)[0],
        "size": "stranger",
        "orders": len(doc["orders"]),
        "machines": len(doc["machines"]),
        "planner": bp._figures(doc, bp._plan(state, bp.DEFAULT_NODES)),
        "greedy": bp._figures(doc, bp._plan(state, 0)),
        "optimum": ref.reference(doc, "NEW", PLANNING_DAY, work=work).__dict__,
        "optimum_no_split": ref.reference(doc, "NEW", PLANNING_DAY, min_split=False, work=work).__dict__,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=float, default=ref.DEFAULT_WORK)
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "bench_planner_strangers.json")
    args = parser.parse_args(argv)
    bp.PLANNING_DAY = PLANNING_DAY  # the stranger's shops plan from this day
    rows = [one(path, args.work) for path in sorted(SHOPS.glob("*.json"))]
    report = {
        "how": f"python scripts/bench_planner_strangers.py --work {args.work}",
        "shops_from": "evidence/planner_strangers/gen.py 41 (written by someone who never read the planner)",
        "reference": "OR-Tools CP-SAT (tests/support/cpsat_reference.py), written from the rules, not the planner",
        "summary": bp.summarize(rows),
        "shops": rows,
    }
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    print(json.dumps(report["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
