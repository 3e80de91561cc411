"""Customer e-mails received by SES start runs: the real handler over wire calls to moto on 127.0.0.1. The raw
RFC 5322 message is put where the receipt rule's S3 action puts it (``inbound/<message id>``), then the handler
gets the event the rule's Lambda action sends (tests/events/receive_email.json)."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.aws.dynamodb_submissions import DynamoSubmissionStore
from production_orchestrator.domain.errors import NotFoundError
from production_orchestrator.domain.intake.submissions import received_execution_name
from production_orchestrator.domain.scenarios import scenario
from production_orchestrator.handlers.settings import load_settings
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.aws_flow import _invoke, run_agent_event
from tests.support.hostile_mail import nested_mime
from tests.support.moto_aws import APPROVERS, AwsWorld, Clock, load_event
from tests.support.runtimes import runtime_of

INBOUND = "orders@shop.example"
CHANNEL = "inbound:orders@shop.example"
CUSTOMER = "coach@northside-fc.example"
# A message as a mail client sends it: MIME, a text and an HTML part, CRLF line ends.
MESSAGE = (
    "Return-Path: <bounces+coach@northside-fc.example>\r\n"
    "DKIM-Signature: v=1; a=rsa-sha256; d=northside-fc.example; s=mail; h=from:to:subject; bh=x; b=y\r\n"
    "From: Coach Ana Lind <Coach@Northside-FC.example>\r\n"
    "To: orders@shop.example\r\n"
    "Subject: Rush request RUSH-200\r\n"
    "Date: Wed, 12 Aug 2026 07:30:00 +0200\r\n"
    "Message-ID: <rush-200@northside-fc.example>\r\n"
    "MIME-Version: 1.0\r\n"
    'Content-Type: multipart/alternative; boundary="b1"\r\n'
    "\r\n"
    "--b1\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "\r\n"
    "Hello, we need this as soon as possible:\r\n"
    "Customer: Northside FC\r\n"
    "Order: RUSH-200\r\n"
    "Product: CREST-PATCH-RED\r\n"
    "Quantity: 120\r\n"
    "Needed by: 2026-08-12\r\n"
    "Priority: 100\r\n"
    "--b1\r\n"
    "Content-Type: text/html; charset=utf-8\r\n"
    "\r\n"
    # What a mail client shows (the HTML part) says what the text part says: intake reads the HTML one.
    "<p>Hello, we need this as soon as possible:<br>Customer: Northside FC<br>Order: RUSH-200<br>\r\n"
    "Product: CREST-PATCH-RED<br>Quantity: 120<br>Needed by: 2026-08-12<br>Priority: 100</p>\r\n"
    "--b1--\r\n"
)
FROM = "Coach Ana Lind <Coach@Northside-FC.example>"


@pytest.fixture
def inbound(aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Iterator[AwsWorld]:
    monkeypatch.setenv("PO_INBOUND_ADDRESS", INBOUND)
    yield aws


def _received(aws: AwsWorld, message: str | bytes = MESSAGE, *, store: bool = True, **fields: Any) -> dict[str, Any]:
    """SES stored ``message`` and sends the rule's Lambda event; ``fields`` override its parts."""
    message_id = secrets.token_hex(20)
    if store:
        body = message.encode() if isinstance(message, str) else message
        aws.s3.put_object(Bucket=aws.bucket, Key=f"inbound/{message_id}", Body=body)
    event = load_event(
        "receive_email", message_id=message_id, recipient=fields.pop("recipient", INBOUND), **{"from": FROM}
    )
    receipt = event["Records"][0]["ses"]["receipt"]
    for verdict, status in fields.items():
        if status is None:
            del receipt[verdict]
        else:
            receipt[verdict] = {"status": status}
    return event


def _executions(aws: AwsWorld) -> list[dict[str, Any]]:
    sfn = aws.session.client("stepfunctions")
    return list(sfn.list_executions(stateMachineArn=aws.state_machine_arn)["executions"])


def _submission_items(aws: AwsWorld) -> list[dict[str, Any]]:
    items = aws.dynamodb.scan(TableName=aws.table, ConsistentRead=True)["Items"]
    return [item for item in items if item["pk"]["S"].startswith("SUBMISSION#")]


