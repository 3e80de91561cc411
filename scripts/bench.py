"""Benchmarks (not timed tests): writes evidence/bench.json. Medians of several fresh-process runs.

    python scripts/bench.py [--runs 5] [--out evidence/bench.json]

1. time to interrupt (start) and to resume, each a fresh process, local store and DynamoDB on moto
2. the cost of our guarantees: our verified resume against a bare Strands cross-process resume of the
   same agent (FileSessionManager, no verification, no claim, no completion), measured in the same run
3. cold start on the BUILT ASSETS (tests/support/assets.py builds them as ``cdk synth`` does, for this
   machine's architecture): each handler imported by the Lambda Python (3.12, ``-S -I``, only its asset on
   sys.path, the template's environment) against ``import boto3`` (strands-free handlers) or ``import
   strands`` (agent handlers) from the same asset, interleaved fresh interpreters; also import + the
   composition root and the modules the first request loads, so what a lazy import moved is visible
4. DynamoDB round trips per start + resume: the synthesized workflow on moto (each Lambda a fresh process,
   every call recorded) and the lifecycle in two fresh processes (botocore event hooks), by operation
5. scale: resume latency with 10 / 1,000 / 10,000 pending approvals in the store; bytes per approval
6. Lambda asset sizes (unzipped) per function, of the assets built in 3
7. planning on generated shops of 5 machines / 100 orders, 20 / 1,000 and 50 / 5,000 over 90 days
   (scripts/bench_planning.py; alone: ``python scripts/bench_planning.py --update evidence/bench.json``)
8. the CLI: ``--help``, ``status``, ``show`` and ``start`` CPU as ratios against ``import boto3`` in the same
   rounds (scripts/bench_cli.py; alone: ``python scripts/bench_cli.py --update evidence/bench.json``)
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]
logging.getLogger("werkzeug").setLevel(logging.ERROR)
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")

PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "functions")}
STRANDS_FREE = (
    "decide",
    "request_approval",
    "record_expiry",
    "report_pending_age",
    "submit",
    "send_outbox",
    "receive_email",
)
AGENT_HANDLERS = ("run_agent", "resume_agent")
TARGET_STRANDS_FREE = 1.5  # x import boto3 from the same asset
TARGET_AGENT = 1.15  # x import strands from the same asset
TARGET_ROUND_TRIPS = 20
SCALES = (10, 1_000, 10_000)
LIMIT_MB = 250


def median(values: list[float]) -> float:
    return round(statistics.median(values), 4)


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env or ENV, check=False)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed ({done.returncode}): {done.stderr[-800:]}")
    return elapsed, done.stdout


def values(stdout: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in stdout.splitlines() if re.match(r"^[A-Z_]+=", line))


# -- 1 + 2: interrupt and resume, ours against bare Strands --------------------------------------------------


def _cli(*args: str) -> list[str]:
    return [PY, "-m", "production_orchestrator", *args]


def local_lifecycle(runs: int, tmp: Path) -> dict[str, Any]:
    starts, resumes, bares, ours_in, bare_in = [], [], [], [], []
    for i in range(runs):
        for mode in ("ours", "bare"):
            data = tmp / f"life-{mode}-{i}"
            took, out = timed(_cli("start", "--data-dir", str(data)))
            v = values(out)
            if mode == "ours":
                starts.append(took)
                took, out = timed([PY, __file__, "--child", "ours", str(data), v["CHECKPOINT_ID"], v["PROPOSAL_HASH"]])
                resumes.append(took)
                ours_in.append(float(out.strip().splitlines()[-1]))
            else:
                took, out = timed([PY, __file__, "--child", "bare", str(data), v["CHECKPOINT_ID"], v["PROPOSAL_HASH"]])
                bares.append(took)
                bare_in.append(float(out.strip().splitlines()[-1]))
    ours, bare = median(resumes), median(bares)
    return {
        "runs": runs,
        "time_to_interrupt_s": median(starts),
        "time_to_resume_s": ours,
        "bare_strands_resume_s": bare,
        "verification_overhead_process": round(ours / bare - 1, 4),
        "resume_in_process_s": median(ours_in),
        "bare_resume_in_process_s": median(bare_in),
        "verification_overhead_in_process": round(median(ours_in) / median(bare_in) - 1, 4),
        "target_overhead": 0.10,
    }


def child_resume(mode: str, data_dir: str, checkpoint_id: str, proposal_hash: str) -> None:
    """One resume in this fresh process; prints the seconds spent after imports (the agent part)."""
    from production_orchestrator.agent.providers import build_binding
    from production_orchestrator.cli.root import local_runtime

    binding = build_binding("deterministic")
    began = time.perf_counter()
    rt = local_runtime(Path(data_dir), create=False)
    if mode == "ours":
        from production_orchestrator.domain.approval.verification import ResumeRequest
        from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct

        request = ResumeRequest(checkpoint_id=checkpoint_id, approved=True, reviewed_hash=proposal_hash)
        result = resume_direct(rt, ResumeDirect(request, binding, approver="bench", reason=""))
        assert result.outcome == "applied", result
    else:
        # Bare Strands: rebuild the same agent on its FileSessionManager and answer the interrupt. No
        # checkpoint seal, no session facts, no proposal re-hash, no digest, no claim, no completion.
        from production_orchestrator.agent.context import RunContext
        from production_orchestrator.agent.factory import build_agent
        from production_orchestrator.domain.records import Checkpoint, Decision, utc_iso

        checkpoint = Checkpoint.model_validate_json(rt.store.get_checkpoint(checkpoint_id) or "")
        ctx = RunContext(store=rt.store, session_id=checkpoint.session_id, checkpoint_id=checkpoint_id, clock=rt.clock)
        decision = Decision(
            approved=True, reviewed_hash=proposal_hash, approver="bench", decided_at=utc_iso(datetime.now(UTC))
        )
        ctx.approved_checkpoint, ctx.decision = checkpoint, decision
        agent = build_agent(binding, checkpoint.scenario, ctx, rt.sessions.session_manager(checkpoint.session_id))
        agent([{"interruptResponse": {"interruptId": checkpoint.interrupt_id, "response": decision.as_response()}}])  # type: ignore[list-item]
        assert rt.store.application_count(proposal_hash) == 1
    print(time.perf_counter() - began)


def aws_lifecycle(runs: int, endpoint: str) -> dict[str, Any]:
    from tests.support.moto_aws import AwsWorld, environment

    env = {**ENV, **environment(endpoint)}
    starts, resumes = [], []
    for i in range(runs):
        world = AwsWorld(endpoint, f"bench{os.getpid()}x{i}")
        where = [world.table, world.bucket]
        took, out = timed([PY, __file__, "--child", "aws-start", *where], env)
        starts.append(took)
        ids = out.strip().splitlines()[-1].split()
        took, _ = timed([PY, __file__, "--child", "aws-resume", *where, *ids], env)
        resumes.append(took)
    return {"runs": runs, "time_to_interrupt_s": median(starts), "time_to_resume_s": median(resumes)}


def _aws_runtime(table: str, bucket: str) -> Any:
    import boto3  # type: ignore[import-untyped]

    from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
    from production_orchestrator.adapters.aws.s3_sessions import S3SessionStore
    from production_orchestrator.services.runtime import Runtime

    session = boto3.Session(region_name="us-east-1")
    dynamodb = session.client("dynamodb")
    return Runtime(
        store=DynamoShopStore(dynamodb, table),
        sessions=S3SessionStore(bucket, "sessions/", session),
        clock=lambda: datetime.now(UTC),
        pid=os.getpid(),
        approvals=DynamoApprovalStore(dynamodb, table),
    )


def child_aws(mode: str, table: str, bucket: str, *ids: str) -> None:
    from production_orchestrator.agent.providers import build_binding
    from production_orchestrator.domain.approval.verification import ResumeRequest
    from production_orchestrator.services.asking.request_approval import operator_plan
    from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct
    from production_orchestrator.services.runs.start import StartRun, start_run

    counting = bool(ids) and ids[-1] == "count"
    ids = ids[:-1] if counting else ids
    rt, binding = _aws_runtime(table, bucket), build_binding("deterministic")
    calls: dict[str, int] = {}
    rt.store._table.client.meta.events.register(
        "before-call.dynamodb.*", lambda model, c=calls, **_: c.__setitem__(model.name, c.get(model.name, 0) + 1)
    )
    if mode == "aws-start":
        cp = start_run(rt, StartRun("rush-order", binding, timedelta(days=7), operator_plan())).checkpoint
        print(cp.checkpoint_id, cp.proposal_hash, *([json.dumps(calls, separators=(",", ":"))] if counting else []))
    else:
        request = ResumeRequest(checkpoint_id=ids[0], approved=True, reviewed_hash=ids[1])
        assert resume_direct(rt, ResumeDirect(request, binding, approver="bench", reason="")).outcome == "applied"
        if counting:
            print(json.dumps(calls, separators=(",", ":")))


# -- 3: cold start on the built assets -----------------------------------------------------------------------

# Run by the Lambda Python inside the asset: time one import (and optionally what the first request loads).
_PROBE = """
import importlib, sys, time
sys.path.insert(0, sys.argv[1])
wall, cpu = time.perf_counter(), time.process_time()
module = importlib.import_module(sys.argv[2])
imported = (time.perf_counter() - wall, time.process_time() - cpu)
if sys.argv[3] == "root":
    root = importlib.import_module("production_orchestrator.handlers.root")
    root.core()
    if hasattr(module, "root"):
        module.root()
    if sys.argv[2].endswith(("run_agent", "resume_agent")):
        root.agent_root()
    for name in sys.argv[4:]:
        importlib.import_module(name)
