"""An approver typed with capitals still gets their link: the real request_approval publishes to SNS on moto,
and SNS delivers to SQS queues subscribed with the filter policy the synthesized stack gives each approver's
e-mail subscription (moto applies filter policies as SNS does: exact string match)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from production_orchestrator.adapters.aws.sns_notifier import APPROVER_ATTRIBUTE
from tests.support.aws_flow import start
from tests.support.cdk_template import resources_of_type, synthesize
from tests.support.moto_aws import AwsWorld, Clock

TYPED = "Ana@Example.com"
CONTEXT = {"approverEmails": f"{TYPED},ben@example.com", "senderEmail": "orders@shop.example.com"}


def _template_filter(endpoint: str) -> dict[str, Any]:
    template = synthesize(CONTEXT)
    (subscription,) = [
        s["Properties"]
        for s in resources_of_type(template, "AWS::SNS::Subscription").values()
        if s["Properties"].get("Endpoint") == endpoint
    ]
    return dict(subscription["FilterPolicy"])


def _queue(aws: AwsWorld, name: str, filter_policy: dict[str, Any]) -> str:
    url = aws.sqs.create_queue(QueueName=name)["QueueUrl"]
    arn = aws.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    aws.sns.subscribe(
        TopicArn=aws.topic_arn, Protocol="sqs", Endpoint=arn, Attributes={"FilterPolicy": json.dumps(filter_policy)}
    )
    return str(url)


def _count(aws: AwsWorld, url: str) -> int:
    received = 0
    while batch := aws.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        received += len(batch)
        for message in batch:
            aws.sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return received


def test_a_mixed_case_approver_receives_exactly_their_link(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PO_APPROVERS", f"{TYPED},ben@example.com")
    stack_filter = _template_filter(TYPED)
    stack_queue = _queue(aws, f"{aws.table}-stack-filter", stack_filter)
    # What the stack used to subscribe: the address as typed. Kept here to show the failure it had.
    typed_queue = _queue(aws, f"{aws.table}-typed-filter", {APPROVER_ATTRIBUTE: [TYPED]})
    flow = start(aws)
    flow.request_approval()
    assert _count(aws, stack_queue) == 1
    assert _count(aws, typed_queue) == 0
    # ben's message does not reach ana's subscription
    assert {link.approver for link in flow.links} == {"ana@example.com", "ben@example.com"}
