"""How long the intake takes on hostile e-mails at the length limit (tests/support/hostile_mail.py), against the
same inputs at a quarter of the size: a pattern that is linear takes about 4x as long on 4x the input, a quadratic
one 16x. Medians of CPU time over repeated runs, written to evidence/intake_hostile.json.

    .venv/bin/python scripts/bench_intake_hostile.py [--repeat 3] [--out evidence/intake_hostile.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "functions"), str(ROOT)]

from tests.support.hostile_mail import HOSTILE  # noqa: E402

from production_orchestrator.domain.errors import IntakeError  # noqa: E402
from production_orchestrator.domain.intake.customer_message import read_message  # noqa: E402
from production_orchestrator.domain.intake.facts import read_facts, resolve_request  # noqa: E402
from production_orchestrator.domain.scenarios import SCENARIOS  # noqa: E402

SHOP = SCENARIOS["team-jerseys"].state
DAY = "2026-08-10"


def _once(raw: str) -> tuple[float, str]:
    start = time.process_time()
    try:
        message = read_message(raw)
        facts = read_facts(message, SHOP.products, message.sent_day or date.fromisoformat(DAY))
        order = resolve_request(message, facts, SHOP, DAY)
        verdict = f"read: {order.product} {order.quantity} {order.due}"
    except IntakeError as exc:
        verdict = f"refused: {exc.code}"
    return time.process_time() - start, verdict


def _quarter(raw: str) -> str:
    head, sep, body = raw.partition("\n\n")
    return head + sep + body[len(body) * 3 // 4 :] if sep else raw[len(raw) * 3 // 4 :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "intake_hostile.json")
    args = parser.parse_args(argv)
    cases = {}
    for name, raw in HOSTILE.items():
        full = [_once(raw) for _ in range(args.repeat)]
        quarter = [_once(_quarter(raw))[0] for _ in range(args.repeat)]
        median, small = statistics.median(t for t, _ in full), statistics.median(quarter)
        cases[name] = {
            "chars": len(raw),
            "verdict": full[0][1],
            "median_s": round(median, 4),
            "quarter_median_s": round(small, 4),
            "ratio_to_quarter": round(median / small, 2) if small > 0.001 else None,
            "under_1s": median < 1.0,
        }
        print(f"{name:30} {median:7.3f}s  x{cases[name]['ratio_to_quarter']}  {full[0][1]}", flush=True)
    slowest = max(c["median_s"] for c in cases.values())
    report = {"repeat": args.repeat, "slowest_median_s": slowest, "all_under_1s": slowest < 1.0, "cases": cases}
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0 if slowest < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
