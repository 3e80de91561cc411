"""Refusals on the provider path: a resume on another backend, and models that misbehave on the way to the gate.

Provider mismatches are refused by the resume gate before any model client exists. Misbehaving models are
refused call by call by the approval hook; a run whose model never reaches the gate leaves no checkpoint.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from strands.types.exceptions import ModelThrottledException

from production_orchestrator.agent import factory
from production_orchestrator.agent.providers import build_binding
from production_orchestrator.agent.tools import APPLY_TOOL
from production_orchestrator.cli.root import local_runtime
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError, StartError
from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.records import AuditEvent, ProviderBinding
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop.model import Order
from tests.support import model_scripts
from tests.support.clidriver import cli
from tests.support.loopback import LoopbackServer
from tests.support.provider_runs import (
    DUMMY_AWS_ENV,
    FAST_SETTINGS,
    LOOPBACK_REGION,
    backend,
    resume,
    start,
    tool_sequence,
)

START_PROFILE = "po-start-profile"
OTHER_PROFILE = "ops-other-secret-profile"


@pytest.fixture(autouse=True)
def _dummy_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(key, value)
    config = tmp_path / "aws-config"
    config.write_text(
        f"[profile {START_PROFILE}]\n"
        f"aws_access_key_id = {DUMMY_AWS_ENV['AWS_ACCESS_KEY_ID']}\n"
        f"aws_secret_access_key = {DUMMY_AWS_ENV['AWS_SECRET_ACCESS_KEY']}\n"
    )
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))


def _no_model_client(*args: object, **kwargs: object) -> None:
    raise AssertionError("a model client was built for a refused resume")


def _sent(server: LoopbackServer | None) -> str:
    assert server is not None
    return json.dumps([c.body for c in server.model_calls()])


def _audit(data_dir: Path) -> list[AuditEvent]:
    return local_runtime(data_dir, create=False).store.audit_events()


# --- provider binding refusals -------------------------------------------------------------------------


def _other(binding: ProviderBinding, field: str) -> ProviderBinding:
    changed = {
        "provider": build_binding("deterministic"),
        "model_id": binding.model_copy(update={"model_id": "us.anthropic.claude-sonnet-4-6"}),
        "region": binding.model_copy(update={"region": "us-west-2"}),
        "profile": binding.model_copy(update={"profile": OTHER_PROFILE}),
        "endpoint": binding.model_copy(update={"endpoint": "http://127.0.0.1:9"}),
    }
    return changed[field]


@pytest.mark.parametrize("field", ["provider", "model_id", "region", "profile", "endpoint"])
def test_bedrock_checkpoint_refuses_another_binding_before_any_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    with backend("bedrock") as be:
        be = dataclasses.replace(be, binding=be.binding.model_copy(update={"profile": START_PROFILE}))
        started = start(tmp_path, "rush-order", be)
        assert be.server is not None
        calls = len(be.server.model_calls())
        monkeypatch.setattr(factory, "build_model", _no_model_client)

        with pytest.raises(ResumeRefusedError) as refused:
            resume(tmp_path, started, be, approve=True, binding=_other(be.binding, field))

        assert len(be.server.model_calls()) == calls
    assert refused.value.code is RefusalCode.PROVIDER_MISMATCH
    message = str(refused.value)
    expected_field = "provider" if field == "provider" else field
    assert expected_field in message
    for secret in (START_PROFILE, OTHER_PROFILE, *DUMMY_AWS_ENV.values()):
        assert secret not in message
    store = local_runtime(tmp_path, create=False).store
    assert store.get_decision(started.checkpoint.checkpoint_id) is None
    state = store.load_state()
    assert state is None or state.revision == 1  # a start that fails before seeding writes no shop at all


def test_ollama_checkpoint_refuses_another_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with backend("ollama") as be:
        started = start(tmp_path, "rush-order", be)
        monkeypatch.setattr(factory, "build_model", _no_model_client)
        other_host = build_binding("ollama", ollama_host="http://127.0.0.1:9")
        with pytest.raises(ResumeRefusedError) as refused:
            resume(tmp_path, started, be, approve=True, binding=other_host)
    assert refused.value.code is RefusalCode.PROVIDER_MISMATCH
    assert "endpoint" in str(refused.value)
    assert "127.0.0.1:9" not in str(refused.value)


def test_cli_profile_mismatch_names_no_profile_anywhere(tmp_path: Path) -> None:
    with backend("bedrock") as be:
        be = dataclasses.replace(be, binding=be.binding.model_copy(update={"profile": START_PROFILE}))
        started = start(tmp_path, "rush-order", be)
        assert be.server is not None
        calls = len(be.server.model_calls())
        run = cli(
            "resume",
            "--data-dir",
            str(tmp_path),
            "--checkpoint",
            started.checkpoint.checkpoint_id,
            "--decision",
            "approve",
            "--reviewed-hash",
            started.checkpoint.proposal_hash,
            "--provider",
            "bedrock",
            "--region",
            LOOPBACK_REGION,
            "--bedrock-endpoint",
            be.server.url,
            "--profile",
            OTHER_PROFILE,
        )
        assert len(be.server.model_calls()) == calls
    assert (run.returncode, run["REFUSED"]) == (3, "PROVIDER_MISMATCH")
    logged = (tmp_path / "refusals.jsonl").read_text()
    for text in (run.stdout, run.stderr, logged):
        for secret in (START_PROFILE, OTHER_PROFILE, *DUMMY_AWS_ENV.values()):
            assert secret not in text


# --- misbehaving models --------------------------------------------------------------------------------


def _assert_no_checkpoint(data_dir: Path) -> None:
    store = local_runtime(data_dir, create=False).store
    assert store.list_checkpoints() == []
    state = store.load_state()
    assert state is None or state.revision == 1  # a start that fails before seeding writes no shop at all
    assert store.application_count() == 0


def test_wrong_hash_is_refused_and_never_reaches_a_human(tmp_path: Path) -> None:
    with backend("bedrock", model_scripts.wrong_hash) as be, pytest.raises(StartError):
        start(tmp_path, "rush-order", be)
    _assert_no_checkpoint(tmp_path)
    assert "refused: apply_production_plan needs the proposal_hash that propose_schedule returned" in _sent(be.server)
    applies = [e for e in _audit(tmp_path) if e.detail.get("tool") == APPLY_TOOL]
    assert [e.detail["status"] for e in applies] == ["cancelled"]


def test_model_that_corrects_its_hash_reaches_the_gate_with_the_right_plan(tmp_path: Path) -> None:
    with backend("deterministic") as det:
        expected = start(tmp_path / "det", "rush-order", det).checkpoint.proposal_hash
    with backend("ollama", model_scripts.wrong_hash_then_right) as be:
        started = start(tmp_path / "run", "rush-order", be)
        assert started.checkpoint.proposal_hash == expected
        done = resume(tmp_path / "run", started, be, approve=True)
    assert (done.outcome, done.revision, done.plan_applied_count) == ("applied", 2, 1)


def test_stored_proposal_from_elsewhere_is_refused(tmp_path: Path) -> None:
    # A real proposal (another shop's plan) sits in the store under its true hash; the model names it.
    jerseys = SCENARIOS["team-jerseys"]
    foreign = build_proposal(jerseys.taken_in(), jerseys.target_order_id, jerseys.planning_day)
    with backend("bedrock", model_scripts.apply_hash(foreign.proposal_hash())) as be:
        rt = local_runtime(tmp_path, create=True)
        rt.store.put_proposal(foreign.proposal_hash(), foreign.to_bytes())
        with pytest.raises(StartError):
            start(tmp_path, "rush-order", be)
    _assert_no_checkpoint(tmp_path)
    assert "propose_schedule returned in this" in _sent(be.server)


def test_apply_before_anything_else_is_refused(tmp_path: Path) -> None:
    with backend("ollama", model_scripts.apply_first) as be, pytest.raises(StartError):
        start(tmp_path, "rush-order", be)
    _assert_no_checkpoint(tmp_path)
    assert tool_sequence(tmp_path, _audit(tmp_path)[-1].session_id) == [APPLY_TOOL]


def test_proposing_without_intake_is_refused(tmp_path: Path) -> None:
    with backend("bedrock", model_scripts.skip_intake) as be, pytest.raises(StartError):
        start(tmp_path, "rush-order", be)
    _assert_no_checkpoint(tmp_path)
    assert "call intake_customer_request first" in _sent(be.server)
    assert not [e for e in _audit(tmp_path) if e.event_type == "proposal_created"]


def test_intake_of_an_altered_request_is_refused(tmp_path: Path) -> None:
    with backend("bedrock", model_scripts.altered_intake, streaming=False) as be, pytest.raises(StartError):
        start(tmp_path, "rush-order", be)
    _assert_no_checkpoint(tmp_path)
    assert "describes a different request" in _sent(be.server)
    assert local_runtime(tmp_path, create=False).store.load_state().order("RUSH-200") is None  # type: ignore[union-attr]


def test_proposing_for_another_order_is_refused(tmp_path: Path) -> None:
    chosen = SCENARIOS["rush-order"]
    rt = local_runtime(tmp_path, create=True)
    seed_event = AuditEvent(event_type="shop_seeded", at="2026-08-12T07:00:00Z")
    rt.store.seed(chosen.state, seed_event)
    # Another customer's order, taken in earlier and still unscheduled: a plan for it is a different plan.
    other = Order(
        id="EXTRA-300",
        customer="Corner Bakery",
        customer_email="orders@corner-bakery.example",
        product="LOGO-PATCH-BLUE",
        quantity=10,
        priority=50,
        due=chosen.planning_day,
    )
    state = rt.store.load_state()
    assert state is not None
    rt.store.replace_shop(state.with_order(other), (state.revision, state.digest()), seed_event)
    with backend("ollama", model_scripts.propose_other("EXTRA-300")) as be, pytest.raises(StartError):
        start(tmp_path, "rush-order", be)
    _assert_no_checkpoint(tmp_path)
    assert "propose_schedule must plan the order that intake_customer_request took in" in _sent(be.server)
    assert not [e for e in _audit(tmp_path) if e.event_type == "proposal_created"]


def test_model_that_skips_the_gate_leaves_no_checkpoint(tmp_path: Path) -> None:
    with backend("bedrock", model_scripts.no_gate) as be, pytest.raises(StartError, match="without asking"):
        start(tmp_path, "rush-order", be)
    _assert_no_checkpoint(tmp_path)


def test_extra_text_around_tool_calls_changes_nothing(tmp_path: Path) -> None:
    with backend("deterministic") as det:
        expected = start(tmp_path / "det", "rush-order", det).checkpoint.proposal_hash
    with backend("bedrock", model_scripts.chatty, streaming=True) as be:
        started = start(tmp_path / "run", "rush-order", be)
        done = resume(tmp_path / "run", started, be, approve=True)
    assert started.checkpoint.proposal_hash == expected
    assert (done.revision, done.plan_applied_count) == (2, 1)


@pytest.mark.parametrize("approve", [True, False], ids=["approved", "rejected"])
def test_apply_called_again_after_the_decision_is_refused(tmp_path: Path, approve: bool) -> None:
    with backend("bedrock", model_scripts.apply_again) as be:
        started = start(tmp_path, "rush-order", be)
        done = resume(tmp_path, started, be, approve=approve, reason="not now")
    assert done.stop_reason == "end_turn"  # no second interrupt that no checkpoint would ever answer
    assert (done.revision, done.plan_applied_count) == ((2, 1) if approve else (1, 0))
    assert "refused: this run's plan was already decided" in _sent(be.server)
    facts = local_runtime(tmp_path, create=False).sessions.read_facts(
        started.checkpoint.session_id, started.checkpoint.agent_id
    )
    assert facts.pending_interrupt_ids == frozenset()


def test_throttling_beyond_the_retry_budget_fails_the_start(tmp_path: Path) -> None:
    settings = dataclasses.replace(FAST_SETTINGS, retry_attempts=2)
    with backend("bedrock", throttle=5, streaming=False, settings=settings) as be:
        with pytest.raises(ModelThrottledException):
            start(tmp_path, "rush-order", be)
        assert be.server is not None
        # Two attempts in all: the agent's retry strategy is the only one (the SDK's own retries are off).
        assert [c.status for c in be.server.model_calls()] == [429, 429]
    _assert_no_checkpoint(tmp_path)
