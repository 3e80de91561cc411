"""The outbox record: one model for every kind, a schema version, old rows read as they were stored.

A plan message of version 1 (before approval mail joined the outbox) reads, and writes back byte for byte (the
DynamoDB compare-and-set compares the stored text); an approval mail record of its own old shape reads into the
outbox record with the key (and so the Message-ID) it had; an unknown version is refused by name."""

from __future__ import annotations

import hashlib
import json

import pytest
from pydantic import ValidationError

from production_orchestrator.domain.messages.approval_mail import approval_reminder, from_approval_mail_v1
from production_orchestrator.domain.messages.outbox import OutboxMessage, outbox_order
from production_orchestrator.domain.messages.outbox_trail import OutboxTrail
from production_orchestrator.domain.records import audit_event, parse_utc

HASH = "a" * 64
APPROVAL = "appr-" + "b" * 32
V1_PLAN = (
    '{"schema_version":1,"proposal_hash":"' + HASH + '","index":2,"checkpoint_id":"ckpt-' + "0" * 32 + '",'
    '"kind":"customer","to":"jo@example.com","subject":"Your order","body":"Hello","queued_at":'
    '"2026-08-10T08:00:00Z","status":"queued","attempts":1,"claim_token":"","lease_until":"","transport_id":"",'
    '"sent_at":"","last_error":""}'
)
V1_MAIL = {
    "schema_version": 1, "approval_id": APPROVAL, "approver": "ana@example.com", "kind": "request",
    "nonce": "c" * 32, "point": "", "queued_at": "2026-08-10T08:00:00Z", "status": "sent", "attempts": 1,
    "claim_token": "", "lease_until": "", "transport_id": "smtp:Q1", "sent_at": "2026-08-10T08:00:01Z",
    "last_error": "",
}  # fmt: skip


def test_a_version_1_plan_message_reads_and_writes_back_as_stored() -> None:
    message = OutboxMessage.model_validate_json(V1_PLAN)
    assert (message.schema_version, message.kind, message.key, message.is_plan) == (1, "customer", f"{HASH}#02", True)
    assert message.model_dump_json() == V1_PLAN
    sent = message.sent("smtp:Q9", parse_utc("2026-08-10T08:01:00Z"))
    assert OutboxMessage.model_validate_json(sent.model_dump_json()) == sent and sent.schema_version == 1


def test_an_approval_mail_of_the_old_record_reads_with_the_key_and_message_id_it_had() -> None:
    message = from_approval_mail_v1(json.dumps(V1_MAIL))
    assert (message.kind, message.to, message.status, message.transport_id) == (
        "request", "ana@example.com", "sent", "smtp:Q1"
    )  # fmt: skip
    old_key = f"{APPROVAL}#request#{'c' * 32}"
    assert message.key == old_key and message.schema_version == 2
    assert (
        message.message_id == f"<{hashlib.sha256(old_key.encode()).hexdigest()[:40]}@approvals.production-orchestrator>"
    )
    assert "proposal_hash" not in message.model_dump_json()  # only its kind's fields are stored
    assert OutboxMessage.model_validate_json(message.model_dump_json()) == message


@pytest.mark.parametrize("version", [0, 3, "2"])
def test_an_unknown_version_is_refused_by_name(version: object) -> None:
    with pytest.raises(ValidationError, match=r"schema version .* is not one this release reads"):
        OutboxMessage.model_validate_json(
            V1_PLAN.replace('"schema_version":1', f'"schema_version":{json.dumps(version)}')
        )
    with pytest.raises(ValueError, match="approval mail record of schema version"):
        from_approval_mail_v1(json.dumps({**V1_MAIL, "schema_version": version}))


def test_a_record_missing_what_its_kind_needs_is_refused() -> None:
    with pytest.raises(ValidationError, match="needs point"):
        OutboxMessage(kind="reminder", approval_id=APPROVAL, to="ana@example.com", queued_at="2026-08-10T08:00:00Z")
    with pytest.raises(ValidationError, match="plan messages only"):
        OutboxMessage(schema_version=1, kind="reminder", approval_id=APPROVAL, to="ana@example.com", point="1h",
                      queued_at="2026-08-10T08:00:00Z")  # fmt: skip


def test_the_order_puts_a_plans_drafts_first_and_approval_mail_in_queue_order() -> None:
    plan = OutboxMessage.model_validate_json(V1_PLAN)
    now = parse_utc(plan.queued_at)
    later, earlier = (
        approval_reminder(APPROVAL, "z@example.com", "1h", now),
        approval_reminder(APPROVAL, "a@example.com", "1h", now),
    )
    assert outbox_order([(1, later), (2, earlier), (3, plan)]) == [plan, later, earlier]


def test_the_trail_counts_a_step_committed_between_its_two_reads_as_the_messages_own() -> None:
    plan = OutboxMessage.model_validate_json(V1_PLAN)
    now = parse_utc(plan.queued_at)
    failed = audit_event("message_failed", now, message=plan.key)
    requeued = audit_event("message_requeued", now, message=plan.key)
    before = OutboxTrail.of([failed])
    assert before.problem(plan) is not None  # read alone, the queued row contradicts the failure
    after = OutboxTrail.of([failed, requeued])
    assert after.problem(plan, since=before.length) is None  # requeued in between: its own step
    assert OutboxTrail.of([failed]).problem(plan, since=before.length) is not None