def test_an_authenticated_email_starts_one_run_asked_for_by_the_channel(inbound: AwsWorld, clock: Clock) -> None:
    event = _received(inbound)
    message_id = event["Records"][0]["ses"]["mail"]["messageId"]
    out = _invoke("receive_email", event)
    assert out["outcome"] == "started"
    record = DynamoSubmissionStore(inbound.dynamodb, inbound.table).get_submission(out["execution_name"])
    assert record is not None
    assert out["execution_name"] == received_execution_name(message_id, record.request)
    assert (record.requested_by, record.customer, record.caller_id) == (CHANNEL, CUSTOMER, message_id)
    assert "Order: RUSH-200" in record.request and "<p>" not in record.request  # the text part, canonical
    (execution,) = _executions(inbound)
    assert execution["executionArn"] == out["execution_arn"] and execution["name"] == out["execution_name"]
    started = inbound.session.client("stepfunctions").describe_execution(executionArn=out["execution_arn"])
    assert json.loads(started["input"]) == {"request": record.request}
    # RunAgentUntilApproval with the input as the state machine passes it, on the table's shop on the e-mail's
    # day: the run finds its requester in the record (the channel, so every approver may approve it) and plans
    # the customer's order.
    shop = DynamoShopStore(inbound.dynamodb, inbound.table)
    import_shop(runtime_of(shop, clock=clock), ImportShop(scenario("rush-order").state))
    clock.now = datetime(2026, 8, 12, 6, 0, tzinfo=UTC)
    run = _invoke("run_agent", run_agent_event(out["execution_name"], json.loads(started["input"])))
    assert run["requested_by"] == CHANNEL and run["checkpoint_id"].startswith("ckpt-")
    checkpoint = shop.get_checkpoint(run["checkpoint_id"])
    assert checkpoint is not None and json.loads(checkpoint)["target_order_id"] == "RUSH-200"
    policy = load_settings(os.environ).policy(run["requested_by"])
    assert set(policy.eligible()) == set(APPROVERS) and CUSTOMER not in policy.eligible()


def test_a_retried_delivery_is_one_submission_and_one_execution(inbound: AwsWorld, clock: Clock) -> None:
    from datetime import timedelta

    event = _received(inbound)
    first = _invoke("receive_email", event)
    clock.advance(timedelta(minutes=2))  # Lambda retries an asynchronous event later
    again = _invoke("receive_email", event)
    assert again == first
    assert len(_submission_items(inbound)) == 1 and len(_executions(inbound)) == 1


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"dkimVerdict": "FAIL"}, "VERDICT_FAILED"),  # a forged or broken DKIM signature
        ({"dmarcVerdict": "FAIL"}, "VERDICT_FAILED"),  # From not aligned with what SPF or DKIM vouched for
        ({"spfVerdict": "GRAY"}, "VERDICT_FAILED"),
        ({"dmarcVerdict": None}, "VERDICT_FAILED"),  # no verdict is no pass
        ({"spamVerdict": "FAIL"}, "SPAM_OR_VIRUS"),
        ({"virusVerdict": "FAIL"}, "SPAM_OR_VIRUS"),
        ({"recipient": "sales@shop.example"}, "WRONG_RECIPIENT"),
    ],
)
def test_a_refused_email_writes_nothing_starts_nothing_and_is_counted(
    fields: dict[str, Any], code: str, inbound: AwsWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    event = _received(inbound, **fields)
    before = inbound.snapshot()
    capsys.readouterr()
    out = _invoke("receive_email", event)  # returns normally: SES does not retry a refusal
    assert (out["outcome"], out["code"]) == ("refused", code)
    assert inbound.snapshot() == before and _executions(inbound) == []
    metrics = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    refused = [m for m in metrics if "InboundRefused" in m]
    assert len(refused) == 1 and refused[0]["code"] == code


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (MESSAGE.replace("Coach@Northside-FC.example", "ceo@rival.example"), "SENDER_INVALID"),
        (MESSAGE.replace("Priority: 100", "x" * 20_001), "MESSAGE_TOO_LARGE"),
        (b" \r\n\r\n", "MESSAGE_UNREADABLE"),
        # 2,000 nested multiparts: refused before the parser recurses (no RecursionError, so no retried delivery).
        (nested_mime(2000).replace("mia@club.example", "Coach@Northside-FC.example"), "MIME_TOO_DEEP"),
        (nested_mime(13).replace("mia@club.example", "Coach@Northside-FC.example"), "MIME_TOO_DEEP"),
        (b"From: coach@northside-fc.example\r\n\r\n", "MESSAGE_UNREADABLE"),
        # An encoded From holding a line break: the email package cannot read it; refused, not raised.
        (
            MESSAGE.replace("From: Coach Ana Lind <", "From: =?utf-8?q?Coach=0ABcc=3A_x?= <"),
            "MESSAGE_UNREADABLE",
        ),
    ],
)
def test_a_message_that_is_not_a_readable_request_from_the_judged_sender_is_refused(
    message: str | bytes, code: str, inbound: AwsWorld
) -> None:
    event = _received(inbound, message)
    before = inbound.snapshot()
    out = _invoke("receive_email", event)
    assert (out["outcome"], out["code"]) == ("refused", code)
    assert inbound.snapshot() == before and _executions(inbound) == []


def test_an_approver_cannot_start_a_run_by_email(inbound: AwsWorld) -> None:
    approver = APPROVERS[0]
    event = _received(inbound, MESSAGE.replace("Coach@Northside-FC.example", approver.upper()))
    event["Records"][0]["ses"]["mail"]["commonHeaders"]["from"] = [approver]
    before = inbound.snapshot()
    out = _invoke("receive_email", event)
    assert (out["outcome"], out["code"]) == ("refused", "SENDER_IS_APPROVER")
    assert inbound.snapshot() == before and _executions(inbound) == []


