"""Which received e-mails may start a run: every verdict, the recipient, the sender, and who the run is
recorded as asked by (the channel, never the sender)."""

from __future__ import annotations

import dataclasses

import pytest

from production_orchestrator.domain.errors import InboundRefusalCode, InboundRefusedError
from production_orchestrator.domain.identity import channel_identity
from production_orchestrator.domain.intake.inbound_mail import ReceivedMail, accept_message, check_receipt
from production_orchestrator.domain.intake.submissions import is_submission_name, received_execution_name
from production_orchestrator.domain.scenarios import scenario

INBOUND = "orders@shop.example"
RAW = scenario("rush-order").customer_email  # From: Coach Ana Lind <coach@northside-fc.example>
GOOD = ReceivedMail(
    message_id="o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g1",
    recipients=(INBOUND,),
    header_from=("Coach Ana Lind <coach@northside-fc.example>",),
    spf="PASS",
    dkim="PASS",
    dmarc="PASS",
    spam="PASS",
    virus="PASS",
)


def _code(mail: ReceivedMail, raw: str = RAW, approvers: tuple[str, ...] = ()) -> InboundRefusalCode:
    with pytest.raises(InboundRefusedError) as refused:
        check_receipt(mail, INBOUND)
        accept_message(mail, raw, inbound_address=INBOUND, approvers=approvers)
    return refused.value.code


def test_an_authenticated_message_is_asked_for_by_the_channel_for_its_sender() -> None:
    check_receipt(GOOD, " Orders@Shop.Example ")
    accepted = accept_message(GOOD, RAW, inbound_address="Orders@Shop.Example", approvers=("ana@example.com",))
    assert accepted.requested_by == "inbound:orders@shop.example" == channel_identity(INBOUND)
    assert accepted.customer == "coach@northside-fc.example"
    assert accepted.request == accepted.message.text and "RUSH-200" in accepted.request


@pytest.mark.parametrize("verdict", ["spf", "dkim", "dmarc"])
@pytest.mark.parametrize("status", ["FAIL", "GRAY", "PROCESSING_FAILED", "", "pass"])
def test_sender_authentication_must_pass(verdict: str, status: str) -> None:
    assert _code(dataclasses.replace(GOOD, **{verdict: status})) is InboundRefusalCode.VERDICT_FAILED


@pytest.mark.parametrize("verdict", ["spam", "virus"])
@pytest.mark.parametrize("status", ["FAIL", "PROCESSING_FAILED", ""])
def test_a_message_the_scan_did_not_clear_is_refused(verdict: str, status: str) -> None:
    assert _code(dataclasses.replace(GOOD, **{verdict: status})) is InboundRefusalCode.SPAM_OR_VIRUS


def test_an_undetermined_spam_verdict_is_not_a_failure() -> None:
    check_receipt(dataclasses.replace(GOOD, spam="GRAY"), INBOUND)


def test_another_recipient_is_refused() -> None:
    mail = dataclasses.replace(GOOD, recipients=("sales@shop.example",))
    assert _code(mail) is InboundRefusalCode.WRONG_RECIPIENT


@pytest.mark.parametrize("message_id", ["", "../requests/x", "a/b", "x" * 201])
def test_a_message_id_that_cannot_be_a_key_is_refused(message_id: str) -> None:
    assert _code(dataclasses.replace(GOOD, message_id=message_id)) is InboundRefusalCode.EVENT_INVALID


@pytest.mark.parametrize(
    "header_from",
    [(), ("a@x.example, b@y.example",), ("a@x.example", "b@y.example"), ("not an address",)],
)
def test_exactly_one_from_address(header_from: tuple[str, ...]) -> None:
    assert _code(dataclasses.replace(GOOD, header_from=header_from)) is InboundRefusalCode.SENDER_INVALID


def test_the_stored_message_must_come_from_the_sender_ses_judged() -> None:
    forged = RAW.replace("coach@northside-fc.example", "ceo@rival.example")
    assert _code(GOOD, forged) is InboundRefusalCode.SENDER_INVALID


def test_an_approver_cannot_start_a_run_by_email() -> None:
    assert _code(GOOD, approvers=(" Coach@Northside-FC.example",)) is InboundRefusalCode.SENDER_IS_APPROVER


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", InboundRefusalCode.MESSAGE_UNREADABLE),
        ("From: coach@northside-fc.example\n\n", InboundRefusalCode.MESSAGE_UNREADABLE),
        (RAW + "x" * 20_001, InboundRefusalCode.MESSAGE_TOO_LARGE),
    ],
)
def test_an_unreadable_or_too_long_message_is_refused(raw: str, code: InboundRefusalCode) -> None:
    assert _code(GOOD, raw) is code


def test_the_execution_name_is_the_same_for_every_retry_and_a_submission_name() -> None:
    name = received_execution_name(GOOD.message_id, RAW)
    assert name == received_execution_name(GOOD.message_id, RAW)
    assert name != received_execution_name(GOOD.message_id + "x", RAW)
    assert name != received_execution_name(GOOD.message_id, RAW + "x")  # the id alone does not name it
    assert is_submission_name(name)


@pytest.mark.parametrize("address", ["", "orders", "inbound:orders"])
def test_the_channel_is_named_by_an_address(address: str) -> None:
    with pytest.raises(ValueError):
        channel_identity(address)
