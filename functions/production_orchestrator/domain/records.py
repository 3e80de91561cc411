"""Persisted and exchanged records with schema versions: provider binding, checkpoint, decision, audit.

Reading a record of an unknown schema version fails clearly; every id is validated before it can become
a file path, an S3 key or a SQL parameter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .canonical import content_hash
from .limits import MAX_REASON_CHARS as MAX_REASON_CHARS  # the help shows it without importing pydantic

HASH_PATTERN = re.compile(r"^[0-9a-f]{64}\Z")
CHECKPOINT_ID_PATTERN = re.compile(r"^ckpt-[0-9a-f]{32}\Z")
SESSION_ID_PATTERN = re.compile(r"^sess-[0-9a-f]{32}\Z")
AGENT_ID_PATTERN = re.compile(r"^agent-[0-9a-f]{24}\Z")
INTERRUPT_NAME = "production_orchestrator.approve_plan"
CHECKPOINT_SCHEMA_VERSION: Literal[1] = 1
DECISION_SCHEMA_VERSION: Literal[2] = 2


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def utc_iso(moment: datetime) -> str:
    """ISO 8601 in UTC with seconds precision and a Z suffix."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def parse_utc(text: str) -> datetime:
    """Parse a timestamp written by :func:`utc_iso` (or any ISO 8601 with an offset)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"timestamp {text!r} has no time zone")
    return moment


def seconds_until(text: str, now: datetime) -> int:
    """Whole seconds from ``now`` to the timestamp ``text``, rounded up and at least 1: a timeout counted this way
    fires at or just after the moment, never before it."""
    return max(1, math.ceil((parse_utc(text) - now).total_seconds()))


def require_hash(value: str, label: str = "hash") -> str:
    """``value`` if it is a full 64-hex SHA-256, else ``ValueError``."""
    if not isinstance(value, str) or not HASH_PATTERN.fullmatch(value):
        raise ValueError(f"{label} must be the full 64-character lower-case hex SHA-256")
    return value


def require_id(value: str, pattern: re.Pattern[str], label: str) -> str:
    """``value`` if it matches ``pattern``, else ``ValueError`` (ids become keys and paths)."""
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ValueError(f"{label} {value!r} is malformed")
    return value


def _id_of(pattern: re.Pattern[str], label: str) -> Callable[[str], str]:
    return lambda value: require_id(value, pattern, label)


def _hash_of(label: str) -> Callable[[str], str]:
    return lambda value: require_hash(value, label)


def _timestamp(value: str) -> str:
    parse_utc(value)
    return value


# Field types: each id, hash and timestamp is validated by one function wherever a record holds it.
CheckpointId = Annotated[str, AfterValidator(_id_of(CHECKPOINT_ID_PATTERN, "checkpoint id"))]
SessionId = Annotated[str, AfterValidator(_id_of(SESSION_ID_PATTERN, "session id"))]
AgentId = Annotated[str, AfterValidator(_id_of(AGENT_ID_PATTERN, "agent id"))]
ProposalHash = Annotated[str, AfterValidator(_hash_of("proposal hash"))]
DomainDigest = Annotated[str, AfterValidator(_hash_of("domain digest"))]
ReviewedHash = Annotated[str, AfterValidator(_hash_of("reviewed hash"))]
SecretHash = Annotated[str, AfterValidator(_hash_of("secret hash"))]
Timestamp = Annotated[str, AfterValidator(_timestamp)]


class ProviderBinding(_Frozen):
    """Everything that selects the model backend. Built by one function for start, resume and identity."""

    provider: Literal["deterministic", "bedrock", "ollama"]
    model_id: str = Field(min_length=1, max_length=200)
    region: str = Field(default="", max_length=40)
    profile: str = Field(default="", max_length=120)
    endpoint: str = Field(default="", max_length=300)

    def describe(self) -> str:
        """A human line naming provider and model, never a credential."""
        where = f" in {self.region}" if self.region else ""
        return f"{self.provider} / {self.model_id}{where}"

    def differences(self, other: ProviderBinding) -> list[str]:
        """Names of the fields that differ (not their values: a profile name can be sensitive)."""
        return [name for name in type(self).model_fields if getattr(self, name) != getattr(other, name)]


def agent_identity(binding: ProviderBinding, scenario: str) -> str:
    """The Strands agent id: a hash of the provider binding and the scenario."""
    digest = content_hash({"provider_binding": binding.model_dump(mode="json"), "scenario": scenario})
    return f"agent-{digest[:24]}"


class Checkpoint(_Frozen):
    """What process A leaves behind for process B. ``integrity`` seals every other field."""

    schema_version: Literal[1] = CHECKPOINT_SCHEMA_VERSION
    checkpoint_id: CheckpointId
    interrupt_id: str = Field(min_length=1, max_length=300)
    interrupt_name: str
    session_id: SessionId
    agent_id: AgentId
    proposal_hash: ProposalHash
    domain_digest: DomainDigest
    provider_binding: ProviderBinding
    scenario: str
    target_order_id: str
    start_pid: int = Field(gt=0)
    created_at: Timestamp
    expires_at: Timestamp
    integrity: str = ""

    def computed_integrity(self) -> str:
        """Hash of every field but ``integrity``."""
        return content_hash(self.model_dump(mode="json", exclude={"integrity"}))

    def sealed(self) -> Checkpoint:
        """A copy whose ``integrity`` seals its fields."""
        return self.model_copy(update={"integrity": self.computed_integrity()})

    def is_intact(self) -> bool:
        """True when no field was changed after sealing."""
        return self.integrity == self.computed_integrity()


class Decision(_Frozen):
    """The ``interruptResponse`` payload: always an object, never a bare string or null."""

    approved: bool
    reviewed_hash: ReviewedHash
    approver: str = Field(min_length=1, max_length=120)
    reason: str = Field(default="", max_length=MAX_REASON_CHARS)
    decided_at: Timestamp

    def as_response(self) -> dict[str, Any]:
        """The dict submitted as the interrupt response."""
        return self.model_dump(mode="json")


class Completion(_Frozen):
    """How the resume that held the claim ended; written once, under the claim token."""

    outcome: Literal["applied", "rejected", "not_applied"]
    revision: int
    plan_applied_count: int
    completed_at: str
    stop_reason: str = ""
    final_text: str = Field(default="", max_length=4000)


class DecisionRecord(_Frozen):
    r"""A claimed decision; at most one per checkpoint.

    claimed (token, lease) --resume finishes--> completed (outcome)
        \--process dies, lease runs out--> taken over by a re-run of the same decision (new token, lease)

    Version 1 records (no lease, no completion) were written by a claim-and-resume that had no recovery:
    they read as completed, so they stay ALREADY_DECIDED as they always were.
    """

    schema_version: Literal[1, 2] = DECISION_SCHEMA_VERSION
    checkpoint_id: str
    decision: Decision
    resume_pid: int
    claimed_at: str
    claim_token: str = ""
    lease_expires_at: str = ""
    attempt: int = 1
    completion: Completion | None = None

    def is_complete(self) -> bool:
        """True once the resume holding the claim recorded its outcome (or for a version 1 record)."""
        return self.completion is not None or self.schema_version == 1

    def lease_live(self, now: datetime) -> bool:
        """True while the resume holding the claim may still be running."""
        return bool(self.lease_expires_at) and now < parse_utc(self.lease_expires_at)

    def same_decision(self, approved: bool, reviewed_hash: str) -> bool:
        """True when a re-run asks for the decision this record holds (approver and wording aside)."""
        return self.decision.approved == approved and self.decision.reviewed_hash == reviewed_hash


# The record of one agent tool call. It changes nothing itself (a tool that writes carries its own event), so a
# store may write it together with the run's next audited write instead of on its own.
TOOL_CALLED_EVENT = "tool_called"


class AuditEvent(_Frozen):
    """One line of the audit trail: what happened, to which ids, when."""

    event_type: str
    at: str
    session_id: str = ""
    checkpoint_id: str = ""
    proposal_hash: str = ""
    detail: dict[str, Any] = Field(default_factory=dict)
    # Stamped by the store inside the appending transaction (domain/approval/audit_chain.py): position and link.
    seq: int = Field(default=0, ge=0)
    prev_hash: str = ""
    # The link's MAC under the audit key (keyed chain); not part of the event's hash.
    mac: str = Field(default="", max_length=200)


def audit_event(
    event_type: str,
    at: datetime,
    *,
    session_id: str = "",
    checkpoint_id: str = "",
    proposal_hash: str = "",
    **detail: Any,
) -> AuditEvent:
    """One audit event, stamped with ``at`` (the store adds its chain position and link)."""
    return AuditEvent(
        event_type=event_type,
        at=utc_iso(at),
        session_id=session_id,
        checkpoint_id=checkpoint_id,
        proposal_hash=proposal_hash,
        detail=detail,
    )
