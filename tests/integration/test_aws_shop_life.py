"""The shop's own life on the DynamoDB table (moto server on 127.0.0.1): the operator path (--table) runs the same
lifecycle steps as the local CLI through the ShopStore port; each change is one transaction with its chained
audit event, each refusal exits 2 and leaves every item as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.cli import main
from production_orchestrator.services.audit import verify_audit
from tests.support.aws_flow import Flow, _invoke
from tests.support.moto_aws import AwsWorld, Clock
from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLE_REQUESTS, EXAMPLES

SHOP_FILE = EXAMPLES / "print-shop.json"


@pytest.fixture(autouse=True)
def hand_typed_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PO_SEPARATION_OF_DUTIES", "false")  # executions started by hand, as in test_aws_shop.py


def _store(aws: AwsWorld) -> DynamoShopStore:
    return DynamoShopStore(aws.dynamodb, aws.table)


def _items(aws: AwsWorld) -> list[dict[str, Any]]:
    return sorted(
        aws.dynamodb.scan(TableName=aws.table, ConsistentRead=True)["Items"],
        key=lambda i: repr(sorted(i.items())),
    )


def _ops(aws: AwsWorld, *args: str) -> int:
    return main(["--table", aws.table, *args[0].split("-", 1), *args[1:]])


def test_receive_complete_cancel_progress_on_the_table(aws: AwsWorld, capsys: pytest.CaptureFixture[str]) -> None:
    assert _ops(aws, "shop-import", str(SHOP_FILE)) == 0
    assert _ops(aws, "shop-receive", "CAP-BLANK", "200", "--ref", "note 4711") == 0
    assert _ops(aws, "order-progress", "ORD-1003", "--minutes", "60") == 0
    assert _ops(aws, "order-complete", "ORD-1002") == 0
    assert _ops(aws, "order-cancel", "ORD-1004", "--reason", "customer withdrew") == 0
    out = capsys.readouterr().out
    assert "MATERIAL=CAP-BLANK" in out and "ORDER=ORD-1004" in out and "STATE_REVISION=5" in out
    state = _store(aws).load_state()
    assert state is not None and state.revision == 5
    assert state.material("CAP-BLANK").on_hand == 350  # type: ignore[union-attr]
    assert state.order("ORD-1003").scheduled_minutes == 180  # type: ignore[union-attr]
    assert {c.order.id: c.status for c in state.closed_orders} == {"ORD-1002": "complete", "ORD-1004": "cancelled"}
    events = [e.event_type for e in _store(aws).audit_events()]
    assert events[-4:] == ["material_received", "order_progressed", "order_completed", "order_cancelled"]
    approvals = DynamoApprovalStore(aws.dynamodb, aws.table)
    assert verify_audit(_store(aws), approvals, audit_key=None, receipt_key=None).intact


@pytest.mark.parametrize(
    ("code", "args"),
    [
        ("UNKNOWN_MATERIAL", ("shop-receive", "CAP-BLUE", "10")),
        ("INVALID_QUANTITY", ("shop-receive", "CAP-BLANK", "0")),
        ("UNKNOWN_ORDER", ("order-complete", "ORD-9999")),
        ("INVALID_TEXT", ("order-cancel", "ORD-1001", "--reason", " ")),
        ("PROGRESS_TOO_LARGE", ("order-progress", "ORD-1001", "--minutes", "480")),
    ],
)
def test_a_refused_change_exits_2_and_leaves_every_item(
    aws: AwsWorld, capsys: pytest.CaptureFixture[str], code: str, args: tuple[str, ...]
) -> None:
    assert _ops(aws, "shop-import", str(SHOP_FILE)) == 0
    before = _items(aws)
    assert _ops(aws, *args) == 2
    assert code in capsys.readouterr().err
    assert _items(aws) == before


def test_reimport_after_an_applied_plan_is_guarded_on_the_table(
    aws: AwsWorld, clock: Clock, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert _ops(aws, "shop-import", str(SHOP_FILE)) == 0
    caps = EXAMPLE_REQUESTS["request-caps"].read_text()
    flow = Flow(aws=aws, run=_invoke("run_agent", {"request": caps, "as_of": EXAMPLE_DAY}))
    flow.request_approval()
    assert flow.post("approve", link=flow.link("ben@example.com"))["statusCode"] == 200
    assert flow.resume()["outcome"] == "applied"
    capsys.readouterr()
    assert _ops(aws, "shop-import", "--dry-run", str(SHOP_FILE)) == 0
    dry = capsys.readouterr()
    assert "NEEDS_REPLACE=1" in dry.out and "would be removed" in dry.err
    before = _items(aws)
    assert _ops(aws, "shop-import", str(SHOP_FILE)) == 2
    assert "IMPORT_CONFLICT" in capsys.readouterr().err
    assert _items(aws) == before
    assert _ops(aws, "shop-import", "--replace", str(SHOP_FILE)) == 0
    state = _store(aws).load_state()
    assert state is not None and state.revision == 3


def test_the_old_dashed_spelling_runs_the_same_command_on_the_table(
    aws: AwsWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """``shop-receive --table T ...`` (what cli/aws_ops.py spelled) is a hidden alias of ``shop receive``."""
    assert _ops(aws, "shop-import", str(SHOP_FILE)) == 0
    capsys.readouterr()
    assert main(["shop-receive", "--table", aws.table, "CAP-BLANK", "200"]) == 0
    captured = capsys.readouterr()
    assert "is now `production-orchestrator shop receive`" in captured.err
    assert "MATERIAL=CAP-BLANK" in captured.out and "STATE_REVISION=2" in captured.out
    state = _store(aws).load_state()
    assert state is not None and state.material("CAP-BLANK").on_hand == 350  # type: ignore[union-attr]
