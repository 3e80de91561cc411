"""A customer's e-mail received by SES runs the synthesized state machine on moto: the receiving function (a
fresh process, as SES's asynchronous invoke would start it) records the submission and starts the execution,
RunAgentUntilApproval plans it on the table's shop with the inbound channel as the requester, and the workflow
parks for a human. SES's retry of the same delivery is no second run; every AWS call is within the role the
template gives the function that made it."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from infra.constants import (
    STATE_ARM_REMINDERS,
    STATE_NEEDS_FACTS,
    STATE_READ_OUTCOME,
    STATE_RUN_AGENT,
    STATE_WAIT_FOR_DECISION,
)
from production_orchestrator.domain.scenarios import scenario
from production_orchestrator.domain.shop.model import zone
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.e2e.test_workflow import _every_call_was_granted
from tests.support.cdk_template import synthesize
from tests.support.moto_aws import load_event
from tests.support.moto_workflow import LOCAL_CONTEXT, LocalAws, local_aws
from tests.support.runtimes import runtime_of

INBOUND = "orders@shop.example"
CHANNEL = "inbound:orders@shop.example"


@pytest.fixture(scope="module")
def aws() -> Iterator[LocalAws]:
    with local_aws() as local:
        yield local


def _message(today: str, due: str) -> str:
    """The rush order, sent today by the customer and needed by ``due`` (the subprocesses plan on the real day)."""
    return (
        "From: Coach Ana Lind <coach@northside-fc.example>\r\n"
        "To: orders@shop.example\r\n"
        f"Date: {today}\r\n"
        "Subject: Rush request RUSH-200\r\n"
        "Message-ID: <rush-200@northside-fc.example>\r\n"
        "\r\n"
        "Hello, we need this as soon as possible:\r\n"
        "Customer: Northside FC\r\nOrder: RUSH-200\r\nProduct: CREST-PATCH-RED\r\nQuantity: 120\r\n"
        f"Needed by: {due}\r\nPriority: 100\r\n"
    )


def test_an_emailed_request_runs_the_workflow_once_asked_for_by_the_channel(aws: LocalAws) -> None:
    deployment = aws.deploy(synthesize({**LOCAL_CONTEXT, "inboundAddress": INBOUND}))
    shop = scenario("rush-order").state
    import_shop(runtime_of(deployment.store), ImportShop(shop))
    now = datetime.now(zone(shop.timezone))
    due = (now + timedelta(days=1)).date().isoformat()
    message_id = secrets.token_hex(20)
    raw = _message(now.strftime("%a, %d %b %Y %H:%M:%S %z"), due)
    aws.client("s3").put_object(Bucket=deployment.bucket_name, Key=f"inbound/{message_id}", Body=raw.encode())
    event = load_event(
        "receive_email",
        message_id=message_id,
        recipient=INBOUND,
        **{"from": "Coach Ana Lind <coach@northside-fc.example>"},
    )
    receive = deployment.function_name("receive_email")
    first = aws.router.invoke(receive, event)
    assert first.error is None and first.result["outcome"] == "started", first.error or first.result
    execution_arn = first.result["execution_arn"]
    deployment.wait_for_message()  # the approval e-mail: the run parked for a human
    assert deployment.states(execution_arn) == [
        STATE_RUN_AGENT,
        STATE_READ_OUTCOME,
        STATE_ARM_REMINDERS,
        STATE_WAIT_FOR_DECISION,
    ]
    (run,) = [i for i in deployment.invocations() if i.handler_module == "run_agent"]
    assert run.error is None and run.result["requested_by"] == CHANNEL
    # SES's asynchronous invoke is retried (or delivered twice): the same record, the same running execution.
    again = aws.router.invoke(receive, event)
    assert again.error is None and again.result == first.result
    executions = deployment.sfn.list_executions(stateMachineArn=deployment.state_machine_arn)["executions"]
    assert [e["executionArn"] for e in executions] == [execution_arn]
    items = deployment.dynamodb.scan(TableName=deployment.table_name)["Items"]
    submissions = [json.loads(i["record"]["S"]) for i in items if i["pk"]["S"].startswith("SUBMISSION#")]
    assert [(s["requested_by"], s["customer"]) for s in submissions] == [(CHANNEL, "coach@northside-fc.example")]
    # What the function really called (and the role, checked next, must allow): the retry also reads its record.
    made = [{(c[0], c[1]) for c in invocation.calls} for invocation in (first, again)]
    assert made[0] == {("s3", "GetObject"), ("dynamodb", "PutItem"), ("states", "StartExecution")}
    assert made[1] == made[0] | {("dynamodb", "GetItem")}
    _every_call_was_granted(deployment)


def test_an_emailed_request_that_cannot_be_read_waits_as_needs_facts_and_the_execution_succeeds(
    aws: LocalAws,
) -> None:
    deployment = aws.deploy(synthesize({**LOCAL_CONTEXT, "inboundAddress": INBOUND}))
    shop = scenario("rush-order").state
    import_shop(runtime_of(deployment.store), ImportShop(shop))
    now = datetime.now(zone(shop.timezone))
    raw = (
        _message(now.strftime("%a, %d %b %Y %H:%M:%S %z"), "x")
        .replace("Order: RUSH-200\r\nProduct: CREST-PATCH-RED\r\nQuantity: 120\r\nNeeded by: x\r\n", "")
        .replace("Subject: Rush request RUSH-200", "Subject: Patches")
        .replace("<rush-200@", "<patches@")
    )
    message_id = secrets.token_hex(20)
    aws.client("s3").put_object(Bucket=deployment.bucket_name, Key=f"inbound/{message_id}", Body=raw.encode())
    event = load_event(
        "receive_email", message_id=message_id, recipient=INBOUND, **{"from": "coach@northside-fc.example"}
    )
    first = aws.router.invoke(deployment.function_name("receive_email"), event)
    assert first.error is None and first.result["outcome"] == "started", first.error or first.result
    execution_arn = first.result["execution_arn"]
    assert deployment.wait_for_status(execution_arn) == "SUCCEEDED"
    assert deployment.states(execution_arn) == [STATE_RUN_AGENT, STATE_READ_OUTCOME, STATE_NEEDS_FACTS]
    (run,) = [i for i in deployment.invocations() if i.handler_module == "run_agent"]
    assert run.error is None and run.result["outcome"] == "needs_facts"
    (held,) = deployment.store.held_requests()
    assert (held.held_id, held.kind) == (run.result["held_id"], "needs_facts")
    # The operator's alert went to the alarm topic, within the role the template gives the start function.
    assert ("sns", "Publish") in {(c[0], c[1]) for c in run.calls}
    _every_call_was_granted(deployment)
