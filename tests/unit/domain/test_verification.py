"""The resume gate as a pure function: one test per refusal code, plus "go"."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from production_orchestrator.domain.approval.verification import (
    Evidence,
    Go,
    Refusal,
    ResumeRequest,
    SessionFacts,
    read_checkpoint,
    verify_resume,
)
from production_orchestrator.domain.errors import RefusalCode
from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.records import (
    INTERRUPT_NAME,
    Checkpoint,
    ProviderBinding,
    agent_identity,
    utc_iso,
)
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY

NOW = datetime(2026, 8, 12, 9, 0, tzinfo=UTC)
BINDING = ProviderBinding(provider="deterministic", model_id="scripted-planner-v1")
SCENARIO = SCENARIOS["rush-order"]
STATE = SCENARIO.taken_in()
PROPOSAL = build_proposal(STATE, "RUSH-200", TODAY)
HASH = PROPOSAL.proposal_hash()
IID = "v1:before_tool_call:tooluse-1:abc"
CHECKPOINT = Checkpoint(
    checkpoint_id="ckpt-" + "a" * 32,
    interrupt_id=IID,
    interrupt_name=INTERRUPT_NAME,
    session_id="sess-" + "b" * 32,
    agent_id=agent_identity(BINDING, "rush-order"),
    proposal_hash=HASH,
    domain_digest=STATE.digest(),
    provider_binding=BINDING,
    scenario="rush-order",
    target_order_id="RUSH-200",
    start_pid=4242,
    created_at=utc_iso(NOW),
    expires_at=utc_iso(NOW + timedelta(days=7)),
).sealed()
FACTS = SessionFacts(
    session_exists=True,
    agent_exists=True,
    interrupt_activated=True,
    pending_interrupt_ids=frozenset({IID}),
    interrupt_proposal_hash=HASH,
)
REQUEST = ResumeRequest(checkpoint_id=CHECKPOINT.checkpoint_id, approved=True, reviewed_hash=HASH)


def run(**changes: Any) -> Go | Refusal:
    args: dict[str, Any] = {
        "checkpoint": CHECKPOINT,
        "request": REQUEST,
        "decided": False,
        "session": FACTS,
        "proposal_bytes": PROPOSAL.to_bytes(),
        "current": STATE,
        "runtime_binding": BINDING,
        "now": NOW,
    }
    args.update(changes)
    checkpoint, request = args.pop("checkpoint"), args.pop("request")
    return verify_resume(checkpoint, request, Evidence(**args))


def code(result: Go | Refusal) -> RefusalCode | None:
    return result.code if isinstance(result, Refusal) else None


def test_everything_consistent_is_go() -> None:
    result = run()
    assert isinstance(result, Go)
    assert result.proposal == PROPOSAL


def test_checkpoint_missing() -> None:
    assert code(read_checkpoint(None, CHECKPOINT.checkpoint_id)) == RefusalCode.CHECKPOINT_INVALID  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        CHECKPOINT.model_dump_json().replace('"schema_version":1', '"schema_version":2'),
        CHECKPOINT.model_dump_json().replace('"start_pid":4242', '"start_pid":4243'),
        CHECKPOINT.model_copy(update={"interrupt_name": "other"}).sealed().model_dump_json(),
    ],
    ids=["malformed", "unknown-schema", "tampered-field", "not-an-approval"],
)
def test_checkpoint_invalid(raw: str) -> None:
    result = read_checkpoint(raw, CHECKPOINT.checkpoint_id)
    assert isinstance(result, Refusal) and result.code == RefusalCode.CHECKPOINT_INVALID


def test_checkpoint_stored_under_another_id() -> None:
    result = read_checkpoint(CHECKPOINT.model_dump_json(), "ckpt-" + "c" * 32)
    assert isinstance(result, Refusal) and result.code == RefusalCode.CHECKPOINT_INVALID


def test_intact_checkpoint_reads_back() -> None:
    assert read_checkpoint(CHECKPOINT.model_dump_json(), CHECKPOINT.checkpoint_id) == CHECKPOINT


def test_interrupt_id_asked_for_is_not_the_checkpoints() -> None:
    assert code(run(request=replace(REQUEST, interrupt_id="v1:other"))) == RefusalCode.INTERRUPT_MISMATCH


def test_interrupt_not_pending_in_session() -> None:
    facts = replace(FACTS, pending_interrupt_ids=frozenset())
    assert code(run(session=facts)) == RefusalCode.INTERRUPT_MISMATCH
    assert code(run(session=replace(FACTS, interrupt_activated=False))) == RefusalCode.INTERRUPT_MISMATCH


def test_session_id_asked_for_is_not_the_checkpoints() -> None:
    assert code(run(request=replace(REQUEST, session_id="sess-" + "0" * 32))) == RefusalCode.SESSION_MISMATCH


def test_stored_session_missing() -> None:
    assert code(run(session=replace(FACTS, session_exists=False))) == RefusalCode.SESSION_MISMATCH
    assert code(run(session=replace(FACTS, agent_exists=False))) == RefusalCode.SESSION_MISMATCH


@pytest.mark.parametrize("field", ["provider", "model_id", "region", "profile", "endpoint"])
def test_provider_mismatch_names_fields_not_values(field: str) -> None:
    value = "bedrock" if field == "provider" else "secret-profile-name"
    result = run(runtime_binding=BINDING.model_copy(update={field: value}))
    assert isinstance(result, Refusal) and result.code == RefusalCode.PROVIDER_MISMATCH
    assert field in result.message and "secret-profile-name" not in result.message


def test_proposal_missing() -> None:
    assert code(run(proposal_bytes=None)) == RefusalCode.PROPOSAL_INTEGRITY


def test_proposal_bytes_altered() -> None:
    assert code(run(proposal_bytes=PROPOSAL.to_bytes().replace(b"600", b"60"))) == RefusalCode.PROPOSAL_INTEGRITY


def test_interrupt_names_another_proposal() -> None:
    assert code(run(session=replace(FACTS, interrupt_proposal_hash="0" * 64))) == RefusalCode.PROPOSAL_INTEGRITY


def test_reviewed_hash_mismatch() -> None:
    assert code(run(request=replace(REQUEST, reviewed_hash="f" * 64))) == RefusalCode.REVIEWED_HASH_MISMATCH


def test_stale_domain_state() -> None:
    changed = STATE.with_inventory("THREAD-RED-40", 0)
    refused = run(current=changed, proposed_on=STATE)
    assert code(refused) == RefusalCode.STALE_DOMAIN_STATE
    assert isinstance(refused, Refusal) and "materials: THREAD-RED-40 would be 600 short" in refused.message


def test_more_stock_is_not_stale() -> None:
    assert isinstance(run(current=STATE.with_inventory("THREAD-RED-40", 1200), proposed_on=STATE), Go)


def test_a_plan_whose_day_has_passed_is_stale_by_time() -> None:
    refused = run(now=NOW + timedelta(days=1))
    assert code(refused) == RefusalCode.STALE_DOMAIN_STATE
    assert isinstance(refused, Refusal) and "stale by time" in refused.message
    assert "2026-08-12, a day that has passed (today is 2026-08-13 in Europe/Berlin)" in refused.message


def test_a_change_outside_the_footprint_is_not_stale() -> None:
    elsewhere = STATE.model_copy(update={"operator_email": "someone-else@example.com", "revision": 9})
    assert isinstance(run(current=elsewhere), Go)


def test_already_decided_wins_over_a_moved_digest() -> None:
    moved = STATE.with_inventory("THREAD-RED-40", 1)
    assert code(run(decided=True, current=moved)) == RefusalCode.ALREADY_DECIDED


def test_expired() -> None:
    assert code(run(now=NOW + timedelta(days=7))) == RefusalCode.EXPIRED
    in_window = run(now=NOW + timedelta(days=7) - timedelta(seconds=1))
    assert code(in_window) == RefusalCode.STALE_DOMAIN_STATE  # in its window, but the plan's days have passed
    assert isinstance(run(now=NOW + timedelta(hours=12)), Go)
