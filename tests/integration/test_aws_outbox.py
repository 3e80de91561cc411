"""The approved plan's messages through Amazon SES (moto on 127.0.0.1), each exactly once.

approved_flow -> resume (apply queues 3 messages in DynamoDB) -> send_outbox -> SES SendEmail (raw) x 3
-> send_outbox again -> nothing new. Moto keeps every message SES accepted; the tests count them.
"""

from __future__ import annotations

import email
import email.policy
import json
from typing import Any

import pytest
from moto.ses.models import ses_backends

from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.adapters.aws.table_schema import outbox_key
from production_orchestrator.cli import main
from production_orchestrator.domain.errors import ConfigurationError, DeliveryFailedError, DeliveryIncompleteError
from production_orchestrator.domain.messages.outbox import OUTBOX_HEADER
from tests.support.aws_flow import _invoke, approved_flow
from tests.support.moto_aws import ACCOUNT, REGION, AwsWorld, Clock, LambdaContext, cold_start
from tests.support.runtimes import runtime_of

SENDER = "orders@shop.example.com"


def _outbox_key(raw: str) -> str:
    """The outbox header of a raw message (folded on the wire: the hash makes the line long)."""
    return str(email.message_from_string(raw, policy=email.policy.default).get(OUTBOX_HEADER, "")).strip()


@pytest.fixture
def accepted() -> Any:
    """What moto's SES accepted during this test for a plan (by the outbox header), in order.

    The server (and its SES backend) serves the whole session, and every rush-order plan has the same hash:
    only messages accepted after the test began count.
    """
    mark = len(ses_backends[ACCOUNT][REGION].sent_messages)

    def since_start(proposal_hash: str) -> list[Any]:
        messages = ses_backends[ACCOUNT][REGION].sent_messages[mark:]
        return [m for m in messages if _outbox_key(getattr(m, "raw_data", "")).startswith(proposal_hash)]

    return since_start


def _configure(aws: AwsWorld, monkeypatch: pytest.MonkeyPatch, *, verify: bool = True) -> str:
    sesv2 = aws.session.client("sesv2")
    configuration_set = f"po-{aws.table}"
    sesv2.create_configuration_set(ConfigurationSetName=configuration_set)
    if verify:
        sesv2.create_email_identity(EmailIdentity=SENDER)
    monkeypatch.setenv("PO_SENDER_EMAIL", SENDER)
    monkeypatch.setenv("PO_SES_CONFIGURATION_SET", configuration_set)
    return configuration_set


def _send(run: dict[str, Any]) -> dict[str, Any]:
    return _invoke("send_outbox", {"checkpoint_id": run["checkpoint_id"], "proposal_hash": run["proposal_hash"]})


def _applied(aws: AwsWorld) -> dict[str, Any]:
    flow = approved_flow(aws)
    assert flow.resume()["outcome"] == "applied"
    return flow.run


def test_ses_receives_each_message_once(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch, accepted: Any
) -> None:
    _configure(aws, monkeypatch)
    run = _applied(aws)
    store = DynamoShopStore(aws.dynamodb, aws.table)
    queued = store.outbox_messages(run["proposal_hash"])
    assert [m.status for m in queued] == ["queued"] * 3

    first = _send(run)
    second = _send(run)
    assert (first["sent"], first["already_sent"]) == (3, 0)
    assert (second["sent"], second["already_sent"]) == (0, 3)
    got = accepted(run["proposal_hash"])
    assert len(got) == 3, "each message reached SES once, and the second send added none"
    keys = [_outbox_key(m.raw_data) for m in got]
    assert sorted(keys) == sorted(m.key for m in queued)
    assert [m.destinations[0] for m in got] == [m.to for m in queued]
    assert {m.source for m in got} == {SENDER}
    sent = store.outbox_messages(run["proposal_hash"])
    assert [m.status for m in sent] == ["sent"] * 3
    assert [m.transport_id for m in sent] == [f"ses:{m.id}" for m in got] == first["transport_ids"]
    events = [e.event_type for e in store.audit_events()]
    assert events.count("message_sent") == 3


def test_an_unverified_sender_fails_for_good_and_sends_nothing(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch, accepted: Any
) -> None:
    monkeypatch.setenv("PO_SENDER_EMAIL", "nobody@unverified.example.com")
    run = _applied(aws)
    with pytest.raises(DeliveryFailedError):
        _send(run)
    assert accepted(run["proposal_hash"]) == []
    failed = DynamoShopStore(aws.dynamodb, aws.table).outbox_messages(run["proposal_hash"])
    assert [m.status for m in failed] == ["failed"] * 3
    assert all("MessageRejected" in m.last_error for m in failed)


def test_ses_unreachable_leaves_the_messages_queued_for_the_retry(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch, accepted: Any
) -> None:
    _configure(aws, monkeypatch)
    run = _applied(aws)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SESV2", "http://127.0.0.1:9")  # nothing listens: connection refused
    with pytest.raises(DeliveryIncompleteError):
        _send(run)
    store = DynamoShopStore(aws.dynamodb, aws.table)
    assert {m.status for m in store.outbox_messages()} == {"queued"}
    # SES never answered: no attempt is counted, and the round stopped at the first message.
    assert [m.attempts for m in store.outbox_messages()] == [0, 0, 0]
    # SES is back; the lease of the failed attempt was released, so the workflow's retry sends them.
    monkeypatch.delenv("AWS_ENDPOINT_URL_SESV2")
    assert _send(run)["sent"] == 3
    assert len(accepted(run["proposal_hash"])) == 3


