"""`make evidence` (policy part): evidence/policy.json from a model-based run of the approval policy.

    python scripts/evidence_policy.py [--examples N] [--steps N] [--out evidence/policy.json]

Runs tests/support/policy_model.py in-process against the real lifecycle code, on SQLite and on DynamoDB on a
local moto server, and writes what it did: the sequences run, every case tried and how it ended, and the
invariant violations found (with the first one, if any). Every number is counted during the run.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

import pytest  # noqa: E402  (MonkeyPatch for the moto environment outside a test)
from tests.support.policy_model import Tally, dynamodb_worlds, run_machine, sqlite_worlds  # noqa: E402

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
logging.getLogger("werkzeug").setLevel(logging.ERROR)


def _entry(tally: Tally, failure: str, seconds: float, examples: int, steps: int) -> dict[str, Any]:
    return {
        "sequences_run": tally.sequences,
        "cases_tried": tally.steps,
        "invariant_violations": len(tally.violations) or (1 if failure else 0),
        "first_violation": tally.violations[0] if tally.violations else failure,
        "cases": dict(sorted(tally.cases.items())),
        "outcomes": dict(sorted(tally.outcomes.items())),
        "settings": {"max_examples": examples, "stateful_step_count": steps},
        "seconds": round(seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=120, help="hypothesis examples on SQLite")
    parser.add_argument("--dynamodb-examples", type=int, default=25, help="hypothesis examples on DynamoDB on moto")
    parser.add_argument("--steps", type=int, default=25, help="steps per sequence")
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "policy.json")
    args = parser.parse_args(argv)
    from tests.support.moto_aws import environment, moto_server

    stores: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="po-policy-") as tmp:
        began = time.monotonic()
        tally, failure = run_machine(sqlite_worlds(Path(tmp) / "sqlite"), examples=args.examples, steps=args.steps)
        stores["sqlite"] = _entry(tally, failure, time.monotonic() - began, args.examples, args.steps)
        with moto_server() as endpoint, pytest.MonkeyPatch.context() as patch:
            for name, value in environment(endpoint).items():
                patch.setenv(name, value)
            began = time.monotonic()
            worlds = dynamodb_worlds(endpoint, Path(tmp) / "keys")
            tally, failure = run_machine(worlds, examples=args.dynamodb_examples, steps=args.steps)
            stores["dynamodb-on-moto"] = _entry(
                tally, failure, time.monotonic() - began, args.dynamodb_examples, args.steps
            )
    report = {
        "generated_by": "make evidence (scripts/evidence_policy.py)",
        "what": "random sequences of starts (random policies, some unsatisfiable), page GET/POST, CLI resume, "
        "resume-approval, propose again, shop changes, clock jumps, the workflow's expiry, crashes at the fault "
        "points and two votes at once, checked against a reference model of the approval rules after every step",
        "sequences_run": sum(s["sequences_run"] for s in stores.values()),
        "cases_tried": sum(s["cases_tried"] for s in stores.values()),
        "invariant_violations": sum(s["invariant_violations"] for s in stores.values()),
        "stores": stores,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}: "
        f"{report['sequences_run']} sequences, {report['cases_tried']} cases, "
        f"{report['invariant_violations']} invariant violations"
    )
    return 1 if report["invariant_violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
