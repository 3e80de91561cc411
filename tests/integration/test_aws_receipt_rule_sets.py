"""The shops' shared SES receipt rule set on moto: one active set per region, created when none is, kept while a
shop's rule is in it, deactivated and deleted with the last shop (teardown of one shop leaves the other's)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest

from production_orchestrator.adapters.aws.receipt_rule_sets import SHARED_RULE_SET, SharedReceiptRuleSet
from production_orchestrator.handlers.receipt_rule_set import respond, send
from tests.support.moto_aws import DUMMY_CREDENTIALS

# A region no other test uses: the active receipt rule set is account- and region-wide state on the server.
REGION = "ca-central-1"


@pytest.fixture
def ses(moto_endpoint: str) -> Iterator[Any]:
    client = boto3.client(
        "ses",
        endpoint_url=moto_endpoint,
        region_name=REGION,
        aws_access_key_id=DUMMY_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=DUMMY_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )
    client.set_active_receipt_rule_set()
    for rule_set in client.list_receipt_rule_sets().get("RuleSets", []):
        client.delete_receipt_rule_set(RuleSetName=rule_set["Name"])
    yield client
    client.set_active_receipt_rule_set()


def add_rule(ses: Any, rule_set: str, shop: str) -> None:
    ses.create_receipt_rule(
        RuleSetName=rule_set,
        Rule={"Name": f"ProductionOrchestrator-{shop}-requests", "Enabled": True, "Recipients": [f"{shop}@x.example"]},
    )


def cfn_event(kind: str, physical: str = "") -> dict[str, Any]:
    event = {
        "RequestType": kind,
        "StackId": "arn:aws:cloudformation:ca-central-1:123456789012:stack/ProductionOrchestrator-a/1",
        "RequestId": f"req-{kind}",
        "LogicalResourceId": "InboundActiveRuleSet",
        "ResponseURL": "https://example.invalid/",
    }
    if physical:
        event["PhysicalResourceId"] = physical
    return event


def test_the_first_shop_creates_and_activates_the_shared_set(ses: Any) -> None:
    body = respond(cfn_event("Create"), ses)
    assert (body["Status"], body["Data"]["RuleSetName"], body["PhysicalResourceId"]) == (
        "SUCCESS",
        SHARED_RULE_SET,
        SHARED_RULE_SET,
    )
    assert ses.describe_active_receipt_rule_set()["Metadata"]["Name"] == SHARED_RULE_SET


def test_a_second_shop_joins_the_active_set_and_teardown_of_one_keeps_the_other(ses: Any) -> None:
    first = respond(cfn_event("Create"), ses)["Data"]["RuleSetName"]
    add_rule(ses, first, "harbour")
    second = respond(cfn_event("Create"), ses)["Data"]["RuleSetName"]
    assert second == first  # one active set per region: both shops' rules are in it
    add_rule(ses, second, "kessler")
    # Tear down harbour: CloudFormation deletes its rule, then the custom resource.
    rule_sets = SharedReceiptRuleSet(ses)
    ses_rules = ses.describe_receipt_rule_set(RuleSetName=first)["Rules"]
    assert len(ses_rules) == 2
    _delete_rule(ses, first, "ProductionOrchestrator-harbour-requests")
    assert respond(cfn_event("Delete", first), ses)["Status"] == "SUCCESS"
    assert rule_sets.active() == first  # kessler still receives
    assert [r["Name"] for r in ses.describe_receipt_rule_set(RuleSetName=first)["Rules"]] == [
        "ProductionOrchestrator-kessler-requests"
    ]
    # Tear down kessler, the last: the set is deactivated and deleted, so the delete succeeds.
    _delete_rule(ses, first, "ProductionOrchestrator-kessler-requests")
    assert respond(cfn_event("Delete", first), ses)["Status"] == "SUCCESS"
    assert rule_sets.active() is None
    assert ses.list_receipt_rule_sets().get("RuleSets", []) == []


def test_the_operators_own_active_set_is_used_and_never_deactivated(ses: Any) -> None:
    ses.create_receipt_rule_set(RuleSetName="company-mail")
    ses.set_active_receipt_rule_set(RuleSetName="company-mail")
    name = respond(cfn_event("Create"), ses)["Data"]["RuleSetName"]
    assert name == "company-mail"
    assert respond(cfn_event("Delete", name), ses)["Status"] == "SUCCESS"
    assert SharedReceiptRuleSet(ses).active() == "company-mail"


def test_a_failure_is_reported_to_cloudformation_as_failed(ses: Any) -> None:
    class Broken:
        def describe_active_receipt_rule_set(self) -> Any:
            raise RuntimeError("SES unreachable")

    body = respond(cfn_event("Create"), Broken())
    assert body["Status"] == "FAILED" and "SES unreachable" in body["Reason"]


def test_the_response_is_put_to_the_response_url() -> None:
    received: list[tuple[str, dict[str, Any]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            length = int(self.headers["Content-Length"])
            received.append((self.command, json.loads(self.rfile.read(length))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        send(f"http://127.0.0.1:{server.server_address[1]}/signed", {"Status": "SUCCESS", "PhysicalResourceId": "x"})
    finally:
        server.shutdown()
        server.server_close()
    assert received == [("PUT", {"Status": "SUCCESS", "PhysicalResourceId": "x"})]


def _delete_rule(ses: Any, rule_set: str, rule: str) -> None:
    # moto 5.2.5 has no DeleteReceiptRule: rebuild the set without the rule, as CloudFormation's delete leaves it.
    if hasattr(ses, "delete_receipt_rule"):
        try:
            ses.delete_receipt_rule(RuleSetName=rule_set, RuleName=rule)
            return
        except Exception:
            pass
    kept = [r for r in ses.describe_receipt_rule_set(RuleSetName=rule_set)["Rules"] if r["Name"] != rule]
    active = SharedReceiptRuleSet(ses).active() == rule_set
    ses.set_active_receipt_rule_set()
    ses.delete_receipt_rule_set(RuleSetName=rule_set)
    ses.create_receipt_rule_set(RuleSetName=rule_set)
    for r in kept:
        ses.create_receipt_rule(RuleSetName=rule_set, Rule=r)
    if active:
        ses.set_active_receipt_rule_set(RuleSetName=rule_set)
