"""SES refusals name their cause for the operator: an unverified sender, or the SES sandbox (unverified
recipients, and IAM's check of the recipients' identities), and stay permanent (retrying cannot help)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError  # type: ignore[import-untyped]

from production_orchestrator.adapters.aws.ses_sender import SANDBOX_HINT, SENDER_HINT, SesTransport
from production_orchestrator.domain.errors import DeliveryError
from production_orchestrator.domain.messages.outbox import OutboxMessage

SENDER = "orders@shop.example.com"
ROLE = "arn:aws:sts::123456789012:assumed-role/SendOutboxRole/fn"


class _Refusing:
    def __init__(self, code: str, message: str) -> None:
        self.error = ClientError({"Error": {"Code": code, "Message": message}}, "SendEmail")

    def send_email(self, **_: Any) -> dict[str, Any]:
        raise self.error


def _message() -> OutboxMessage:
    return OutboxMessage.model_validate(
        {
            "proposal_hash": "a" * 64,
            "index": 0,
            "checkpoint_id": "ckpt-" + "0" * 32,
            "kind": "customer",
            "to": "coach@northside-fc.example",
            "subject": "Your order",
            "body": "Hello",
            "queued_at": "2026-08-12T09:00:00Z",
        }
    )


def _refusal(code: str, message: str) -> DeliveryError:
    with pytest.raises(DeliveryError) as raised:
        SesTransport(_Refusing(code, message), SENDER).send(_message(), b"raw")
    return raised.value


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            "MessageRejected",
            "Email address is not verified. The following identities failed the check in region US-EAST-1: "
            "coach@northside-fc.example",
        ),
        (
            "AccessDeniedException",
            f"User `{ROLE}' is not authorized to perform `ses:SendEmail' on resource "
            "`arn:aws:ses:us-east-1:123456789012:identity/coach@northside-fc.example'",
        ),
    ],
)
def test_the_sandbox_is_named_and_permanent(code: str, message: str) -> None:
    refused = _refusal(code, message)
    assert code in str(refused) and SANDBOX_HINT in str(refused) and refused.permanent


def test_an_unverified_sender_is_named_as_such_not_as_the_sandbox() -> None:
    refused = _refusal(
        "MessageRejected",
        f"Email address is not verified. The following identities failed the check in region US-EAST-1: {SENDER}",
    )
    assert SENDER_HINT in str(refused) and SANDBOX_HINT not in str(refused)


def test_access_denied_on_the_senders_own_identity_is_not_the_sandbox() -> None:
    refused = _refusal(
        "AccessDeniedException",
        f"User `{ROLE}' is not authorized to perform `ses:SendEmail' on resource "
        "`arn:aws:ses:us-east-1:123456789012:identity/shop.example.com'",
    )
    assert SANDBOX_HINT not in str(refused) and "may not send as this sender" in str(refused)


def test_a_throttle_is_transient_and_unexplained() -> None:
    refused = _refusal("TooManyRequestsException", "Maximum sending rate exceeded.")
    assert not refused.permanent and "(" not in str(refused)
