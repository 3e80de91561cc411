"""Receipts MACed by a KMS HMAC key and the audit hash chain in DynamoDB, over a moto server.

decide (GenerateMac) -> vote + receipt in the approval record -> resume (VerifyMac) -> applied;
a receipt altered in the table -> RECEIPT_INVALID with nothing written; the operator command names the
first broken link of an edited, deleted or reordered audit event; concurrent appends keep one chain.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.aws.table_schema import APPROVAL_PK_PREFIX, APPROVAL_SK, AUDIT_PK, AUDIT_SK_PREFIX
from production_orchestrator.cli import main
from production_orchestrator.domain.approval.audit_chain import verify_chain
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.domain.records import AuditEvent
from tests.support.aws_flow import Flow, start
from tests.support.moto_aws import AwsWorld, Clock, cold_start


@pytest.fixture
def keyed(aws: AwsWorld, monkeypatch: pytest.MonkeyPatch) -> AwsWorld:
    monkeypatch.setenv("PO_RECEIPT_KEY_ID", aws.receipt_key())
    cold_start()
    return aws


def _decided(aws: AwsWorld, decision: str = "approve") -> Flow:
    flow = start(aws)
    flow.request_approval()
    assert flow.post(decision)["statusCode"] == 200
    return flow


def test_a_receipted_decision_resumes(keyed: AwsWorld, clock: Clock) -> None:
    flow = _decided(keyed)
    approval = DynamoApprovalStore(keyed.dynamodb, keyed.table).get_approval(flow.approval_id)
    assert approval is not None and len(approval.votes) == 1
    receipt = approval.votes[0].receipt
    assert receipt is not None and receipt.mac and receipt.key_id == keyed.receipt_key()
    assert receipt.proposal_hash == flow.proposal_hash and receipt.decision == "approve"
    assert flow.resume()["outcome"] == "applied"


@pytest.mark.parametrize("field", ["approver", "decision", "mac"])
def test_a_receipt_altered_in_the_table_is_refused(keyed: AwsWorld, clock: Clock, field: str) -> None:
    flow = _decided(keyed, "reject")
    item = keyed.raw_item(APPROVAL_PK_PREFIX + flow.approval_id, APPROVAL_SK)
    assert item is not None
    record = json.loads(item["record"]["S"])
    receipt = record["votes"][0]["receipt"]
    receipt[field] = {"approver": "ben@example.com", "decision": "approve", "mac": "AAAA" + receipt["mac"][4:]}[field]
    item["record"] = {"S": json.dumps(record)}
    keyed.put_raw_item(item)
    before = keyed.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        flow.resume()
    assert refused.value.code is RefusalCode.RECEIPT_INVALID
    assert keyed.snapshot() == before


def _audit_items(aws: AwsWorld) -> list[dict[str, Any]]:
    pages = aws.dynamodb.get_paginator("query").paginate(
        TableName=aws.table,
        KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues={":pk": {"S": AUDIT_PK}, ":prefix": {"S": AUDIT_SK_PREFIX}},
    )
    return [item for page in pages for item in page["Items"]]


def _ops(capsys: pytest.CaptureFixture[str], aws: AwsWorld) -> tuple[int, str, str]:
    code = main(["--table", aws.table, "audit", "verify"])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_operator_command_finds_the_first_broken_link(
    aws: AwsWorld, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = _decided(aws)
    flow.resume()
    code, out, _ = _ops(capsys, aws)
    assert code == 0 and "AUDIT_CHAIN=intact" in out

    items = _audit_items(aws)
    assert len(items) >= 8
    edited = dict(items[2])
    data = json.loads(edited["raw"]["S"])
    data["detail"]["tampered"] = True
    edited["raw"] = {"S": json.dumps(data)}
    aws.put_raw_item(edited)
    code, out, err = _ops(capsys, aws)
    assert code == 5 and "BROKEN_AT=4" in out and "event #4" in err
    aws.put_raw_item(items[2])

    aws.dynamodb.delete_item(TableName=aws.table, Key={"pk": items[3]["pk"], "sk": items[3]["sk"]})
    code, out, _ = _ops(capsys, aws)
    assert code == 5 and "BROKEN_AT=4" in out
    aws.put_raw_item(items[3])

    swapped_a, swapped_b = dict(items[4]), dict(items[5])
    swapped_a["raw"], swapped_b["raw"] = items[5]["raw"], items[4]["raw"]
    aws.put_raw_item(swapped_a)
    aws.put_raw_item(swapped_b)
    code, out, _ = _ops(capsys, aws)
    assert code == 5 and "BROKEN_AT=5" in out


def test_concurrent_appends_keep_one_chain(aws: AwsWorld) -> None:
    store = DynamoShopStore(aws.dynamodb, aws.table)
    barrier = threading.Barrier(6)
    failures: list[BaseException] = []

    def append(worker: int) -> None:
        barrier.wait()
        for index in range(4):
            try:
                store.append_audit(AuditEvent(event_type=f"w{worker}_{index}", at="2026-08-12T08:00:00Z"))
            except BaseException as exc:  # collected: the assertion names them
                failures.append(exc)

    threads = [threading.Thread(target=append, args=(worker,)) for worker in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    events, head = store.raw_audit_trail()
    assert len(events) == 24 and head is not None and head[0] == 24
    assert verify_chain(events, head).intact


def test_the_requester_may_not_approve_in_aws(aws: AwsWorld, clock: Clock) -> None:
    from tests.support.moto_aws import APPROVERS, iam_caller

    # Ana submits (signed): the run records her as the requester, whatever an execution input might claim.
    flow = start(aws, caller=iam_caller(APPROVERS[0].upper()))
    assert flow.run["requested_by"] == APPROVERS[0]
    flow.request_approval()  # PO_SEPARATION_OF_DUTIES is unset: on by default
    page = flow.get(flow.link(APPROVERS[0]))
    assert page["statusCode"] == 200 and "Approve this exact plan" not in page["body"]
    before = aws.snapshot()
    refused = flow.post("approve", link=flow.link(APPROVERS[0]))
    assert refused["statusCode"] == 403 and aws.snapshot() == before
    assert flow.post("approve", link=flow.link(APPROVERS[1]))["statusCode"] == 200
    assert flow.resume()["outcome"] == "applied"


def test_no_page_or_header_carries_a_secret(keyed: AwsWorld, clock: Clock) -> None:
    flow = start(keyed)
    flow.request_approval()
    responses = [flow.get(), flow.get(method="HEAD"), flow.post("reject"), flow.get(), flow.post("approve")]
    assert [r["statusCode"] for r in responses] == [200, 200, 200, 200, 409]
    secrets = [flow.task_token, *(link.secret for link in flow.links)]
    for response in responses:
        text = response["body"] + json.dumps(response["headers"])
        assert all(secret not in text for secret in secrets)
