"""The torture suite's harness: worlds (a SQLite data dir or DynamoDB-on-moto), forked processes for each
start and resume, and what a family reports. scripts/torture.py runs the families; torture_hostile and
torture_outbox are families of their own that stand on this harness.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import sqlite3
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

import pytest  # noqa: E402  (MonkeyPatch for the moto world outside a test)

from production_orchestrator.agent.providers import build_binding  # noqa: E402
from production_orchestrator.cli.root import local_runtime  # noqa: E402
from production_orchestrator.domain.approval.verification import ResumeRequest  # noqa: E402
from production_orchestrator.domain.errors import ResumeRefusedError  # noqa: E402
from production_orchestrator.services.asking.request_approval import operator_plan  # noqa: E402
from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct  # noqa: E402
from production_orchestrator.services.runs.start import StartRun, start_run  # noqa: E402
from production_orchestrator.services.runtime import Runtime  # noqa: E402

LEASE = timedelta(seconds=2)
RUSH_MESSAGES = 3  # the rush-order plan drafts messages to the customer, the floor lead and the supplier
RACE_LEASE = timedelta(minutes=10)
BINDING = build_binding("deterministic")


@dataclass
class Family:
    """One family's tally."""

    name: str
    attempted: int = 0
    survived: int = 0
    failures: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    def check(self, label: str, ok: bool, why: str = "") -> None:
        self.attempted += 1
        if ok:
            self.survived += 1
        else:
            self.failures.append(f"{label}: {why}")

    def report(self) -> dict[str, Any]:
        return {
            "attempted": self.attempted,
            "survived": self.survived,
            "failures": len(self.failures),
            "failure_detail": self.failures[:20],
            **self.detail,
        }


# -- stores -------------------------------------------------------------------------------------------


@dataclass
class World:
    """Where one run lives: a local data dir, or a table + bucket on the moto server."""

    kind: str  # "sqlite" | "dynamodb"
    data_dir: Path | None = None
    aws: Any = None

    lease: timedelta = LEASE

    def runtime(self) -> Runtime:
        """A fresh runtime (call in the process that uses it: connections are not shared across forks)."""
        if self.kind == "sqlite":
            assert self.data_dir is not None
            return replace(local_runtime(self.data_dir, create=True), lease=self.lease)
        import boto3  # type: ignore[import-untyped]

        from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
        from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
        from production_orchestrator.adapters.aws.s3_sessions import S3SessionStore

        session = boto3.Session(region_name="us-east-1")
        dynamodb = session.client("dynamodb")
        return Runtime(
            store=DynamoShopStore(dynamodb, self.aws.table),
            sessions=S3SessionStore(self.aws.bucket, self.aws.prefix, session),
            clock=lambda: datetime.now(UTC),
            pid=os.getpid(),
            lease=self.lease,
            approvals=DynamoApprovalStore(dynamodb, self.aws.table),
        )


class Worlds:
    """Fresh worlds of either kind; the moto server runs in this process for the whole suite."""

    def __init__(self, tmp: Path, endpoint: str, patch: pytest.MonkeyPatch) -> None:
        self.tmp, self.endpoint, self.patch, self.count = tmp, endpoint, patch, 0

    def new(self, kind: str) -> World:
        self.count += 1
        if kind == "sqlite":
            return World("sqlite", data_dir=self.tmp / f"w{self.count}")
        from tests.support.moto_aws import AwsWorld

        return World("dynamodb", aws=AwsWorld(self.endpoint, f"t{os.getpid()}x{self.count}"))


logging.getLogger("werkzeug").setLevel(logging.ERROR)
# moto 5.2.5 serves requests on threads and its transact_write_items is not thread-safe: under 32
# concurrent clients it fails with 500s (a deepcopy racing a write) and lets two conditional puts on one
# key both succeed, which DynamoDB never does. The DynamoDB families therefore serialize the server's
# requests (what DynamoDB guarantees per item, and more); "dynamodb-threaded-moto" races without that, to
# show the application key alone still prevents a second application.
MOTO = {"serialized": True}
_MOTO_LOCK = threading.Lock()


def _serialize_moto() -> None:
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    original = DomainDispatcherApplication.__call__

    def call(self: Any, environ: dict[str, Any], start_response: Any) -> Any:
        if not MOTO["serialized"]:
            return original(self, environ, start_response)
        with _MOTO_LOCK:
            return original(self, environ, start_response)

    DomainDispatcherApplication.__call__ = call  # type: ignore[method-assign]


os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")


