"""Benchmark (not a timed test): does a start cost more with a year of stored runs? Writes evidence/bench_history.json.

    python scripts/bench_history.py [--history 1000] [--pairs 15] [--out evidence/bench_history.json]

Two data dirs on the same shop (docs/examples/print-shop.json): one with no runs, one with ``--history`` stored
runs (each a sealed checkpoint, its approval record and its request key, of a request of its own; every other one
decided, its resume ended), built through the store's own writes from one real run. A history is the past: each
run was made on a day of the year before the bench (8 to 365 days ago) and its 7-day window has closed, as a year
of e-mails would leave them; the runs still open at any moment are those of the last week, which a start does
read (they hold capacity) and which the bench does not scale. Then ``--pairs`` customer e-mails, each a new
request, are started on both (empty, then history, then history first on the next pair: the order alternates),
timing each ``start_run`` in CPU seconds of this process (the deterministic model: no network). Reported: the
median of each, and the median of the per-pair ratios history / empty (goal: at most 1.1). The duplicate check
reads only the runs of the request being started (domain/intake/request_key.py), so the ratio stays near 1 however
many runs are stored; before issue 30 every start read every run (~5 rows each).

On DynamoDB (moto on 127.0.0.1, ``--dynamodb``) time is not the figure (moto copies the whole table on every
transaction, which AWS does not): what a start reads is. The same pairs of starts, on a table with no runs and
one holding the history (written with the store's own item layout), count each start's read calls and the
items they returned (botocore hooks); the ratio of those is the figure.
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
from production_orchestrator.domain.records import (  # noqa: E402
    Checkpoint,
    Completion,
    Decision,
    DecisionRecord,
    audit_event,
    utc_iso,
)
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


def _past(i: int) -> dict[str, str]:
    """The i-th history run's times: made 8 to 365 days ago, its 7-day window closed a day or more ago."""
    made = datetime.now(UTC) - timedelta(days=8 + i % 358, minutes=i % 600)
    return {"created_at": utc_iso(made), "expires_at": utc_iso(made + timedelta(days=7))}


