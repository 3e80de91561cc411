"""Approval records: one approval per notification round, holding the task token and link-secret hashes.

    pending --decide (first valid POST, before expiry)--> decided
    pending --window closed / workflow timed out-------> expired
    decided --task token found closed on SendTaskSuccess--> expired

Only a SHA-256 of each link secret is stored; the raw secret exists in the e-mail and the link only.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .records import CHECKPOINT_ID_PATTERN, Decision, parse_utc, require_hash, require_id

APPROVAL_ID_PATTERN = re.compile(r"^appr-[0-9a-f]{32}$")
# secrets.token_urlsafe(32) yields 43 url-safe characters; accept a bounded range, nothing else.
LINK_SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32,128}$")
APPROVAL_SCHEMA_VERSION: Literal[1] = 1
ApprovalStatus = Literal["pending", "decided", "expired"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def hash_link_secret(secret: str) -> str:
    """The stored form of a link secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApproverLink(_Frozen):
    """One approver and the hash of the secret in their link."""

    approver: str = Field(min_length=3, max_length=120)
    secret_hash: str = Field(repr=False)

    @field_validator("secret_hash")
    @classmethod
    def _hash(cls, value: str) -> str:
        return require_hash(value, "secret hash")


class ApprovalRecord(_Frozen):
    """An approval request: what it is about, who may decide, and (once decided) what they decided."""

    schema_version: Literal[1] = APPROVAL_SCHEMA_VERSION
    approval_id: str
    checkpoint_id: str
    proposal_hash: str
    status: ApprovalStatus = "pending"
    created_at: str
    expires_at: str
    # Never printed: repr=False keeps the token out of reprs, tracebacks and log lines.
    task_token: str = Field(min_length=1, max_length=4096, repr=False)
    approvers: tuple[ApproverLink, ...] = Field(min_length=1, max_length=20)
    decided_by: str = ""
    decision: Decision | None = None
    closed_at: str = ""

    @field_validator("approval_id")
    @classmethod
    def _approval_id(cls, value: str) -> str:
        return require_id(value, APPROVAL_ID_PATTERN, "approval id")

    @field_validator("checkpoint_id")
    @classmethod
    def _checkpoint_id(cls, value: str) -> str:
        return require_id(value, CHECKPOINT_ID_PATTERN, "checkpoint id")

    @field_validator("proposal_hash")
    @classmethod
    def _proposal_hash(cls, value: str) -> str:
        return require_hash(value, "proposal hash")

    @field_validator("created_at", "expires_at")
    @classmethod
    def _timestamps(cls, value: str) -> str:
        parse_utc(value)
        return value

    def approver_for(self, secret: str) -> str | None:
        """The approver whose link carries ``secret``, compared in constant time; None when none does."""
        if not isinstance(secret, str) or not LINK_SECRET_PATTERN.match(secret):
            return None
        presented = hash_link_secret(secret)
        found = None
        for link in self.approvers:
            if hmac.compare_digest(link.secret_hash, presented):
                found = link.approver
        return found
