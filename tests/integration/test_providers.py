"""Bedrock (Converse and ConverseStream) and Ollama through their real Strands clients, over loopback HTTP.

The model orchestrates; the tools compute the plan. So every backend must reach the same proposal hash,
and a decision must apply or reject it exactly as on the offline model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from production_orchestrator.agent.tools import TOOL_SEQUENCE
from production_orchestrator.cli.root import local_runtime
from production_orchestrator.domain.scenarios import SCENARIOS
from tests.support.clidriver import cli
from tests.support.provider_runs import DUMMY_AWS_ENV, LOOPBACK_REGION, backend, resume, start, tool_sequence

CLIENTS = [
    pytest.param("bedrock", True, id="bedrock-converse-stream"),
    pytest.param("bedrock", False, id="bedrock-converse"),
    pytest.param("ollama", True, id="ollama-chat"),
]


@pytest.fixture(autouse=True)
def _dummy_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(key, value)


def _deterministic_hash(tmp_path: Path, scenario: str) -> str:
    with backend("deterministic") as be:
        return start(tmp_path / "deterministic", scenario, be).checkpoint.proposal_hash


def _plan_applied(data_dir: Path) -> int:
    return sum(1 for e in local_runtime(data_dir, create=False).store.audit_events() if e.event_type == "plan_applied")


@pytest.mark.parametrize(("name", "streaming"), CLIENTS)
def test_approve_applies_the_plan_once_through_the_real_client(tmp_path: Path, name: str, streaming: bool) -> None:
    expected = _deterministic_hash(tmp_path, "rush-order")
    with backend(name, streaming=streaming) as be:
        started = start(tmp_path / name, "rush-order", be)
        assert started.stop_reason == "interrupt"
        assert started.checkpoint.proposal_hash == expected
        assert tool_sequence(tmp_path / name, started.checkpoint.session_id) == list(TOOL_SEQUENCE)
        calls_at_interrupt = len(be.server.model_calls()) if be.server else 0

        done = resume(tmp_path / name, started, be, approve=True)

        assert (done.outcome, done.revision, done.plan_applied_count) == ("applied", 2, 1)
        assert _plan_applied(tmp_path / name) == 1
        assert be.server is not None
        calls = be.server.model_calls()
        # The resume continued the stored conversation: one more model call, which saw the apply result.
        assert len(calls) == calls_at_interrupt + 1
        assert '\\"applied\\": true' in json.dumps(calls[-1].body)
        assert {c.headers["model_id"] for c in calls} == {be.binding.model_id}
        if name == "bedrock":
            assert {c.headers["operation"] for c in calls} == {"ConverseStream" if streaming else "Converse"}
            assert {c.headers["signed_region"] for c in calls} == {LOOPBACK_REGION}


@pytest.mark.parametrize(("name", "streaming"), CLIENTS)
def test_reject_leaves_the_shop_unchanged_and_tells_the_model_why(tmp_path: Path, name: str, streaming: bool) -> None:
    with backend(name, streaming=streaming) as be:
        started = start(tmp_path, "rush-order", be)
        before = local_runtime(tmp_path, create=False).store.load_state()

        done = resume(tmp_path, started, be, approve=False, reason="customer cancelled the rush")

        assert (done.outcome, done.revision, done.plan_applied_count) == ("rejected", 1, 0)
        assert local_runtime(tmp_path, create=False).store.load_state() == before
        assert _plan_applied(tmp_path) == 0
        assert be.server is not None
        last_request = json.dumps(be.server.model_calls()[-1].body)
        assert "rejected by test-approver: customer cancelled the rush" in last_request
        assert "not applied" in done.final_text


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_backend_proposes_the_same_plan(tmp_path: Path, scenario: str) -> None:
    hashes = {}
    for name in ("deterministic", "bedrock", "ollama"):
        with backend(name) as be:
            started = start(tmp_path / name, scenario, be)
            hashes[name] = started.checkpoint.proposal_hash
            assert started.proposal.target_order.id == SCENARIOS[scenario].target_order_id
    assert len(set(hashes.values())) == 1, hashes


def test_throttled_call_is_retried_by_the_agent_without_sleeping(tmp_path: Path) -> None:
    with backend("bedrock", streaming=False, throttle=2) as be:
        started = start(tmp_path, "rush-order", be)
        assert be.server is not None
        statuses = [c.status for c in be.server.model_calls()]
    assert statuses[:3] == [429, 429, 200]
    assert started.checkpoint.proposal_hash == _deterministic_hash(tmp_path, "rush-order")


def test_throttling_inside_the_stream_is_retried_too(tmp_path: Path) -> None:
    with backend("bedrock", streaming=True, throttle=1) as be:
        started = start(tmp_path, "rush-order", be)
        assert be.server is not None
        assert [c.status for c in be.server.model_calls()][:2] == [429, 200]
    assert started.stop_reason == "interrupt"


def test_cli_start_and_resume_over_a_bedrock_endpoint(tmp_path: Path) -> None:
    with backend("bedrock") as be:
        assert be.server is not None
        flags = ("--provider", "bedrock", "--region", LOOPBACK_REGION, "--bedrock-endpoint", be.server.url)
        started = cli("start", "--data-dir", str(tmp_path), "--scenario", "team-jerseys", *flags)
        assert started.returncode == 0, started.stderr
        done = cli(
            "resume",
            "--data-dir",
            str(tmp_path),
            "--checkpoint",
            started["CHECKPOINT_ID"],
            "--decision",
            "approve",
            "--reviewed-hash",
            started["PROPOSAL_HASH"],
            *flags,
            "--no-bedrock-streaming",
        )
        assert done.returncode == 0, done.stderr
        operations = [c.headers["operation"] for c in be.server.model_calls()]
    assert (done["STATE_REVISION"], done["PLAN_APPLIED_COUNT"]) == ("2", "1")
    assert started["START_PID"] != done["RESUME_PID"]
    # Streaming is transport, not binding: the resume may use Converse where the start streamed.
    assert operations[0] == "ConverseStream" and operations[-1] == "Converse"


def test_cli_start_and_reject_over_an_ollama_host(tmp_path: Path) -> None:
    with backend("ollama") as be:
        assert be.server is not None
        flags = ("--provider", "ollama", "--model", "qwen3:8b", "--ollama-host", be.server.url)
        started = cli("start", "--data-dir", str(tmp_path), "--scenario", "metallic-monogram", *flags)
        assert started.returncode == 0, started.stderr
        done = cli(
            "resume",
            "--data-dir",
            str(tmp_path),
            "--checkpoint",
            started["CHECKPOINT_ID"],
            "--decision",
            "reject",
            "--reviewed-hash",
            started["PROPOSAL_HASH"],
            "--reason",
            "gold thread too expensive",
            *flags,
        )
        models = {c.headers["model_id"] for c in be.server.model_calls()}
    assert done.returncode == 0, done.stderr
    assert (done["DECISION"], done["STATE_REVISION"], done["PLAN_APPLIED_COUNT"]) == ("rejected", "1", "0")
    assert models == {"qwen3:8b"}
