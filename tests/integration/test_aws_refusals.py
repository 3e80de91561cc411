"""Every refusal code of the resume gate, through the resume Lambda, with nothing written.

Each case decides through the approval page first (as a human would), then breaks one fact the resume
depends on, snapshots every table item and session object, invokes ``resume_agent`` and compares.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.aws.table_schema import (
    APPROVAL_PK_PREFIX,
    APPROVAL_SK,
    PROPOSAL_PK_PREFIX,
    PROPOSAL_SK,
    checkpoint_key,
)
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.domain.records import AuditEvent, Decision, DecisionRecord, utc_iso
from tests.support.aws_flow import Flow, approved_flow
from tests.support.moto_aws import AwsWorld, Clock

Breaker = Callable[[AwsWorld, Flow, Clock, pytest.MonkeyPatch], dict[str, Any]]


def _rewrite(aws: AwsWorld, pk: str, sk: str, attribute: str, change: Callable[[dict[str, Any]], None]) -> None:
    item = aws.raw_item(pk, sk)
    assert item is not None
    data = json.loads(item[attribute]["S"])
    change(data)
    item[attribute] = {"S": json.dumps(data)}
    aws.put_raw_item(item)


def _tampered_checkpoint(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    _rewrite(aws, *checkpoint_key(flow.checkpoint_id), "raw", lambda d: d.update(start_pid=1))
    return {}


def _other_interrupt(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    return {"interrupt_id": flow.run["interrupt_id"][:-1] + "x"}


def _other_session(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    return {"session_id": "sess-" + "0" * 32}


def _session_deleted(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    listed = aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix=aws.prefix)
    for obj in listed["Contents"]:
        aws.s3.delete_object(Bucket=aws.bucket, Key=obj["Key"])
    return {}


def _other_model(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    mp.setenv("PO_MODEL_ID", "scripted-planner-v2")
    return {}


def _tampered_proposal(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    item = aws.raw_item(PROPOSAL_PK_PREFIX + flow.proposal_hash, PROPOSAL_SK)
    assert item is not None
    item["data"] = {"B": bytes(item["data"]["B"]).replace(b'"quantity":600', b'"quantity":6000')}
    aws.put_raw_item(item)
    return {}


def _other_reviewed_hash(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    other = flow.proposal_hash[:-1] + ("0" if flow.proposal_hash[-1] != "0" else "1")
    _rewrite(
        aws,
        APPROVAL_PK_PREFIX + flow.approval_id,
        APPROVAL_SK,
        "record",
        lambda d: d["decision"].update(reviewed_hash=other),
    )
    return {}


def _inventory_counted(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    event = AuditEvent(event_type="inventory_set", at="2026-08-12T09:00:00Z", detail={"material_id": "THREAD-RED-40"})
    DynamoShopStore(aws.dynamodb, aws.table).set_inventory("THREAD-RED-40", 0, event)  # none on hand: the plan is short
    return {}


def _resume_in_progress(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    # Another invocation holds the claim and its lease is live. (A retry after the resume finished gets
    # the recorded outcome instead: test_aws_lifecycle.test_resume_invoked_twice_applies_once.)
    decided_at = utc_iso(clock.now)
    decision = Decision(
        approved=True, reviewed_hash=flow.proposal_hash, approver="a@example.com", decided_at=decided_at
    )
    record = DecisionRecord(
        checkpoint_id=flow.checkpoint_id,
        decision=decision,
        resume_pid=1,
        claimed_at=utc_iso(clock.now),
        claim_token="t" * 32,
        lease_expires_at=utc_iso(clock.now + timedelta(minutes=10)),
    )
    event = AuditEvent(event_type="decision_recorded", at=utc_iso(clock.now))
    DynamoShopStore(aws.dynamodb, aws.table).claim_decision(record, event)
    return {}


def _approver_not_on_list(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    def change(data: dict[str, Any]) -> None:
        data["decision"]["approver"] = "mallory@example.com"
        for vote in data["votes"]:
            vote["decision"]["approver"] = "mallory@example.com"

    _rewrite(aws, APPROVAL_PK_PREFIX + flow.approval_id, APPROVAL_SK, "record", change)
    return {}


def _receipt_stripped(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    # The resume requires receipts once a key is configured; a vote whose receipt is gone is refused.
    mp.setenv("PO_RECEIPT_KEY_ID", aws.receipt_key())
    return {}


def _window_closed(aws: AwsWorld, flow: Flow, clock: Clock, mp: pytest.MonkeyPatch) -> dict[str, Any]:
    clock.advance(timedelta(days=7, seconds=1))
    return {}


CASES: dict[str, tuple[RefusalCode, Breaker]] = {
    "checkpoint-tampered": (RefusalCode.CHECKPOINT_INVALID, _tampered_checkpoint),
    "interrupt-id-differs": (RefusalCode.INTERRUPT_MISMATCH, _other_interrupt),
    "session-id-differs": (RefusalCode.SESSION_MISMATCH, _other_session),
    "session-missing-in-s3": (RefusalCode.SESSION_MISMATCH, _session_deleted),
    "model-differs": (RefusalCode.PROVIDER_MISMATCH, _other_model),
    "proposal-tampered": (RefusalCode.PROPOSAL_INTEGRITY, _tampered_proposal),
    "reviewed-hash-differs": (RefusalCode.REVIEWED_HASH_MISMATCH, _other_reviewed_hash),
    "inventory-changed": (RefusalCode.STALE_DOMAIN_STATE, _inventory_counted),
    "resume-in-progress": (RefusalCode.ALREADY_DECIDED, _resume_in_progress),
    "window-closed": (RefusalCode.EXPIRED, _window_closed),
    "approver-not-on-list": (RefusalCode.UNAUTHORIZED_APPROVER, _approver_not_on_list),
    "receipt-stripped": (RefusalCode.RECEIPT_INVALID, _receipt_stripped),
}


def test_every_refusal_code_is_covered() -> None:
    # SUPERSEDED needs a revision (a second version of the plan): tests/integration/test_aws_revise.py resumes the
    # first version on DynamoDB and asserts it is refused with nothing written
    # VERSION_LIMIT is refused on DynamoDB with nothing written in its own test (tests/integration/test_aws_revise.py).
    assert {code for code, _ in CASES.values()} == set(RefusalCode) - {
        RefusalCode.SUPERSEDED,
        RefusalCode.VERSION_LIMIT,
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_resume_refuses_with_nothing_written(
    case: str, aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, breaker = CASES[case]
    flow = approved_flow(aws)
    overrides = breaker(aws, flow, clock, monkeypatch)
    store = DynamoShopStore(aws.dynamodb, aws.table)
    revision, applied = store.load_state().revision, store.application_count()  # type: ignore[union-attr]
    before = aws.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        flow.resume(**overrides)
    assert refused.value.code is code, str(refused.value)
    assert type(refused.value).__name__ == "ResumeRefusedError"
    assert aws.snapshot() == before
    assert store.load_state().revision == revision  # type: ignore[union-attr]
    assert store.application_count() == applied
