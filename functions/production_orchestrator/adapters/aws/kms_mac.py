"""The AWS receipt key: a KMS HMAC key (``GenerateMac`` / ``VerifyMac``, HMAC_SHA_256); the key material
never leaves KMS."""

from __future__ import annotations

import base64
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

from ...domain.errors import BackendError

ALGORITHM = "HMAC_SHA_256"


class KmsMacKey:
    """Receipts MACed and verified by KMS."""

    def __init__(self, client: Any, key_id: str) -> None:
        self._client = client
        self._key_id = key_id

    @property
    def key_id(self) -> str:
        """The configured KMS key id or ARN."""
        return self._key_id

    def sign(self, message: bytes) -> str:
        """``GenerateMac``; the MAC as base64."""
        try:
            response = self._client.generate_mac(KeyId=self._key_id, Message=message, MacAlgorithm=ALGORITHM)
        except (ClientError, BotoCoreError) as exc:
            raise BackendError(f"kms GenerateMac failed: {_code(exc)}") from None
        return base64.b64encode(response["Mac"]).decode("ascii")

    def verify(self, message: bytes, mac: str) -> bool:
        """``VerifyMac``; an invalid MAC is False, any other failure a ``BackendError``."""
        try:
            raw = base64.b64decode(mac, validate=True)
        except ValueError:
            return False
        try:
            response = self._client.verify_mac(KeyId=self._key_id, Message=message, MacAlgorithm=ALGORITHM, Mac=raw)
        except ClientError as exc:
            if _code(exc) == "KMSInvalidMacException":
                return False
            raise BackendError(f"kms VerifyMac failed: {_code(exc)}") from None
        except BotoCoreError as exc:
            raise BackendError(f"kms VerifyMac failed: {type(exc).__name__}") from None
        return bool(response.get("MacValid"))


def _code(exc: Exception) -> str:
    if isinstance(exc, ClientError):
        return str(exc.response.get("Error", {}).get("Code", "unknown error"))
    return type(exc).__name__