@contextlib.contextmanager
def moto_env() -> Iterator[tuple[str, pytest.MonkeyPatch]]:
    from tests.support.moto_aws import environment, moto_server

    _serialize_moto()
    with moto_server() as endpoint, pytest.MonkeyPatch.context() as patch:
        for name, value in environment(endpoint).items():
            patch.setenv(name, value)
        yield endpoint, patch


# -- processes ----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """How a child process ended: killed by a signal, refused with a code, or a result."""

    killed: bool = False
    refused: str = ""
    message: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    error: str = ""


def _child(fn: Callable[[], dict[str, Any]], write_fd: int, gate: int | None, env: dict[str, str]) -> None:
    os.environ.update(env)
    if gate is not None:
        os.read(gate, 1)
    try:
        payload: dict[str, Any] = {"result": fn()}
    except ResumeRefusedError as refusal:
        payload = {"refused": refusal.code.value, "message": refusal.human_message}
    except BaseException as exc:  # reported, never raised: the parent judges
        payload = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-2000:]}
    os.write(write_fd, json.dumps(payload, default=str).encode())
    os._exit(0)


def run_forked(
    fns: list[Callable[[], dict[str, Any]]], env: dict[str, str] | None = None, *, together: bool = False
) -> list[Outcome]:
    """Run each ``fn`` in its own forked process (released at once when ``together``); collect outcomes."""
    gate_r, gate_w = os.pipe() if together else (None, None)
    children: list[tuple[int, int]] = []
    for fn in fns:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child(fn, write_fd, gate_r, env or {})
        os.close(write_fd)
        children.append((pid, read_fd))
    if gate_w is not None:
        os.write(gate_w, b"x" * len(fns))
    outcomes = []
    for pid, read_fd in children:
        chunks = []
        while chunk := os.read(read_fd, 65536):
            chunks.append(chunk)
        os.close(read_fd)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            outcomes.append(Outcome(killed=os.WTERMSIG(status) == signal.SIGKILL))
            continue
        data = json.loads(b"".join(chunks) or b"{}")
        outcomes.append(
            Outcome(
                refused=data.get("refused", ""),
                message=data.get("message", ""),
                result=data.get("result", {}),
                error=data.get("error", "") + data.get("trace", ""),
            )
        )
    for fd in (gate_r, gate_w):
        if fd is not None:
            os.close(fd)
    return outcomes


def do_start(world: World) -> dict[str, Any]:
    """Start a run; its ids."""
    result = start_run(world.runtime(), StartRun("rush-order", BINDING, timedelta(days=7), operator_plan()))
    cp = result.checkpoint
    return {"checkpoint_id": cp.checkpoint_id, "proposal_hash": cp.proposal_hash}


def do_resume(world: World, ids: dict[str, Any], approve: bool = True) -> dict[str, Any]:
    """Resume ``ids`` with a decision; how it ended."""
    request = ResumeRequest(checkpoint_id=ids["checkpoint_id"], approved=approve, reviewed_hash=ids["proposal_hash"])
    result = resume_direct(
        world.runtime(), ResumeDirect(request, BINDING, approver="torture", reason="" if approve else "no")
    )
    return {"outcome": result.outcome, "revision": result.revision, "applied": result.plan_applied_count}


def facts(world: World, proposal_hash: str | None = None) -> dict[str, Any]:
    """What the store says now."""
    store = world.runtime().store
    state = store.load_state()
    events = [e.event_type for e in store.audit_events()]
    return {
        "revision": state.revision if state else None,
        "applications": store.application_count(),
        "plan_applied_events": events.count("plan_applied"),
        "checkpoints": len(store.list_checkpoints()),
        "proposal_stored": proposal_hash is None or store.get_proposal(proposal_hash) is not None,
        "messages_queued": len(store.outbox_messages()),
        "distinct_messages": len({m.key for m in store.outbox_messages()}),
    }


# -- races --------------------------------------------------------------------------------------------


def snapshot(world: World) -> Any:
    if world.kind == "dynamodb":
        return world.aws.snapshot()
    assert world.data_dir is not None
    con = sqlite3.connect(world.data_dir / "shop.sqlite3")
    dump = [line for line in con.iterdump() if line.startswith("INSERT")]  # rows, not lazily created tables
    con.close()
    # clock.json is the data dir's clock mark (the latest time a command has seen, refused or not): it moves with
    # the wall clock and holds nothing of the shop, its runs or its approvals
    files = {
        str(p.relative_to(world.data_dir)): p.read_bytes()
        for p in sorted(world.data_dir.rglob("*.json"))
        if p.name != "clock.json"
    }
    return dump, files