def test_a_stored_message_larger_than_any_request_is_refused_unread(inbound: AwsWorld) -> None:
    event = _received(inbound, MESSAGE + "x" * (10 * 1024 * 1024))
    before = inbound.snapshot()
    out = _invoke("receive_email", event)
    assert (out["outcome"], out["code"]) == ("refused", "MESSAGE_TOO_LARGE")
    assert inbound.snapshot() == before and _executions(inbound) == []


@pytest.mark.parametrize("event", [{}, {"Records": []}, {"Records": [{"ses": {}}]}])
def test_a_malformed_event_is_refused(event: dict[str, Any], inbound: AwsWorld) -> None:
    before = inbound.snapshot()
    out = _invoke("receive_email", event)
    assert (out["outcome"], out["code"]) == ("refused", "EVENT_INVALID")
    assert inbound.snapshot() == before and _executions(inbound) == []


def test_a_missing_stored_message_raises_so_the_delivery_is_retried(inbound: AwsWorld) -> None:
    event = _received(inbound, store=False)
    before = inbound.snapshot()
    with pytest.raises(NotFoundError):
        _invoke("receive_email", event)
    assert inbound.snapshot() == before and _executions(inbound) == []
    # The retry, once the object is there, starts the run.
    message_id = event["Records"][0]["ses"]["mail"]["messageId"]
    inbound.s3.put_object(Bucket=inbound.bucket, Key=f"inbound/{message_id}", Body=MESSAGE.encode())
    assert _invoke("receive_email", event)["outcome"] == "started"
    assert len(_executions(inbound)) == 1


# Says who asks and that they want patches, but no product the shop makes, no quantity and no day.
UNREADABLE = (
    MESSAGE.replace("Subject: Rush request RUSH-200", "Subject: Patches for the away kit")
    .replace("Order: RUSH-200\r\n", "")
    .replace("Product: CREST-PATCH-RED\r\nQuantity: 120\r\nNeeded by: 2026-08-12\r\n", "Some patches, please.\r\n")
    .replace("Order: RUSH-200<br>\r\nProduct: CREST-PATCH-RED<br>Quantity: 120<br>Needed by: 2026-08-12<br>", "")
    .replace("Priority: 100", "Ring me about the rest")
)


def test_an_email_that_cannot_be_read_waits_as_needs_facts_and_the_operator_is_told_once(
    inbound: AwsWorld, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    from production_orchestrator.cli import main

    shop = DynamoShopStore(inbound.dynamodb, inbound.table)
    import_shop(runtime_of(shop, clock=clock), ImportShop(scenario("rush-order").state))
    out = _invoke("receive_email", _received(inbound, UNREADABLE))
    assert out["outcome"] == "started"
    started = inbound.session.client("stepfunctions").describe_execution(executionArn=out["execution_arn"])
    event = run_agent_event(out["execution_name"], json.loads(started["input"]))
    clock.now = datetime(2026, 8, 12, 6, 0, tzinfo=UTC)
    before = inbound.snapshot()
    run = _invoke("run_agent", event)  # returns (RequestRead -> RequestNeedsFacts): nothing raised, nothing retried
    held = run["held_id"]
    assert held.startswith("held-") and run["requested_by"] == CHANNEL and "checkpoint_id" not in run
    assert any("quantity" in gap for gap in run["missing"])
    added = [i for i in inbound.snapshot()["items"] if i not in before["items"]]
    assert not any("CHECKPOINT" in item for item in added)  # nothing planned
    (stored,) = shop.held_requests()
    assert (stored.held_id, stored.kind, stored.status, stored.sender) == (held, "needs_facts", "held", CUSTOMER)
    capsys.readouterr()
    assert main(["--table", inbound.table, "request", "list", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["held"]
    assert (listed["held_id"], listed["kind"]) == (held, "needs_facts")
    # The operator hears of it: the hold, the sender and what is missing; not the customer's words.
    (alert,) = inbound.operator_alerts()
    assert held in alert["subject"] and held in alert["message"] and CUSTOMER in alert["message"]
    assert "quantity" in alert["message"]
    for words in ("Patches for the away kit", "Some patches", "Ring me"):
        assert words not in alert["message"] and words not in alert["subject"]
    # A retried task (or a second delivery of the same message) finds the hold: no second hold, no second alert.
    after = inbound.snapshot()
    assert _invoke("run_agent", event)["held_id"] == held
    assert inbound.snapshot() == after and inbound.operator_alerts() == []


def test_an_alert_that_cannot_be_sent_leaves_the_request_held_and_the_run_returns(
    inbound: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = DynamoShopStore(inbound.dynamodb, inbound.table)
    import_shop(runtime_of(shop, clock=clock), ImportShop(scenario("rush-order").state))
    inbound.sns.delete_topic(TopicArn=inbound.operator_topic_arn)  # publishing now fails (NotFound)
    out = _invoke("receive_email", _received(inbound, UNREADABLE))
    started = inbound.session.client("stepfunctions").describe_execution(executionArn=out["execution_arn"])
    run = _invoke("run_agent", run_agent_event(out["execution_name"], json.loads(started["input"])))
    (stored,) = shop.held_requests()
    assert run["held_id"] == stored.held_id and stored.kind == "needs_facts"