def test_without_a_sender_the_function_refuses_and_changes_nothing(aws: AwsWorld, clock: Clock) -> None:
    run = _applied(aws)
    before = aws.snapshot()
    with pytest.raises(ConfigurationError, match="PO_SENDER_EMAIL"):
        _send(run)
    assert aws.snapshot() == before


def test_a_rejected_plan_sends_nothing(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch, accepted: Any
) -> None:
    _configure(aws, monkeypatch)
    flow = approved_flow(aws, "reject")
    assert flow.resume()["outcome"] == "rejected"
    assert _send(flow.run)["sent"] == 0
    assert accepted(flow.proposal_hash) == []


def test_the_approval_email_lists_the_messages_and_their_recipients(aws: AwsWorld, clock: Clock) -> None:
    flow = approved_flow(aws)
    body = flow.link().body
    assert "Messages this plan sends:" in body and "Rejecting sends nothing." in body
    for kind in ("customer", "operator", "supplier"):
        assert f"To the {kind} (" in body


def test_a_bad_event_is_refused_before_anything_is_read(aws: AwsWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    from production_orchestrator.domain.errors import ValidationError
    from production_orchestrator.handlers import send_outbox

    monkeypatch.setenv("PO_SENDER_EMAIL", SENDER)
    cold_start()
    with pytest.raises(ValidationError, match="proposal_hash"):
        send_outbox.handler({"checkpoint_id": "ckpt-" + "0" * 32, "proposal_hash": "x"}, LambdaContext())


@pytest.mark.parametrize("field", ["to", "subject", "body"])
def test_a_message_edited_in_the_table_is_refused_and_named_by_audit_verify(
    aws: AwsWorld,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    accepted: Any,
    capsys: pytest.CaptureFixture[str],
    field: str,
) -> None:
    _configure(aws, monkeypatch)
    run = _applied(aws)
    assert main(["--table", aws.table, "audit", "verify"]) == 0
    capsys.readouterr()
    store = DynamoShopStore(aws.dynamodb, aws.table)
    target = store.outbox_messages(run["proposal_hash"])[0]
    item = aws.raw_item(*outbox_key(target.key))
    assert item is not None
    raw = json.loads(item["raw"]["S"])
    raw[field] = "attacker@evil.example" if field == "to" else "Our bank details changed"
    item["raw"] = {"S": json.dumps(raw)}
    aws.put_raw_item(item)
    edited = aws.raw_item(*outbox_key(target.key))

    with pytest.raises(DeliveryFailedError, match="differ from the approved plan"):
        _send(run)
    got = accepted(run["proposal_hash"])
    assert len(got) == 2 and target.key not in {_outbox_key(m.raw_data) for m in got}
    assert "attacker@evil.example" not in {m.destinations[0] for m in got}
    assert aws.raw_item(*outbox_key(target.key)) == edited  # left as found

    assert main(["--table", aws.table, "audit", "verify"]) == 5
    out, err = capsys.readouterr()
    assert "AUDIT_CHAIN=broken" in out and target.key in err and field in err


def test_a_sent_message_edited_back_to_queued_in_the_table_is_refused_not_sent_again(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch, accepted: Any
) -> None:
    from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from production_orchestrator.services.audit import verify_audit

    _configure(aws, monkeypatch)
    run = _applied(aws)
    assert _send(run)["sent"] == 3
    store = DynamoShopStore(aws.dynamodb, aws.table)
    target = store.outbox_messages(run["proposal_hash"])[0]
    item = aws.raw_item(*outbox_key(target.key))
    assert item is not None
    raw = json.loads(item["raw"]["S"])
    raw.update(status="queued", transport_id="", sent_at="")
    item.update(raw={"S": json.dumps(raw)}, status={"S": "queued"})
    aws.put_raw_item(item)
    before = aws.snapshot()

    with pytest.raises(DeliveryFailedError, match="differ from the approved plan"):
        _send(run)
    assert len(accepted(run["proposal_hash"])) == 3  # nothing sent again
    assert aws.snapshot() == before  # nothing written
    report = verify_audit(runtime_of(store, DynamoApprovalStore(aws.dynamodb, aws.table)))
    assert not report.intact and target.key in report.problem and "records it sent" in report.problem


def test_messages_stored_by_the_release_before_approval_mail_joined_the_outbox_are_still_sent(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch, accepted: Any
) -> None:
    _configure(aws, monkeypatch)
    run = _applied(aws)
    store = DynamoShopStore(aws.dynamodb, aws.table)
    for message in store.outbox_messages(run["proposal_hash"]):
        item = aws.raw_item(*outbox_key(message.key))
        assert item is not None and '"schema_version":2' in item["raw"]["S"]
        item["raw"] = {"S": item["raw"]["S"].replace('"schema_version":2', '"schema_version":1')}
        aws.put_raw_item(item)
    assert _send(run)["sent"] == 3  # the compare-and-set matched the stored text of each
    for message in store.outbox_messages(run["proposal_hash"]):
        assert (message.schema_version, message.status) == (1, "sent")