print(*imported, time.perf_counter() - wall, time.process_time() - cpu)
"""
# What each strands-free handler imports when its first request arrives (the lazy imports).
FIRST_REQUEST_MODULES = {
    "decide": ["production_orchestrator.handlers.events", "production_orchestrator.approval_web.pages"],
    "request_approval": [
        "production_orchestrator.services.asking.request_approval",
        "production_orchestrator.handlers.events",
    ],
    "record_expiry": ["production_orchestrator.services.asking.expire", "production_orchestrator.handlers.events"],
    "report_pending_age": ["production_orchestrator.services.status"],
    "submit": ["production_orchestrator.services.runs.submit", "production_orchestrator.handlers.events"],
    "send_outbox": ["production_orchestrator.services.outbox.deliver", "production_orchestrator.handlers.events"],
    "receive_email": ["production_orchestrator.services.runs.submit", "production_orchestrator.handlers.events"],
}


def cold_start(runs: int) -> dict[str, Any]:
    from tests.support.assets import built_assets

    from infra.bundling import lambda_python

    built = built_assets()
    python = lambda_python()

    def once(module: str, handler: str, mode: str = "import") -> tuple[float, ...]:
        """(import wall, import cpu, wall to the end, cpu to the end) of one fresh interpreter."""
        asset = str(built.asset_dirs[handler])
        extra = FIRST_REQUEST_MODULES.get(handler, []) if mode == "root" else []
        done = subprocess.run(
            [python, "-S", "-I", "-c", _PROBE, asset, module, mode, *extra],
            capture_output=True,
            text=True,
            env=built.environments[handler],
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{module} from {asset}: {done.stderr[-600:]}")
        return tuple(float(x) for x in done.stdout.split())

    # Per round, each asset's baseline is measured once and every handler of that asset right after it; the
    # ratio is taken within the round (paired) on CPU seconds of the process, which other processes on this
    # shared machine barely move (wall seconds are reported too), and the median of the rounds is reported.
    groups = {"boto3": STRANDS_FREE, "strands": AGENT_HANDLERS}
    samples: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        samples.setdefault(name, []).append(value)

    for _ in range(runs):
        for baseline, members in groups.items():
            base = once(baseline, members[0])
            add(f"{baseline}:wall", base[0])
            add(f"{baseline}:cpu", base[1])
            for handler in members:
                own = once(f"production_orchestrator.handlers.{handler}", handler)
                init = once(f"production_orchestrator.handlers.{handler}", handler, "root")
                add(f"{handler}:wall", own[0])
                add(f"{handler}:cpu", own[1])
                add(f"{handler}:ratio", own[1] / base[1])
                add(f"{handler}:init_cpu", init[3])
                add(f"{handler}:init_ratio", init[3] / base[1])
    handlers: dict[str, Any] = {}
    for baseline, members in groups.items():
        for handler in members:
            ratio = median(samples[f"{handler}:ratio"])
            target = TARGET_STRANDS_FREE if handler in STRANDS_FREE else TARGET_AGENT
            handlers[handler] = {
                "baseline": f"import {baseline}",
                "baseline_cpu_s": median(samples[f"{baseline}:cpu"]),
                "baseline_wall_s": median(samples[f"{baseline}:wall"]),
                "import_cpu_s": median(samples[f"{handler}:cpu"]),
                "import_wall_s": median(samples[f"{handler}:wall"]),
                "ratio": round(ratio, 3),
                "target_ratio": target,
                "met": ratio <= target,
                "import_root_and_first_request_modules_cpu_s": median(samples[f"{handler}:init_cpu"]),
                "ratio_with_first_request_modules": round(median(samples[f"{handler}:init_ratio"]), 3),
            }
    return {
        "runs": runs,
        "python": python,
        "measured_on": "built assets, python -S -I, only the asset on sys.path",
        "ratio": "median over rounds of (handler import CPU s / baseline import CPU s), measured back to back",
        "handlers": handlers,
        "all_met": all(h["met"] for h in handlers.values()),
    }


# -- 4: DynamoDB round trips --------------------------------------------------------------------------------


def round_trips_workflow() -> dict[str, Any]:
    """One approve run of the synthesized workflow on moto; every DynamoDB call of every Lambda counted."""
    from tests.support.cdk_template import synthesize
    from tests.support.moto_workflow import LOCAL_CONTEXT, local_aws, run_case

    with local_aws() as aws:
        deployment = aws.deploy(synthesize(LOCAL_CONTEXT))
        run = run_case(deployment, "approve")
        per_handler: dict[str, dict[str, int]] = {}
        for invocation in deployment.invocations():
            counts = per_handler.setdefault(invocation.handler_module, {})
            for signing, operation, _ in invocation.calls:
                if signing == "dynamodb":
                    counts[operation] = counts.get(operation, 0) + 1
    total = sum(sum(per_handler.get(h, {}).values()) for h in AGENT_HANDLERS)
    return {
        "status": run.status,
        "by_handler": {h: dict(sorted(c.items())) for h, c in sorted(per_handler.items())},
        "start_plus_resume": total,
        "target_at_most": TARGET_ROUND_TRIPS,
        "met": total <= TARGET_ROUND_TRIPS,
        "note": "run_agent + resume_agent of one approved run, each a fresh process; decide, "
        "request_approval and the others are listed but not counted in start_plus_resume",
    }


def round_trips_lifecycle(endpoint: str) -> dict[str, Any]:
    """start_run and resume_run in two fresh processes, counted with botocore event hooks."""
    from tests.support.moto_aws import AwsWorld, environment

    env = {**ENV, **environment(endpoint)}
    world = AwsWorld(endpoint, f"trips{os.getpid()}")
    where = [world.table, world.bucket]
    _, out = timed([PY, __file__, "--child", "aws-start", *where, "count"], env)
    start_line = out.strip().splitlines()[-1].split()
    ids, start_calls = start_line[:2], json.loads(start_line[2])
    _, out = timed([PY, __file__, "--child", "aws-resume", *where, *ids, "count"], env)
    resume_calls = json.loads(out.strip().splitlines()[-1])
    total = sum(start_calls.values()) + sum(resume_calls.values())
    met = total <= TARGET_ROUND_TRIPS
    return {"start": start_calls, "resume": resume_calls, "start_plus_resume": total, "met": met}


# -- 4: scale and bytes -----------------------------------------------------------------------------------


def _pending_copies(raw: str, count: int) -> list[tuple[str, str]]:
    from production_orchestrator.domain.records import Checkpoint

    template = Checkpoint.model_validate_json(raw)
    out = []
    for i in range(count):
        cp = template.model_copy(update={"checkpoint_id": f"ckpt-{i:032x}"}).sealed()
        out.append((cp.checkpoint_id, cp.model_dump_json()))
    return out


def _reject_latency(rt: Any, runs: int) -> float:
    """Median in-process resume (a rejection: the state stays put, so every run starts from revision 1)."""
    from production_orchestrator.agent.providers import build_binding
    from production_orchestrator.domain.approval.verification import ResumeRequest
    from production_orchestrator.services.asking.request_approval import operator_plan
    from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct
    from production_orchestrator.services.runs.start import StartRun, start_run

    binding, took = build_binding("deterministic"), []
    for _ in range(runs):
        cp = start_run(rt, StartRun("rush-order", binding, timedelta(days=7), operator_plan())).checkpoint
        request = ResumeRequest(checkpoint_id=cp.checkpoint_id, approved=False, reviewed_hash=cp.proposal_hash)
        began = time.perf_counter()
        assert resume_direct(rt, ResumeDirect(request, binding, approver="bench", reason="scale")).outcome == "rejected"
        took.append(time.perf_counter() - began)
    return median(took)


def scale_sqlite(runs: int, tmp: Path) -> dict[str, Any]:
    from production_orchestrator.agent.providers import build_binding
    from production_orchestrator.cli.root import local_runtime
    from production_orchestrator.services.asking.request_approval import operator_plan
    from production_orchestrator.services.runs.start import StartRun, start_run

    out: dict[str, Any] = {}
    for count in SCALES:
        data = tmp / f"scale-{count}"
        rt = replace(local_runtime(data, create=True))
        first = start_run(
            rt, StartRun("rush-order", build_binding("deterministic"), timedelta(days=7), operator_plan())
        ).checkpoint
        con = sqlite3.connect(data / "shop.sqlite3")
        con.executemany(
            "INSERT INTO checkpoints (checkpoint_id, raw) VALUES (?, ?)",
            _pending_copies(first.model_dump_json(), count),
        )
        con.commit()
        con.close()
        out[str(count)] = {"resume_s": _reject_latency(rt, runs)}
    return _flat(out)


def scale_dynamodb(runs: int, endpoint: str) -> dict[str, Any]:
    from tests.support.moto_aws import AwsWorld

    from production_orchestrator.adapters.aws.dynamo_table import n, s
    from production_orchestrator.adapters.aws.table_schema import PARTITION_KEY, SORT_KEY, checkpoint_key
    from production_orchestrator.agent.providers import build_binding
    from production_orchestrator.services.asking.request_approval import operator_plan
    from production_orchestrator.services.runs.start import StartRun, start_run

    out: dict[str, Any] = {}
    for count in SCALES:
        world = AwsWorld(endpoint, f"scale{os.getpid()}x{count}")
        rt = _aws_runtime(world.table, world.bucket)
        first = start_run(
            rt, StartRun("rush-order", build_binding("deterministic"), timedelta(days=7), operator_plan())
        ).checkpoint
        items = [
            {
                "PutRequest": {
                    "Item": {
                        PARTITION_KEY: s(checkpoint_key(cid)[0]),
                        SORT_KEY: s(checkpoint_key(cid)[1]),
                        "raw": s(raw),
                        "recorded_ns": n(time.time_ns()),
                    }
                }
            }
            for cid, raw in _pending_copies(first.model_dump_json(), count)
        ]
        for i in range(0, len(items), 25):
            world.dynamodb.batch_write_item(RequestItems={world.table: items[i : i + 25]})
        calls: dict[str, int] = {}
        rt.store._table.client.meta.events.register(  # count what one resume asks of DynamoDB
            "before-call.dynamodb.*", lambda model, c=calls, **_: c.__setitem__(model.name, c.get(model.name, 0) + 1)
        )
        latency = _reject_latency(rt, runs)
        out[str(count)] = {
            "resume_s": latency,
            # In one process (the scale runs reuse the runtime): immutable items are cached across runs.
            "dynamodb_calls_per_start_and_resume_same_process": {
                k: round(v / runs, 1) for k, v in sorted(calls.items())
            },
        }
    result = _flat(out)
    result["note"] = (
        "moto 5.2.5 deep-copies the whole table on every TransactWriteItems (models/__init__.py, "
        "transact_write_items), so its latency grows with the table; what the resume asks of DynamoDB "
        "(calls per operation, all by key, no scans or queries) is the figure that carries over to AWS"
    )
    return result


def _flat(out: dict[str, Any]) -> dict[str, Any]:
    small, large = out[str(SCALES[0])]["resume_s"], out[str(SCALES[-1])]["resume_s"]
    return {
        "pending_approvals": out,
        "largest_over_smallest": round(large / small, 3),
        "target_within": 1.2,
        "met": large / small <= 1.2,
    }


def bytes_per_approval(endpoint: str, tmp: Path) -> dict[str, Any]:
    from tests.support.aws_flow import start
    from tests.support.moto_aws import aws_world

    from production_orchestrator.adapters.aws.dynamo_table import item_size

    local: dict[str, Any] = {}
    data = tmp / "bytes"
    _, out = timed(_cli("start", "--data-dir", str(data)))
    v = values(out)
    con = sqlite3.connect(data / "shop.sqlite3")
    local["checkpoint"] = len(con.execute("SELECT raw FROM checkpoints").fetchone()[0].encode())
    local["proposal"] = len(bytes(con.execute("SELECT data FROM proposals").fetchone()[0]))
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    local["approval"] = (
        sum(len(str(r[0]).encode()) for r in con.execute("SELECT raw FROM approvals")) if "approvals" in tables else 0
    )
    con.close()
    session_dir = next((data / "sessions").glob(f"session_{v['SESSION_ID']}"))
    local["session"] = sum(p.stat().st_size for p in session_dir.rglob("*") if p.is_file())

    import pytest

    aws: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as mp, aws_world(endpoint, mp) as world:
        flow = start(world)
        flow.request_approval()
        objects = world.s3.list_objects_v2(Bucket=world.bucket).get("Contents", [])
        aws["session"] = sum(int(o["Size"]) for o in objects)
        items = world.dynamodb.scan(TableName=world.table)["Items"]
        for label, pattern in (("proposal", "PROPOSAL#"), ("checkpoint", "CHECKPOINT#"), ("approval", "APPROVAL#")):
            aws[label] = sum(item_size(i) for i in items if any(pattern in str(v.get("S", "")) for v in i.values()))
    for side in (local, aws):
        side["total"] = sum(side.values())
    return {"local": local, "dynamodb_s3": aws}


# -- 6: asset sizes -----------------------------------------------------------------------------------------


def assets() -> dict[str, Any]:
    from tests.support.assets import built_assets

    from infra.bundling import host_architecture

    built = built_assets()
    sizes: dict[str, Any] = {}
    for handler, asset in sorted(built.asset_dirs.items()):
        total = sum(p.stat().st_size for p in asset.rglob("*") if p.is_file())
        sizes[handler] = {
            "unzipped_mb": round(total / 1e6, 1),
            "share_of_250mb_limit": round(total / (LIMIT_MB * 1e6), 3),
        }
    return {"limit_mb": LIMIT_MB, "functions": sizes, "architecture": host_architecture(), "measured": "built assets"}


# -- main -------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "bench.json")
    parser.add_argument("--child", nargs="+")
    parser.add_argument("--only", nargs="+", help="run these steps and update them in the existing report")
    args = parser.parse_args(argv)
    if args.child:
        mode, *rest = args.child
        if mode in ("ours", "bare"):
            child_resume(mode, *rest)
        else:
            child_aws(mode, *rest)
        return 0

    from tests.support.moto_aws import environment, moto_server

    from scripts import bench_cli, bench_planning

    report: dict[str, Any] = {"machine": f"{os.cpu_count()} cpus, python {sys.version.split()[0]}", "runs": args.runs}
    began = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="po-bench-"))
    steps: list[tuple[str, Callable[[], Any]]] = []
    try:
        with moto_server() as endpoint:
            os.environ.update(environment(endpoint))
            steps = [
                ("cold_start_assets", lambda: cold_start(args.runs)),
                ("dynamodb_round_trips_workflow", round_trips_workflow),
                ("dynamodb_round_trips_lifecycle", lambda: round_trips_lifecycle(endpoint)),
                ("lifecycle_local", lambda: local_lifecycle(args.runs, tmp)),
                ("lifecycle_dynamodb_moto", lambda: aws_lifecycle(args.runs, endpoint)),
                ("scale_sqlite", lambda: scale_sqlite(3, tmp)),
                ("scale_dynamodb_moto", lambda: scale_dynamodb(3, endpoint)),
                ("bytes_per_pending_approval", lambda: bytes_per_approval(endpoint, tmp)),
                ("lambda_assets", assets),
                ("planning", lambda: bench_planning.run(args.runs, shops=400)),
                ("cli", lambda: bench_cli.run(args.runs)),
            ]
            if args.only:
                unknown = set(args.only) - {name for name, _ in steps}
                if unknown:
                    raise SystemExit(f"unknown steps: {sorted(unknown)}")
                report = json.loads(args.out.read_text())  # the other steps' figures stay as measured
                steps = [(name, step) for name, step in steps if name in args.only]
            for name, step in steps:
                t0 = time.monotonic()
                report[name] = step()
                print(f"{name} ({time.monotonic() - t0:.0f}s): {json.dumps(report[name])[:400]}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["seconds" if not args.only else f"seconds_{'_'.join(args.only)}"] = round(time.monotonic() - began, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out} in {round(time.monotonic() - began, 1)}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
