"""The one composition root: the adapters a process runs on, built into a :class:`~.services.runtime.Runtime`.

    local(data_dir)            the CLI: one data dir holds one shop (SQLite, and its outbox), its approvals,
                               sessions (files), the key (receipts, the audit chain, derivable links)
    aws(settings, ports=...)   the handlers, once per cold start: DynamoDB stores, KMS keys, and only the
                               ports the function names (S3 sessions, SNS, Step Functions, submissions);
                               the operator's commands against a table, with an AwsTarget

Nothing is imported at module level but the standard library: ``aws()`` loads the adapters (and, for
``sessions``, strands) when the first request builds the runtime, so a handler's cold import stays small and the
decision function never loads strands. ``local()`` loads SQLite and the file adapters, not strands (the file
sessions import it only when a session is opened).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .contracts import ENV_NOW
from .domain.approval.claims import DEFAULT_LEASE
from .domain.limits import DEFAULT_NODES

if TYPE_CHECKING:
    from .domain.ports import MacKey
    from .services.runtime import Runtime

DB_NAME = "shop.sqlite3"
SESSIONS_DIR = "sessions"

# The optional AWS ports a function may ask for (each costs a client, or strands, at cold start).
AwsPort = Literal["sessions", "notifier", "callback", "starter", "submissions", "operator"]


def utc_now() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)


def local_now() -> datetime:
    """The local runtime's clock: ``$PO_NOW`` (the rehearsal clock, an ISO 8601 time; a date means 09:00 UTC)
    when set, else the wall clock. The AWS runtime never reads it."""
    given = os.environ.get(ENV_NOW, "").strip()
    if not given:
        return utc_now()
    from .domain.errors import ValidationError
    from .domain.records import parse_utc

    text = f"{given}T09:00:00Z" if len(given) == 10 else given
    try:
        return parse_utc(text if text[-1] in "Zz" or "+" in text[10:] or "-" in text[10:] else f"{text}Z")
    except ValueError:
        raise ValidationError(f"--now / {ENV_NOW}: {given!r} is not a time like 2027-01-05T09:00:00Z") from None


@dataclass(frozen=True)
class AwsTarget:
    """The settings ``aws()`` reads, for a command pointed at a deployed table from outside Lambda (the
    operator's CLI): the table, its keys, and what the ports it asks for need."""

    table_name: str
    audit_key_id: str | None = None
    receipt_key_id: str | None = None
    topic_arn: str | None = None
    operator_topic_arn: str | None = None
    state_machine_arn: str | None = None
    session_bucket: str | None = None
    session_prefix: str = "sessions/"
    # The stack's operator function, which MACs the operator's shop writes (the CLI has no GenerateMac).
    operator_function: str | None = None
    decision_lease: timedelta = DEFAULT_LEASE
    solver_nodes: int = DEFAULT_NODES


class AwsSettings(Protocol):
    """What ``aws()`` reads of the Lambda settings (handlers/settings.py's ``Settings`` is one)."""

    @property
    def table_name(self) -> str | None: ...
    @property
    def receipt_key_id(self) -> str | None: ...
    @property
    def audit_key_id(self) -> str | None: ...
    @property
    def session_bucket(self) -> str | None: ...
    @property
    def session_prefix(self) -> str: ...
    @property
    def topic_arn(self) -> str | None: ...
    @property
    def operator_topic_arn(self) -> str | None: ...
    @property
    def state_machine_arn(self) -> str | None: ...
    @property
    def decision_lease(self) -> timedelta: ...
    @property
    def solver_nodes(self) -> int: ...


def check_data_dir(data_dir: Path, *, create: bool) -> None:
    """``data_dir`` is a directory this user may read and write (created by ``start``), else ValidationError."""
    from .domain.errors import ValidationError

    hint = "pass --data-dir DIR (or set PO_DATA_DIR)"
    if data_dir.exists() and not data_dir.is_dir():
        raise ValidationError(f"data dir {data_dir} is a file, not a directory: {hint} to a directory")
    if not data_dir.exists():
        if not create:
            raise ValidationError(
                f"no shop in {data_dir}: the directory does not exist; run `production-orchestrator start` first, "
                f"or {hint} where the shop is"
            )
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise ValidationError(f"cannot create data dir {data_dir}: {exc.strerror}: {hint}") from None
    if not os.access(data_dir, os.R_OK | os.W_OK | os.X_OK):
        raise ValidationError(
            f"data dir {data_dir} is not readable and writable by this user: fix its permissions or {hint}"
        )


def local(data_dir: Path, *, create: bool = False) -> Runtime:
    """The runtime of ``data_dir``. Only ``start`` may create it; every other command needs a shop.

    The notifier and the workflow callback are the command's own (stdout, a resume in a fresh process): the
    CLI sets them with ``dataclasses.replace``.
    """
    from .adapters.local.clock_mark import WALL_CLOCK_SLACK, check_and_keep
    from .adapters.local.file_sessions import FileSessionStore
    from .adapters.local.mac_key import KEY_FILE, FileMacKey
    from .adapters.local.sqlite_approvals import SqliteApprovalStore
    from .adapters.local.sqlite_store import SqliteShopStore
    from .domain.approval.links import LinkMint
    from .domain.errors import ValidationError
    from .services.runtime import Runtime

    check_data_dir(data_dir, create=create)
    now = local_now()
    db = data_dir / DB_NAME
    if not create and not db.is_file():
        raise ValidationError(
            f"data dir {data_dir} holds no shop: run `production-orchestrator start --data-dir {data_dir}` first"
        )
    # One key, created (0600) on first use: it MACs decision receipts and the audit chain's links, and derives
    # the approval links (so a reminder or the outbox rebuilds them; none is stored).
    key = FileMacKey(data_dir / KEY_FILE)
    try:
        store = SqliteShopStore(db, audit_key=key)
        approvals = SqliteApprovalStore(db)
    except Exception as exc:  # sqlite3.DatabaseError on a file that is not a database
        raise ValidationError(f"data dir {data_dir} does not hold a readable shop ({DB_NAME}: {exc})") from None
    check_and_keep(data_dir, now, slack=timedelta(0) if os.environ.get(ENV_NOW, "").strip() else WALL_CLOCK_SLACK)
    return Runtime(
        store=store,
        approvals=approvals,
        clock=(lambda: now) if os.environ.get(ENV_NOW) else utc_now,  # a rehearsal's time stands still
        pid=os.getpid(),
        sessions=FileSessionStore(data_dir / SESSIONS_DIR),
        receipt_key=key,
        audit_key=key,
        mint=LinkMint(key),
    )


def _topics(wanted: set[AwsPort], client: Callable[[str], Any], required: Callable[[str], str]) -> dict[str, Any]:
    """The SNS ports asked for: the approvers' topic (``notifier``) and the operator's alarm topic (``operator``)."""
    parts: dict[str, Any] = {}
    if "notifier" in wanted:
        from .adapters.aws.sns_notifier import SnsApprovalNotifier

        parts["notifier"] = SnsApprovalNotifier(client("sns"), required("topic_arn"))
    if "operator" in wanted:
        from .adapters.aws.sns_operator import SnsOperatorAlerts

        parts["operator"] = SnsOperatorAlerts(client("sns"), required("operator_topic_arn"))
    return parts


def aws(
    settings: AwsSettings,
    *,
    ports: Iterable[AwsPort] = (),
    session: Any = None,
    clock: Callable[[], datetime] = utc_now,
) -> Runtime:
    """The runtime of one Lambda function: the table's stores and keys, and the optional ``ports`` it names.

    ``session``: the boto3 session to build on (one per process; honours ``AWS_ENDPOINT_URL``). A missing
    setting a port needs fails here, at cold start. ``clock``: every service's "now" (the handlers pass one
    that tests can move).
    """
    import boto3  # type: ignore[import-untyped]

    from .adapters.aws.boto_config import BOTO_CONFIG, SEND_TASK_CONFIG
    from .adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from .adapters.aws.dynamodb_store import DynamoShopStore
    from .adapters.aws.kms_mac import KmsMacKey
    from .domain.errors import ConfigurationError
    from .services.runtime import Runtime

    wanted = set(ports)
    boto_session = session or boto3.Session()

    def client(service: str) -> Any:
        return boto_session.client(service, config=BOTO_CONFIG)

    def required(name: str) -> str:
        value = getattr(settings, name)
        if not value:
            raise ConfigurationError(f"missing setting {name} for this function")
        return str(value)

    table = required("table_name")
    dynamodb = client("dynamodb")
    # The audit chain's links are MACed in KMS with their own key, so every function that appends an event may
    # MAC one without being able to forge a decision receipt (only the decision function signs those).
    kms = client("kms") if settings.audit_key_id or settings.receipt_key_id else None
    audit_key: MacKey | None = KmsMacKey(kms, settings.audit_key_id) if settings.audit_key_id else None
    receipt_key = KmsMacKey(kms, settings.receipt_key_id) if settings.receipt_key_id else None
    signer = getattr(settings, "operator_function", None)
    if signer and audit_key is None:
        from .adapters.aws.operator_signer import LambdaAuditSigner

        audit_key = LambdaAuditSigner(client("lambda"), str(signer))
    parts: dict[str, Any] = {}
    if "sessions" in wanted:
        from .adapters.aws.s3_sessions import S3SessionStore  # imports strands: the agent functions only

        parts["sessions"] = S3SessionStore(required("session_bucket"), settings.session_prefix, boto_session)
    parts.update(_topics(wanted, client, required))
    if "callback" in wanted:
        from .adapters.aws.step_functions import StepFunctionsCallback

        # SendTaskSuccess without SDK retry (boto_config.SEND_TASK_CONFIG): the wake judges a lost answer itself.
        parts["callback"] = StepFunctionsCallback(boto_session.client("stepfunctions", config=SEND_TASK_CONFIG))
    if "starter" in wanted:
        from .adapters.aws.step_functions import StepFunctionsStarter

        parts["starter"] = StepFunctionsStarter(client("stepfunctions"), required("state_machine_arn"))
    if "submissions" in wanted:
        from .adapters.aws.dynamodb_submissions import DynamoSubmissionStore

        parts["submissions"] = DynamoSubmissionStore(dynamodb, table)
    return Runtime(
        store=DynamoShopStore(dynamodb, table, audit_key=audit_key),
        approvals=DynamoApprovalStore(dynamodb, table),
        clock=clock,
        pid=os.getpid(),
        receipt_key=receipt_key,
        audit_key=audit_key,
        lease=settings.decision_lease,
        solver_nodes=settings.solver_nodes,
        **parts,
    )
