"""A moto server on 127.0.0.1 and the AWS world the handlers run in: table, bucket, topic, approver queues.

    server (once per test session) -> AwsWorld (per test: its own table, bucket prefix, topic and queues)

Every call is a real boto3 wire call to the server. The environment the handlers read (``PO_*``) is set
per test, and the handlers' composition roots are reset so each test is a cold start.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit
from urllib.request import Request, urlopen

import boto3
import botocore.loaders
import botocore.session
import pytest
from moto.dynamodb.responses import DynamoHandler
from moto.server import ThreadedMotoServer

from production_orchestrator.adapters.aws.table_schema import (
    BILLING_MODE,
    OPEN_RUNS_INDEX,
    OPEN_RUNS_PROJECTED,
    OPEN_UNTIL_ATTRIBUTE,
    OPEN_UNTIL_TYPE,
    PARTITION_KEY,
    PARTITION_KEY_TYPE,
    SORT_KEY,
    SORT_KEY_TYPE,
    TTL_ATTRIBUTE,
)

REGION = "us-east-1"
ACCOUNT = "123456789012"
APPROVERS = ("ana@example.com", "ben@example.com")
# Callers sign in through IAM Identity Center (the session name is the signed-in user, set by Identity
# Center); the deployment's submitter map names that role, plus one IAM user for automation.
OPERATOR_ROLE = "AWSReservedSSO_ShopOperator_0a1b2c3d"
CI_USER = f"arn:aws:iam::{ACCOUNT}:user/CI-Bot"
SUBMITTERS = {
    f"arn:aws:iam::{ACCOUNT}:role/aws-reserved/sso.amazonaws.com/{OPERATOR_ROLE}": "identity-center",
    CI_USER: "ci-bot@example.com",
}


def operator_arn(session: str) -> str:
    """The caller ARN of the Identity Center user ``session``."""
    return f"arn:aws:sts::{ACCOUNT}:assumed-role/{OPERATOR_ROLE}/{session}"


LINK_BASE_URL = "https://approve.example.com/"
EVENTS_DIR = Path(__file__).resolve().parent.parent / "events"
DUMMY_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "AWS_EC2_METADATA_DISABLED": "true",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_SERVICE_NAME": "production-orchestrator",
    "POWERTOOLS_METRICS_NAMESPACE": "ProductionOrchestrator",
}


_DYNAMODB_LOCK = threading.RLock()
_original_call_action = DynamoHandler.call_action


def _serialized_call_action(self: DynamoHandler) -> Any:
    # moto's TransactWriteItems deep-copies the table first and, when any condition fails, rolls back by
    # putting that copy back: under concurrent requests (the threaded server) that loses other requests'
    # committed writes and can fail the copy itself ("dictionary changed size during iteration"). DynamoDB
    # applies each request atomically, so the local server serializes DynamoDB requests the same way.
    with _DYNAMODB_LOCK:
        return _original_call_action(self)


DynamoHandler.call_action = _serialized_call_action  # type: ignore[method-assign]


@contextmanager
def moto_server() -> Iterator[str]:
    """A threaded moto server bound to loopback only; yields its endpoint URL."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def environment(endpoint: str) -> dict[str, str]:
    """What boto3 and the handlers need to talk to the server (``MOTO_PORT`` for moto's own calls)."""
    return {**DUMMY_CREDENTIALS, "AWS_ENDPOINT_URL": endpoint, "MOTO_PORT": endpoint.rsplit(":", 1)[1]}


def load_event(name: str, **fields: Any) -> dict[str, Any]:
    """A stored sample event (tests/events/<name>.json) with ``fields`` replacing its placeholders."""
    event = json.loads((EVENTS_DIR / f"{name}.json").read_text())
    return _fill(event, fields)


def _fill(value: Any, fields: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, fields) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, fields) for v in value]
    if isinstance(value, str) and value.startswith("{{") and value.endswith("}}"):
        return fields[value[2:-2]]
    return value


@dataclass
class LambdaContext:
    """The attributes Powertools reads from a Lambda context."""

    function_name: str = "po-test"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:po-test"
    aws_request_id: str = field(default_factory=lambda: secrets.token_hex(8))


class Clock:
    """A settable clock the handlers read through ``core.utc_now``."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


@dataclass
class Link:
    """One approver's e-mailed link."""

    approver: str
    approval_id: str
    secret: str
    subject: str
    body: str


