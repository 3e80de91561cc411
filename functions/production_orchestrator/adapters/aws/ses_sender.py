"""Outbox delivery through Amazon SES v2 ``SendEmail`` (raw content) with a configuration set.

The raw bytes are the ones the delivery rendered (the same as the local transports send). SES overwrites the
Message-ID and Date headers with its own; the ``X-Production-Orchestrator-Outbox`` header survives, so a
repeat after a crash between "SES accepted" and "marked sent" can still be told apart by the receiver.
"""

from __future__ import annotations

import re
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.errors import DeliveryError
from ...domain.messages.outbox import OutboxMessage

# Retrying the same request cannot help: a rejected message, an unverified sender, a bad request, a
# configuration set that does not exist, a suspended account. Anything else (throttling, 5xx) is retried.
PERMANENT_CODES = frozenset(
    {
        "MessageRejected",
        "MailFromDomainNotVerifiedException",
        "BadRequestException",
        "NotFoundException",
        "AccountSuspendedException",
        "InvalidParameterValue",
        "AccessDeniedException",
    }
)


SANDBOX_HINT = (
    " (the SES account is in the sandbox: it sends only to verified recipients; verify the recipient or request "
    "production access, docs/how-to/deploy.md, the SES step)"
)
_IDENTITY = re.compile(r"identity/([^\s'`\"]+)")
SENDER_HINT = " (the sender is not a verified SES identity in this region: verify senderEmail or its domain)"
ROLE_HINT = " (the function's role may not send as this sender: senderEmail differs from the deployed one)"


def explain_refusal(code: str, message: str, sender: str) -> str:
    """What an SES refusal means for the operator. SES names the identities that failed its check: the sender
    (unverified), or a recipient, which only happens in the sandbox (unverified recipients are refused there);
    AccessDenied naming an identity other than the sender's is the sandbox's recipient check against IAM."""
    text = message.casefold()
    if code == "MessageRejected" and "not verified" in text:
        return SENDER_HINT if sender.casefold() in text.split("region", 1)[-1] else SANDBOX_HINT
    if code in ("AccessDeniedException", "AccessDenied"):
        named = set(_IDENTITY.findall(text))
        own = {sender.casefold(), sender.casefold().rpartition("@")[2]}
        return SANDBOX_HINT if named - own else ROLE_HINT
    return ""


class SesTransport:
    """Sends from ``sender`` (a verified identity) through ``configuration_set``."""

    name = "ses"
    sender_name = ""  # the verified identity's address alone, as SES has always sent it

    def __init__(self, client: Any, sender: str, configuration_set: str = "") -> None:
        self._client = client
        self._sender = sender
        self._configuration_set = configuration_set

    @property
    def sender(self) -> str:
        """The verified From address."""
        return self._sender

    def send(self, message: OutboxMessage, data: bytes) -> str:
        """One ``SendEmail``; SES's MessageId, or ``DeliveryError`` (permanent for the codes above)."""
        params: dict[str, Any] = {
            "FromEmailAddress": self._sender,
            "Destination": {"ToAddresses": [message.to]},
            "Content": {"Raw": {"Data": data}},
        }
        if self._configuration_set:
            params["ConfigurationSetName"] = self._configuration_set
        try:
            response = self._client.send_email(**params)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code", "")) or "unknown error"
            raise DeliveryError(
                f"ses SendEmail refused {message.key}: {code}"
                + explain_refusal(code, str(error.get("Message", "")), self._sender),
                permanent=code in PERMANENT_CODES,
            ) from None
        except BotoCoreError as exc:  # no answer from SES (connection, timeout): not counted as an attempt
            raise DeliveryError(
                f"ses SendEmail for {message.key} failed: {type(exc).__name__}", permanent=False, unreachable=True
            ) from None
        return f"ses:{response['MessageId']}"
