"""Start and resume through each backend's real client, against the loopback servers.

Shared by the provider tests and ``scripts/evidence_providers.py``. Every step builds a fresh runtime on
the data dir, as a fresh process would; the model client talks HTTP to 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from production_orchestrator.agent.providers import ModelSettings, build_binding
from production_orchestrator.agent.tools import APPLY_TOOL
from production_orchestrator.cli.root import local_runtime
from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.records import ProviderBinding
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import ShopState
from production_orchestrator.services.asking.request_approval import operator_plan
from production_orchestrator.services.deciding.claim import ResumeResult
from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct
from production_orchestrator.services.runs.plan_request import PlanRequest
from production_orchestrator.services.runs.start import StartResult, StartRun, start_run
from production_orchestrator.services.runtime import Runtime
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.fake_bedrock import FakeBedrock
from tests.support.fake_ollama import FakeOllama
from tests.support.loopback import LoopbackServer
from tests.support.model_scripts import Script, planner

BACKENDS = ("deterministic", "bedrock", "ollama")
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
EXAMPLE_DAY = "2026-12-01"
# Two e-mails written as customers write them, planned on the example shop (not the reference scenarios).
EXAMPLE_REQUESTS = {"request-totes": EXAMPLES / "request-totes.eml", "request-caps": EXAMPLES / "request-caps.txt"}


def example_shop() -> ShopState:
    """The example shop of docs/examples/print-shop.json."""
    return read_shop(json.loads((EXAMPLES / "print-shop.json").read_text()))


def example_request(name: str) -> PlanRequest:
    """One of the example e-mails, planned on the example day."""
    return PlanRequest(text=EXAMPLE_REQUESTS[name].read_text(), planning_day=EXAMPLE_DAY)


LOOPBACK_REGION = "eu-central-1"
# SigV4 needs credentials, not real ones; no config file, so no profile on this machine interferes.
DUMMY_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "AKIDLOOPBACKONLY0000",
    "AWS_SECRET_ACCESS_KEY": "loopback-only-secret-0000000000000000",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "AWS_EC2_METADATA_DISABLED": "true",
}
# Retries without sleeping: a throttled call is retried at once.
FAST_SETTINGS = ModelSettings(retry_initial_delay_s=0, retry_max_delay_s=0, connect_timeout_s=5, read_timeout_s=30)


@dataclass(frozen=True)
class Backend:
    """A backend ready to use: its binding, client settings and (for loopback backends) its server."""

    name: str
    binding: ProviderBinding
    settings: ModelSettings
    server: LoopbackServer | None


@contextmanager
def backend(
    name: str,
    script: Script = planner,
    *,
    streaming: bool = True,
    throttle: int = 0,
    settings: ModelSettings = FAST_SETTINGS,
) -> Iterator[Backend]:
    """``name``'s binding and settings, with its loopback server running for the duration."""
    settings = dataclasses.replace(settings, streaming=streaming)
    if name == "deterministic":
        yield Backend(name, build_binding("deterministic"), settings, None)
        return
    if name == "bedrock":
        with FakeBedrock(script, throttle=throttle) as bedrock:
            binding = build_binding("bedrock", region=LOOPBACK_REGION, bedrock_endpoint=bedrock.url)
            yield Backend(name, binding, settings, bedrock)
        return
    if name == "ollama":
        with FakeOllama(script) as ollama:
            yield Backend(name, build_binding("ollama", ollama_host=ollama.url), settings, ollama)
        return
    raise ValueError(f"unknown backend {name}")


def runtime(data_dir: Path, be: Backend, *, create: bool = False) -> Runtime:
    """A fresh runtime on ``data_dir`` using ``be``'s client settings."""
    return dataclasses.replace(local_runtime(data_dir, create=create), model_settings=be.settings)


def start(data_dir: Path, request: str | PlanRequest, be: Backend, *, shop: ShopState | None = None) -> StartResult:
    """Run the agent on ``be`` until it asks for approval (on ``shop``, imported first, when given)."""
    rt = runtime(data_dir, be, create=True)
    if shop is not None:
        import_shop(rt, ImportShop(shop))
    return start_run(rt, StartRun(request, be.binding, timedelta(days=1), operator_plan()))


def resume(
    data_dir: Path,
    started: StartResult,
    be: Backend,
    *,
    approve: bool,
    reason: str = "",
    binding: ProviderBinding | None = None,
) -> ResumeResult:
    """Decide ``started``'s checkpoint from a fresh runtime, as a second process would."""
    cp = started.checkpoint
    request = ResumeRequest(cp.checkpoint_id, approve, cp.proposal_hash, cp.interrupt_id, cp.session_id)
    rt = runtime(data_dir, be)
    return resume_direct(rt, ResumeDirect(request, binding or be.binding, approver="test-approver", reason=reason))


def tool_sequence(data_dir: Path, session_id: str) -> list[str]:
    """The tools the model called in one session, in order, from the audit trail (the gated call included)."""
    sequence: list[str] = []
    for event in local_runtime(data_dir, create=False).store.audit_events():
        if event.session_id != session_id:
            continue
        if event.event_type == "tool_called":
            sequence.append(str(event.detail.get("tool")))
        elif event.event_type == "approval_requested":
            sequence.append(APPLY_TOOL)
    return sequence
