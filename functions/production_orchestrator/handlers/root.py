"""The Lambda composition root, built once per process (a cold start) on first use.

    core()        settings, one boto3 session, the DynamoDB stores (strands-free: the decision endpoint)
    receipt_key() the KMS HMAC key receipts are MACed with, when configured
    agent_root()  S3 sessions, the provider binding and the lifecycle runtime (imports strands, lazily)

Tests reset it with ``core.cache_clear()`` / ``agent_root.cache_clear()``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import boto3  # type: ignore[import-untyped]

from ..adapters.aws.boto_config import BOTO_CONFIG, SEND_TASK_CONFIG

if TYPE_CHECKING:
    from ..adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from ..adapters.aws.dynamodb_store import DynamoShopStore
    from ..adapters.aws.dynamodb_submissions import DynamoSubmissionStore
    from ..adapters.aws.kms_mac import KmsMacKey
    from ..domain.records import ProviderBinding
    from ..services.runtime import Runtime
    from .settings import Settings


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
    submissions: DynamoSubmissionStore

    def client(self, service: str) -> Any:
        """A boto3 client on the shared session (honours ``AWS_ENDPOINT_URL``)."""
        return self.boto_session.client(service, config=BOTO_CONFIG)  # type: ignore[call-overload]

    def task_callback_client(self) -> Any:
        """The Step Functions client for ``SendTaskSuccess``: no SDK retry (boto_config.SEND_TASK_CONFIG)."""
        return self.boto_session.client("stepfunctions", config=SEND_TASK_CONFIG)  # type: ignore[call-overload]

    def now(self) -> datetime:
        """The current time, through the module clock (tests replace ``utc_now``)."""
        return utc_now()


@cache
def core() -> Core:
    """Read the settings and build the table adapters; a bad setting fails here, at cold start.

    The adapters (and the pydantic models under them) are imported here, when the first request builds
    the root, not when Lambda imports the handler module: a request the handler turns away before it needs
    the store (the decision URL answers any non-web payload or method itself) never loads them.
    """
    from ..adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from ..adapters.aws.dynamodb_store import DynamoShopStore
    from ..adapters.aws.dynamodb_submissions import DynamoSubmissionStore
    from ..adapters.aws.kms_mac import KmsMacKey
    from .settings import load_settings

    settings = load_settings(os.environ).require("table_name")
    boto_session = boto3.Session()
    dynamodb = boto_session.client("dynamodb", config=BOTO_CONFIG)
    table = str(settings.table_name)
    # The audit chain's links are MACed in KMS with their own key, so every function that appends an event may
    # MAC one without being able to forge a decision receipt (only the decision function signs those).
    audit_key = (
        KmsMacKey(boto_session.client("kms", config=BOTO_CONFIG), settings.audit_key_id)
        if settings.audit_key_id
        else None
    )
    return Core(
        settings=settings,
        boto_session=boto_session,
        store=DynamoShopStore(dynamodb, table, audit_key=audit_key),
        approvals=DynamoApprovalStore(dynamodb, table),
        submissions=DynamoSubmissionStore(dynamodb, table),
    )


@cache
def receipt_key(shared: Core) -> KmsMacKey | None:
    """The KMS HMAC key receipts are MACed with (``PO_RECEIPT_KEY_ID``), or None when none is configured."""
    from ..adapters.aws.kms_mac import KmsMacKey

    key_id = shared.settings.receipt_key_id
    return KmsMacKey(shared.client("kms"), key_id) if key_id else None


@dataclass(frozen=True)
class AgentRoot:
    """What the agent handlers run on."""

    core: Core
    runtime: Runtime
    binding: ProviderBinding


@cache
def agent_root() -> AgentRoot:
    """Build once per cold start: the same binding for start, resume and identity.

    Imported here, not at module level, so the decision endpoint never loads strands.
    """
    from ..adapters.aws.s3_sessions import S3SessionStore
    from ..agent.providers import build_binding
    from ..services.runtime import Runtime

    shared = core()
    settings = shared.settings.require("session_bucket")
    binding = build_binding(
        settings.provider,
        settings.model_id,
        settings.model_region,
        settings.model_profile,
        endpoint=settings.model_endpoint,
    )
    sessions = S3SessionStore(str(settings.session_bucket), settings.session_prefix, shared.boto_session)
    runtime = Runtime(
        store=shared.store,
        sessions=sessions,
        clock=shared.now,
        pid=os.getpid(),
        lease=settings.decision_lease,
        approvals=shared.approvals,
        receipt_key=receipt_key(shared),
        solver_nodes=settings.solver_nodes,
    )
    return AgentRoot(core=shared, runtime=runtime, binding=binding)
