"""Lambda configuration: environment variables read once per cold start into one validated model.

Each handler names the settings it needs; a missing or malformed one is a ``ConfigurationError`` naming
the environment variable, raised before any event is handled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from .. import contracts
from ..domain.approval.claims import DEFAULT_LEASE
from ..domain.approval.policy import ApprovalPolicy, build_policy
from ..domain.durations import parse_duration
from ..domain.errors import ConfigurationError, ValidationError
from ..domain.identity import Submitter, parse_submitter_map
from ..domain.limits import DEFAULT_MAX_VERSIONS, MAX_VERSIONS

# Field name -> environment variable. The CDK stack sets exactly these.
ENV_VARS = {
    "table_name": contracts.ENV_TABLE_NAME,
    "separation_of_duties": contracts.ENV_SEPARATION_OF_DUTIES,
    "quorum": contracts.ENV_QUORUM,
    "quorum_above_quantity": contracts.ENV_QUORUM_ABOVE_QUANTITY,
    "max_versions": contracts.ENV_MAX_VERSIONS,
    "receipt_key_id": contracts.ENV_RECEIPT_KEY_ID,
    "audit_key_id": contracts.ENV_AUDIT_KEY_ID,
    "session_bucket": contracts.ENV_SESSION_BUCKET,
    "session_prefix": contracts.ENV_SESSION_PREFIX,
    "topic_arn": contracts.ENV_TOPIC_ARN,
    "operator_topic_arn": contracts.ENV_OPERATOR_TOPIC_ARN,
    "provider": contracts.ENV_PROVIDER,
    "model_id": contracts.ENV_MODEL_ID,
    "model_region": contracts.ENV_MODEL_REGION,
    "model_profile": contracts.ENV_MODEL_PROFILE,
    "model_endpoint": contracts.ENV_MODEL_ENDPOINT,
    "approval_window": contracts.ENV_APPROVAL_WINDOW,
    "link_base_url": contracts.ENV_LINK_BASE_URL,
    "approvers": contracts.ENV_APPROVERS,
    "scenario": contracts.ENV_SCENARIO,
    "decision_lease": contracts.ENV_DECISION_LEASE,
    "sender_email": contracts.ENV_SENDER_EMAIL,
    "ses_configuration_set": contracts.ENV_SES_CONFIGURATION_SET,
    "state_machine_arn": contracts.ENV_STATE_MACHINE_ARN,
    "inbound_address": contracts.ENV_INBOUND_ADDRESS,
    "submitters": contracts.ENV_SUBMITTERS,
    "solver_nodes": contracts.ENV_SOLVER_NODES,
}
_TABLE = re.compile(r"^[A-Za-z0-9_.-]{3,255}\Z")
_TOPIC = re.compile(r"^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?\Z")
_STATE_MACHINE = re.compile(r"^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}\Z")
_CONFIGURATION_SET = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
_LINK = re.compile(r"^(https://[^\s?#]+|http://(127\.0\.0\.1|localhost)(:\d+)?(/[^\s?#]*)?)\Z")


def duration_setting(value: Any) -> Any:
    """A setting's duration: text ("2d", "PT4H") parsed, anything else left to the field's type."""
    if isinstance(value, str):
        try:
            return parse_duration(value)
        except ValidationError as exc:
            raise ValueError(str(exc)) from None
    return value


def email_list_setting(value: Any) -> Any:
    """A setting's e-mail addresses: comma-separated text or a sequence, each an approver's address."""
    if isinstance(value, str):
        value = tuple(part.strip() for part in value.split(",") if part.strip())
    for email in value:
        if not contracts.is_approver_email(email):
            raise ValueError(f"{email!r} is not an e-mail address")
    return value


class Settings(BaseModel):
    """Every setting any handler reads. Optional here; each handler :meth:`require`\\ s its own."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    table_name: str | None = None
    # On by default in AWS: whoever started a run (the execution input's requested_by) may not approve it.
    separation_of_duties: bool = True
    quorum: int = Field(default=2, ge=1, le=20)
    quorum_above_quantity: int | None = Field(default=None, ge=0)
    # The state machine's timeout is sized for this many versions (infra/settings.py): the stack sets both.
    max_versions: int = Field(default=DEFAULT_MAX_VERSIONS, ge=1, le=MAX_VERSIONS)
    receipt_key_id: str | None = Field(default=None, max_length=2048)
    audit_key_id: str | None = Field(default=None, max_length=2048)
    session_bucket: str | None = None
    session_prefix: str = "sessions/"
    topic_arn: str | None = None
    # Operator alerts (a request waiting as needs facts) go to the stack's alarm topic.
    operator_topic_arn: str | None = None
    provider: str = "deterministic"
    model_id: str | None = None
    model_region: str | None = None
    model_profile: str | None = None
    model_endpoint: str | None = None
    approval_window: timedelta = timedelta(days=7)
    link_base_url: str | None = None
    approvers: tuple[str, ...] = Field(default=())
    scenario: str = "rush-order"
    # Longer than the resume function's timeout: a running resume is never taken over (docs/recovery.md).
    decision_lease: timedelta = DEFAULT_LEASE
    # The outbox sender: a verified SES identity's address and the configuration set it sends through.
    sender_email: str | None = None
    ses_configuration_set: str | None = None
    # The submit entry starts executions of this state machine.
    state_machine_arn: str | None = None
    # Customer e-mails SES receives for this address start runs.
    inbound_address: str | None = None
    # Who may submit: principal ARN -> person (domain/identity.py); empty: every caller is refused.
    # (pairs, not a dict: the settings are frozen and hashed)
    submitters: tuple[tuple[str, Submitter], ...] = ()

    @field_validator("submitters", mode="before")
    @classmethod
    def _submitters(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise ValueError("is not a JSON object") from None
        if not isinstance(value, dict):
            raise ValueError("is not a JSON object")
        return tuple(sorted(parse_submitter_map(value).items()))

    # The planning solver's budget in work, never in time (domain/planning/solver.py DEFAULT_NODES).
    solver_nodes: int = Field(default=200, ge=0, le=100_000)

    @field_validator("table_name")
    @classmethod
    def _table(cls, value: str | None) -> str | None:
        if value is not None and not _TABLE.fullmatch(value):
            raise ValueError("is not a DynamoDB table name")
        return value

    @field_validator("topic_arn", "operator_topic_arn")
    @classmethod
    def _topic(cls, value: str | None) -> str | None:
        if value is not None and not _TOPIC.fullmatch(value):
            raise ValueError("is not an SNS topic ARN")
        return value

    @field_validator("sender_email", "inbound_address")
    @classmethod
    def _sender(cls, value: str | None) -> str | None:
        if value is not None and not contracts.is_approver_email(value):
            raise ValueError("is not an e-mail address")
        return value

    @field_validator("ses_configuration_set")
    @classmethod
    def _configuration_set(cls, value: str | None) -> str | None:
        if value is not None and not _CONFIGURATION_SET.fullmatch(value):
            raise ValueError("is not an SES configuration set name")
        return value

    @field_validator("state_machine_arn")
    @classmethod
    def _state_machine(cls, value: str | None) -> str | None:
        if value is not None and not _STATE_MACHINE.fullmatch(value):
            raise ValueError("is not a Step Functions state machine ARN")
        return value

    @field_validator("link_base_url")
    @classmethod
    def _link(cls, value: str | None) -> str | None:
        if value is not None and not _LINK.fullmatch(value):
            raise ValueError("must be an https URL without query or fragment (http only for localhost)")
        return value

    @field_validator("approval_window", "decision_lease", mode="before")
    @classmethod
    def _window(cls, value: Any) -> Any:
        return duration_setting(value)

    @field_validator("approvers", mode="before")
    @classmethod
    def _approvers(cls, value: Any) -> Any:
        return email_list_setting(value)

    def policy(self, requested_by: str) -> ApprovalPolicy:
        """The approval policy of a run started by ``requested_by``; ``ValidationError`` when it can never be
        satisfied (separation of duties with nobody named as the requester, a quorum above the list)."""
        return build_policy(
            approvers=self.approvers,
            requester=requested_by,
            separation_of_duties=self.separation_of_duties,
            quorum=self.quorum,
            quorum_above=self.quorum_above_quantity,
        ).limited_to(self.max_versions)

    def require(self, *fields: str) -> Settings:
        """``self`` if every field in ``fields`` is set; else name the missing environment variables."""
        missing = [ENV_VARS[name] for name in fields if not getattr(self, name)]
        if missing:
            raise ConfigurationError(f"missing environment variable(s): {', '.join(missing)}")
        return self


def load_settings(environ: Mapping[str, str]) -> Settings:
    """Read the settings from ``environ``; empty values count as unset."""
    raw = {name: environ[var] for name, var in ENV_VARS.items() if environ.get(var, "").strip()}
    try:
        return Settings.model_validate(raw)
    except PydanticValidationError as exc:
        # Name the variable and the rule, never echo the value (a URL or ARN is not secret, but a
        # misplaced secret in the wrong variable would be).
        problems = "; ".join(
            f"{ENV_VARS.get(str(err['loc'][0]), err['loc'][0]) if err['loc'] else 'settings'} {err['msg']}"
            for err in exc.errors(include_input=False, include_url=False)
        )
        raise ConfigurationError(f"invalid configuration: {problems}") from None