def _history(rt: Runtime, runs: int) -> dict[str, int]:
    """``runs`` stored runs, copied from one real run through the store's own writes: each its sealed
    checkpoint, approval and request key (a request of its own); every other one decided (a rejection)."""
    first = start_run(
        rt, StartRun(PlanRequest(text=_email(999_999), planning_day=DAY), BINDING, timedelta(days=7), operator_plan())
    )
    approval = rt.approvals.approvals_for(first.checkpoint.checkpoint_id)[0]
    template = Checkpoint.model_validate_json(first.checkpoint.model_dump_json())
    for i in range(runs):
        past = _past(i)
        checkpoint = template.model_copy(update={"checkpoint_id": f"ckpt-{secrets.token_hex(16)}", **past}).sealed()
        record = approval.model_copy(
            update={"approval_id": f"appr-{secrets.token_hex(16)}", "checkpoint_id": checkpoint.checkpoint_id, **past}
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
                    claim_token=f"bench-{i}",
                ),
                audit_event("decision_recorded", rt.clock(), checkpoint_id=checkpoint.checkpoint_id),
            )
            # The rejection's resume ended, as a past one has (a claim never completed stays open for good).
            rt.store.complete_decision(
                checkpoint.checkpoint_id,
                f"bench-{i}",
                Completion(outcome="rejected", revision=1, plan_applied_count=0, completed_at=checkpoint.created_at),
                audit_event("plan_rejected", rt.clock(), checkpoint_id=checkpoint.checkpoint_id),
            )
    return {"runs": len(rt.store.list_checkpoints()), "approvals": len(rt.approvals.list_approvals())}


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def bench(history: int, pairs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        empty, full = _shop(Path(tmp) / "empty"), _shop(Path(tmp) / "history")
        _history(empty, 0)  # the one open run the history is copied from, on both: only the past differs
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


def _dynamo_history(rt: Runtime, table: Any, runs: int) -> int:
    """``runs`` stored runs on DynamoDB, written with the store's item layout in batches (as the transactions
    would have written them: checkpoint, approval and pointer, request key and Message-ID pointer)."""
    from production_orchestrator.adapters.aws.dynamodb_approvals import approval_writes
    from production_orchestrator.adapters.aws.dynamodb_runs import request_key_puts
    from production_orchestrator.adapters.aws.shop_items import checkpoint_item

    first = start_run(
        rt, StartRun(PlanRequest(text=_email(999_999), planning_day=DAY), BINDING, timedelta(days=7), operator_plan())
    )
    approval = rt.approvals.approvals_for(first.checkpoint.checkpoint_id)[0]
    items: list[dict[str, Any]] = []
    for i in range(runs):
        past = _past(i)
        checkpoint = first.checkpoint.model_copy(
            update={"checkpoint_id": f"ckpt-{secrets.token_hex(16)}", **past}
        ).sealed()
        record = approval.model_copy(
            update={"approval_id": f"appr-{secrets.token_hex(16)}", "checkpoint_id": checkpoint.checkpoint_id, **past}
        )
        request = RunRequest(
            checkpoint_id=checkpoint.checkpoint_id,
            request_hash=secrets.token_hex(32),
            generation=0,
            message_key=secrets.token_hex(32),
        )
        raw = checkpoint.model_dump_json()
        items.append(checkpoint_item(checkpoint.checkpoint_id, raw, time.time_ns()))
        for op in [*approval_writes(table, record), *request_key_puts(table, request)]:
            items.append(op["Put"]["Item"])
    for i in range(0, len(items), 25):
        table.client.batch_write_item(
            RequestItems={table.name: [{"PutRequest": {"Item": it}} for it in items[i : i + 25]]}
        )
    return len(rt.store.list_checkpoints())


def _reads(rt: Runtime, text: str) -> tuple[int, int]:
    """(read calls, items they returned) of one start on DynamoDB."""
    seen = {"calls": 0, "items": 0}

    def after(http_response: Any, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name in ("GetItem", "Query", "Scan", "BatchGetItem"):
            seen["calls"] += 1
            if model.name == "GetItem":
                seen["items"] += 1 if parsed.get("Item") else 0
            elif model.name == "BatchGetItem":
                seen["items"] += sum(len(v) for v in parsed.get("Responses", {}).values())
            else:
                seen["items"] += int(parsed.get("Count", 0))

    events = rt.store._table.client.meta.events  # type: ignore[attr-defined]
    events.register("after-call.dynamodb.*", after)
    try:
        _start(rt, text)
    finally:
        events.unregister("after-call.dynamodb.*", after)
    return seen["calls"], seen["items"]


def bench_dynamodb(history: int, pairs: int) -> dict[str, Any]:
    from tests.support.moto_aws import AwsWorld, environment, moto_server

    sys.path.insert(0, str(ROOT / "scripts"))
    from bench import _aws_runtime  # the benchmark's own DynamoDB runtime (scripts/bench.py)

    with moto_server() as endpoint:
        os.environ.update(environment(endpoint))
        worlds = [AwsWorld(endpoint, f"hist{os.getpid()}{kind}") for kind in ("e", "h")]
        empty, full = (_aws_runtime(w.table, w.bucket) for w in worlds)
        shop = read_shop(json.loads((EXAMPLES / "print-shop.json").read_text()))
        for rt in (empty, full):
            import_shop(rt, ImportShop(shop))
        _dynamo_history(empty, empty.store._table, 0)  # type: ignore[attr-defined]  # the same one open run
        stored = _dynamo_history(full, full.store._table, history)  # type: ignore[attr-defined]
        calls, items = [], []
        for n in range(1, pairs + 1):
            (ce, ie), (cf, i_f) = _reads(empty, _email(n)), _reads(full, _email(n))
            calls.append((ce, cf))
            items.append((ie, i_f))
    return {
        "store": "dynamodb (moto)",
        "history_runs": stored,
        "pairs": pairs,
        "read_calls_per_start": {
            "no_runs": statistics.median(c[0] for c in calls),
            "with_history": statistics.median(c[1] for c in calls),
        },
        "items_read_per_start": {
            "no_runs": statistics.median(i[0] for i in items),
            "with_history": statistics.median(i[1] for i in items),
        },
        "items_ratio_max_of_pairs": max(i[1] / i[0] for i in items),
        "target_at_most": TARGET,
        "met": max(i[1] / i[0] for i in items) <= TARGET,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "bench_history.json")
    parser.add_argument("--dynamodb-pairs", type=int, default=5, help="pairs of starts on DynamoDB (moto); 0: none")
    args = parser.parse_args()
    report = bench(args.history, args.pairs)
    if args.dynamodb_pairs:
        report["dynamodb"] = bench_dynamodb(args.history, args.dynamodb_pairs)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
