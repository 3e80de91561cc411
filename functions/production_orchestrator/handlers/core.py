"""The strands-free part of the composition root: settings, one boto3 session, the DynamoDB stores.

Built once per process (a Lambda cold start) on first use; tests reset it with ``core.cache_clear()``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import boto3  # type: ignore[import-untyped]
from botocore.config import Config  # type: ignore[import-untyped]

from ..adapters.aws.dynamodb_approvals import DynamoApprovalStore
from ..adapters.aws.dynamodb_store import DynamoShopStore
from ..adapters.aws.kms_mac import KmsMacKey
from .settings import Settings, load_settings

# Standard retry mode retries throttling and 5xx with backoff; conditional failures are never retried.
BOTO_CONFIG = Config(retries={"mode": "standard", "max_attempts": 4}, user_agent_extra="production-orchestrator")


def utc_now() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Core:
    """Adapters every handler shares."""

    settings: Settings
    boto_session: boto3.Session
    store: DynamoShopStore
    approvals: DynamoApprovalStore

    def client(self, service: str) -> Any:
        """A boto3 client on the shared session (honours ``AWS_ENDPOINT_URL``)."""
        return self.boto_session.client(service, config=BOTO_CONFIG)  # type: ignore[call-overload]

    def now(self) -> datetime:
        """The current time, through the module clock (tests replace ``utc_now``)."""
        return utc_now()


@cache
def core() -> Core:
    """Read the settings and build the table adapters; a bad setting fails here, at cold start."""
    settings = load_settings(os.environ).require("table_name")
    boto_session = boto3.Session()
    dynamodb = boto_session.client("dynamodb", config=BOTO_CONFIG)
    table = str(settings.table_name)
    return Core(
        settings=settings,
        boto_session=boto_session,
        store=DynamoShopStore(dynamodb, table),
        approvals=DynamoApprovalStore(dynamodb, table),
    )


@cache
def receipt_key(shared: Core) -> KmsMacKey | None:
    """The KMS HMAC key receipts are MACed with (``PO_RECEIPT_KEY_ID``), or None when none is configured."""
    key_id = shared.settings.receipt_key_id
    return KmsMacKey(shared.client("kms"), key_id) if key_id else None
