"""Benchmark (not a timed test): does a start cost more with a year of stored runs? Writes evidence/bench_history.json.

    python scripts/bench_history.py [--history 1000] [--pairs 15] [--out evidence/bench_history.json]

Two data dirs on the same shop (docs/examples/print-shop.json): one with no runs, one with ``--history`` stored
runs (each a sealed checkpoint, its approval record and its request key, of a request of its own; every other one
decided), built through the store's own writes from one real run. Then ``--pairs`` customer e-mails, each a new
request, are started on both (empty, then history, then history first on the next pair: the order alternates),
timing each ``start_run`` in CPU seconds of this process (the deterministic model: no network). Reported: the
median of each, and the median of the per-pair ratios history / empty (goal: at most 1.1). The duplicate check
reads only the runs of the request being started (domain/intake/request_key.py), so the ratio stays near 1 however
many runs are stored; before issue 30 every start read every run (~5 rows each).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]
logging.disable(logging.WARNING)
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")

from production_orchestrator.agent.providers import build_binding  # noqa: E402
from production_orchestrator.bootstrap import local  # noqa: E402
from production_orchestrator.domain.intake.request_key import RunRequest  # noqa: E402
from production_orchestrator.domain.records import Checkpoint, Decision, DecisionRecord, audit_event  # noqa: E402
from production_orchestrator.domain.shop.file_format import read_shop  # noqa: E402
from production_orchestrator.services.asking.request_approval import operator_plan  # noqa: E402
from production_orchestrator.services.runs.plan_request import PlanRequest  # noqa: E402
from production_orchestrator.services.runs.start import StartRun, start_run  # noqa: E402
from production_orchestrator.services.runtime import Runtime  # noqa: E402
from production_orchestrator.services.shop.importing import ImportShop, import_shop  # noqa: E402

EXAMPLES = ROOT / "docs" / "examples"
TOTES = (EXAMPLES / "request-totes.eml").read_text()
DAY = "2026-12-01"
TARGET = 1.1
BINDING = build_binding("deterministic")


def _email(n: int) -> str:
    """The n-th customer e-mail: a request of its own (its own Message-ID and quantity)."""
    return TOTES.replace("festival-totes-0001", f"bench-{n:06d}").replace("400 navy", f"{40 + n % 300} navy")


def _runtime(data: Path) -> Runtime:
    rt = local(data, create=True)
    return replace(rt, clock=lambda: datetime.now(UTC))


def _shop(data: Path) -> Runtime:
    rt = _runtime(data)
    import_shop(rt, ImportShop(read_shop(json.loads((EXAMPLES / "print-shop.json").read_text()))))
    return rt


def _start(rt: Runtime, text: str) -> float:
    began = time.process_time()
    start_run(rt, StartRun(PlanRequest(text=text, planning_day=DAY), BINDING, timedelta(days=7), operator_plan()))
    return time.process_time() - began


def _history(rt: Runtime, runs: int) -> dict[str, int]:
    """``runs`` stored runs, copied from one real run through the store's own writes: each its sealed
    checkpoint, approval and request key (a request of its own); every other one decided (a rejection)."""
    first = start_run(
        rt, StartRun(PlanRequest(text=_email(999_999), planning_day=DAY), BINDING, timedelta(days=7), operator_plan())
    )
    approval = rt.approvals.approvals_for(first.checkpoint.checkpoint_id)[0]
    template = Checkpoint.model_validate_json(first.checkpoint.model_dump_json())
    for i in range(runs):
        checkpoint = template.model_copy(update={"checkpoint_id": f"ckpt-{secrets.token_hex(16)}"}).sealed()
        record = approval.model_copy(
            update={"approval_id": f"appr-{secrets.token_hex(16)}", "checkpoint_id": checkpoint.checkpoint_id}
        )
        key = RunRequest(
            checkpoint_id=checkpoint.checkpoint_id,
            request_hash=secrets.token_hex(32),
            generation=0,
            sender="lena@harbour-books.example",
            message_key=secrets.token_hex(32),
            created_at=checkpoint.created_at,
        )
        event = audit_event("approval_requested", rt.clock(), checkpoint_id=checkpoint.checkpoint_id)
        rt.store.put_checkpoint(checkpoint.checkpoint_id, checkpoint.model_dump_json(), event, record, key)
        if i % 2:
            decision = Decision(
                approved=False,
                reviewed_hash=checkpoint.proposal_hash,
                approver="bench@shop.example",
                reason="history",
                decided_at=checkpoint.created_at,
            )
            rt.store.claim_decision(
                DecisionRecord(
                    checkpoint_id=checkpoint.checkpoint_id,
                    decision=decision,
                    resume_pid=1,
                    claimed_at=checkpoint.created_at,
                ),
                audit_event("decision_recorded", rt.clock(), checkpoint_id=checkpoint.checkpoint_id),
            )
    return {"runs": len(rt.store.list_checkpoints()), "approvals": len(rt.approvals.list_approvals())}


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def bench(history: int, pairs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        empty, full = _shop(Path(tmp) / "empty"), _shop(Path(tmp) / "history")
        stored = _history(full, history)
        _start(empty, _email(0)), _start(full, _email(0))  # warm-up: imports, caches, the planner's first run
        took_empty, took_full, ratios = [], [], []
        for n in range(1, pairs + 1):
            if n % 2:
                e, f = _start(empty, _email(n)), _start(full, _email(n))
            else:
                f, e = _start(full, _email(n)), _start(empty, _email(n))
            took_empty.append(e)
            took_full.append(f)
            ratios.append(f / e)
    ratio = statistics.median(ratios)
    return {
        "store": "sqlite",
        "history": stored,
        "pairs": pairs,
        "start_cpu_s_no_runs": _spread(took_empty),
        "start_cpu_s_with_history": _spread(took_full),
        "ratio_median_of_pairs": ratio,
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "target_at_most": TARGET,
        "met": ratio <= TARGET,
        "method": "in-process start_run (deterministic model), CPU seconds (time.process_time), alternating pairs "
        "of new requests on an empty data dir and one holding the history",
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "bench_history.json")
    args = parser.parse_args()
    report = bench(args.history, args.pairs)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