class AwsWorld:
    """One test's resources on the shared server."""

    def __init__(self, endpoint: str, tag: str) -> None:
        self.endpoint = endpoint
        self.session = boto3.Session(region_name=REGION)
        self.dynamodb = self.session.client("dynamodb")
        self.s3 = self.session.client("s3")
        self.sns = self.session.client("sns")
        self.sqs = self.session.client("sqs")
        self.table = f"po-{tag}"
        self.bucket = f"po-sessions-{tag}"
        self.prefix = "sessions/"
        self.dynamodb.create_table(
            TableName=self.table,
            KeySchema=[
                {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
                {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": PARTITION_KEY, "AttributeType": PARTITION_KEY_TYPE},
                {"AttributeName": SORT_KEY, "AttributeType": SORT_KEY_TYPE},
                {"AttributeName": OPEN_UNTIL_ATTRIBUTE, "AttributeType": OPEN_UNTIL_TYPE},
            ],
            LocalSecondaryIndexes=[
                {
                    "IndexName": OPEN_RUNS_INDEX,
                    "KeySchema": [
                        {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
                        {"AttributeName": OPEN_UNTIL_ATTRIBUTE, "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(OPEN_RUNS_PROJECTED)},
                }
            ],
            BillingMode=BILLING_MODE,
        )
        self.dynamodb.update_time_to_live(
            TableName=self.table, TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
        )
        self.s3.create_bucket(Bucket=self.bucket)
        self.topic_arn = self.sns.create_topic(Name=f"po-approvals-{tag}")["TopicArn"]
        # The alarm topic the start function alerts the operator on; a queue stands in for the operator's inbox.
        self.operator_topic_arn = self.sns.create_topic(Name=f"po-alarms-{tag}")["TopicArn"]
        self.operator_inbox = self.sqs.create_queue(QueueName=f"po-{tag}-operator")["QueueUrl"]
        inbox_arn = self.sqs.get_queue_attributes(QueueUrl=self.operator_inbox, AttributeNames=["QueueArn"])
        self.sns.subscribe(
            TopicArn=self.operator_topic_arn, Protocol="sqs", Endpoint=inbox_arn["Attributes"]["QueueArn"]
        )
        # One queue per approver behind a filter policy on the ``approver`` attribute, as the e-mail
        # subscriptions are: each approver receives only the message with their own link.
        self.queues: dict[str, str] = {}
        for index, approver in enumerate(APPROVERS):
            url = self.sqs.create_queue(QueueName=f"po-{tag}-{index}")["QueueUrl"]
            arn = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            self.sns.subscribe(
                TopicArn=self.topic_arn,
                Protocol="sqs",
                Endpoint=arn,
                Attributes={"FilterPolicy": json.dumps({"approver": [approver]})},
            )
            self.queues[approver] = url
        # What the submit handler starts: with execution off on this server, moto only records executions,
        # and the tests play RunAgentUntilApproval themselves (aws_flow.start).
        self.state_machine_arn = self.session.client("stepfunctions").create_state_machine(
            name=f"po-{tag}",
            definition=json.dumps({"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}),
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/po-{tag}",
        )["stateMachineArn"]

    def receipt_key(self) -> str:
        """A KMS HMAC key for decision receipts (created on first use); its id for ``PO_RECEIPT_KEY_ID``."""
        if not getattr(self, "_receipt_key", ""):
            kms = self.session.client("kms")
            made = kms.create_key(KeySpec="HMAC_256", KeyUsage="GENERATE_VERIFY_MAC", Description="receipts")
            self._receipt_key = str(made["KeyMetadata"]["KeyId"])
        return self._receipt_key

    def env(self) -> dict[str, str]:
        """The handlers' configuration for this world."""
        return {
            "PO_TABLE_NAME": self.table,
            "PO_SESSION_BUCKET": self.bucket,
            "PO_SESSION_PREFIX": self.prefix,
            "PO_TOPIC_ARN": self.topic_arn,
            "PO_OPERATOR_TOPIC_ARN": self.operator_topic_arn,
            "PO_PROVIDER": "deterministic",
            "PO_APPROVAL_WINDOW": "7d",
            "PO_LINK_BASE_URL": LINK_BASE_URL,
            "PO_APPROVERS": ",".join(APPROVERS),
            "PO_SCENARIO": "rush-order",
            "PO_STATE_MACHINE_ARN": self.state_machine_arn,
            "PO_SUBMITTERS": json.dumps(SUBMITTERS),
        }

    # -- observation ---------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Every table item and every session object: equal snapshots mean nothing was written."""
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {"TableName": self.table, "ConsistentRead": True}
        while True:
            page = self.dynamodb.scan(**params)
            items.extend(page["Items"])
            if "LastEvaluatedKey" not in page:
                break
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        objects: dict[str, bytes] = {}
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket):
            for obj in page.get("Contents", []):
                objects[obj["Key"]] = self.s3.get_object(Bucket=self.bucket, Key=obj["Key"])["Body"].read()
        return {
            "items": sorted(json.dumps(i, sort_keys=True, default=_b64) for i in items),
            "objects": objects,
        }

    def operator_alerts(self) -> list[dict[str, str]]:
        """The alerts the operator received since the last call (consumed): each one's subject and message."""
        found: list[dict[str, str]] = []
        while batch := self.sqs.receive_message(QueueUrl=self.operator_inbox, MaxNumberOfMessages=10).get("Messages"):
            for message in batch:
                envelope = json.loads(message["Body"])
                found.append({"subject": envelope.get("Subject", ""), "message": envelope["Message"]})
                self.sqs.delete_message(QueueUrl=self.operator_inbox, ReceiptHandle=message["ReceiptHandle"])
        return found

    def links(self) -> list[Link]:
        """The links delivered to the approvers' queues since the last call (consumed)."""
        found: list[Link] = []
        for approver, url in self.queues.items():
            while True:
                batch = self.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
                if not batch:
                    break
                for message in batch:
                    envelope = json.loads(message["Body"])
                    body = envelope["Message"]
                    link = next(line for line in body.splitlines() if line.startswith(LINK_BASE_URL))
                    query = parse_qs(urlsplit(link).query)
                    found.append(
                        Link(
                            approver=approver,
                            approval_id=query["a"][0],
                            secret=query["s"][0],
                            subject=envelope.get("Subject", ""),
                            body=body,
                        )
                    )
                    self.sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        return found

    def raw_item(self, pk: str, sk: str) -> dict[str, Any] | None:
        """One item as stored."""
        item = self.dynamodb.get_item(
            TableName=self.table, Key={PARTITION_KEY: {"S": pk}, SORT_KEY: {"S": sk}}, ConsistentRead=True
        ).get("Item")
        return None if item is None else dict(item)

    def put_raw_item(self, item: dict[str, Any]) -> None:
        """Overwrite one item (tampering, for refusal tests)."""
        self.dynamodb.put_item(TableName=self.table, Item=item)


def _b64(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode()
    raise TypeError(type(value).__name__)


def iam_caller(session: str = "olga@shop.example") -> dict[str, str]:
    """What a Function URL with AWS_IAM auth puts in ``requestContext.authorizer.iam`` for a role session."""
    return {
        "accessKey": "ASIA" + "X" * 16,
        "accountId": ACCOUNT,
        "callerId": f"AROAEXAMPLE:{session}",
        "userArn": operator_arn(session),
        "userId": f"AROAEXAMPLE:{session}",
    }


def submit_event(body: Any, caller: dict[str, str] | None) -> dict[str, Any]:
    """A signed POST to the submit Function URL (payload 2.0); ``caller`` None: no IAM authorizer context."""
    event = load_event("submit")
    raw = body if isinstance(body, str) else json.dumps(body)
    event["body"] = base64.b64encode(raw.encode()).decode()
    if caller is None:
        del event["requestContext"]["authorizer"]
    else:
        event["requestContext"]["authorizer"] = {"iam": caller}
    return event


def function_url_event(
    method: str,
    *,
    query: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    base64_body: bool = True,
) -> dict[str, Any]:
    """A Lambda Function URL (payload 2.0) request built from the stored sample."""
    event = load_event("decide_get" if method != "POST" else "decide_post")
    event["requestContext"]["http"]["method"] = method
    if query is not None:
        event["rawQueryString"] = urlencode(query)
        event["queryStringParameters"] = dict(query)
    if form is not None:
        body = urlencode(form)
        event["body"] = base64.b64encode(body.encode()).decode() if base64_body else body
        event["isBase64Encoded"] = base64_body
    return event


_LOADER = botocore.loaders.create_loader()


class _SharedModelsSession(boto3.Session):  # type: ignore[misc]
    """A new boto3 session per cold start, as in Lambda, sharing only the parsed API models.

    Parsing botocore's JSON service models is most of a client's creation time; the tests cold-start
    the handlers dozens of times, and the models are the one thing a fresh process may share.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("botocore_session") is None:
            core_session = botocore.session.get_session()
            core_session.register_component("data_loader", _LOADER)
            kwargs["botocore_session"] = core_session
        super().__init__(*args, **kwargs)


@contextmanager
def aws_world(endpoint: str, patch: pytest.MonkeyPatch) -> Iterator[AwsWorld]:
    """A fresh world on the server, the environment pointing at it, and cold composition roots."""
    for name, value in environment(endpoint).items():
        patch.setenv(name, value)
    patch.setattr(boto3, "Session", _SharedModelsSession)
    _step_functions_execute(endpoint, False)
    world = AwsWorld(endpoint, secrets.token_hex(6))
    for name, value in world.env().items():
        patch.setenv(name, value)
    cold_start()
    try:
        yield world
    finally:
        cold_start()


def _step_functions_execute(endpoint: str, execute: bool) -> None:
    """moto's configuration is global to the process: the workflow tests (tests/e2e) turn state machine
    execution on, under which these handler-level tests' made-up task tokens are rejected. Set it here."""
    request = Request(
        f"{endpoint}/moto-api/config",
        data=json.dumps({"stepfunctions": {"execute_state_machine": execute}}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urlopen(request, timeout=10) as response:
        response.read()


def cold_start() -> None:
    """Forget every composition root, as a new Lambda execution environment would."""
    from production_orchestrator.handlers import (
        decide,
        receive_email,
        remind,
        request_approval,
        root,
        send_outbox,
        submit,
    )

    root.core.cache_clear()
    root.runtime.cache_clear()
    root.agent_root.cache_clear()
    decide.root.cache_clear()
    request_approval.root.cache_clear()
    send_outbox.root.cache_clear()
    submit.root.cache_clear()
    receive_email.root.cache_clear()
    remind.root.cache_clear()
