"""Approval records: one approval per notification round, holding the task token and link-secret hashes.

    pending --vote (valid POST, before expiry)--> pending   (an approve short of the quorum)
    pending --reject, or the approve that reaches the quorum--> decided
    pending --window closed / workflow timed out / superseded by a new proposal--> expired
    decided --task token found closed on SendTaskSuccess--> expired

Only a SHA-256 of each link secret is stored; the raw secret exists in the e-mail and the link only.
Who may decide is part of the record (the policy at the time of the request): the approver list, the
requester and whether separation of duties forbids them to approve, and how many approvals it takes.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .receipts import Receipt
from .records import CheckpointId, Decision, ProposalHash, SecretHash, Timestamp, require_id

APPROVAL_ID_PATTERN = re.compile(r"^appr-[0-9a-f]{32}$")
# secrets.token_urlsafe(32) yields 43 url-safe characters; accept a bounded range, nothing else.
LINK_SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32,128}$")
APPROVAL_SCHEMA_VERSION: Literal[1] = 1
ApprovalStatus = Literal["pending", "decided", "expired"]
ApprovalId = Annotated[str, AfterValidator(lambda value: require_id(value, APPROVAL_ID_PATTERN, "approval id"))]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def hash_link_secret(secret: str) -> str:
    """The stored form of a link secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApproverLink(_Frozen):
    """One approver and the hash of the secret in their link."""

    approver: str = Field(min_length=3, max_length=120)
    secret_hash: SecretHash = Field(repr=False)


class Vote(_Frozen):
    """One approver's decision and its receipt."""

    decision: Decision
    receipt: Receipt | None = None


def required_approvals(procurement_quantity: int, *, quorum: int, above_quantity: int | None) -> int:
    """How many approvals a plan needs: ``quorum`` when it procures more than ``above_quantity``, else 1."""
    if above_quantity is None or procurement_quantity <= above_quantity:
        return 1
    return max(1, quorum)


class ApprovalRecord(_Frozen):
    """An approval request: what it is about, who may decide, and (once decided) what they decided."""

    schema_version: Literal[1] = APPROVAL_SCHEMA_VERSION
    approval_id: ApprovalId
    checkpoint_id: CheckpointId
    proposal_hash: ProposalHash
    status: ApprovalStatus = "pending"
    created_at: Timestamp
    expires_at: Timestamp
    # Never printed: repr=False keeps the token out of reprs, tracebacks and log lines.
    task_token: str = Field(min_length=1, max_length=4096, repr=False)
    approvers: tuple[ApproverLink, ...] = Field(min_length=1, max_length=20)
    decided_by: str = ""
    decision: Decision | None = None
    closed_at: str = ""
    requester: str = Field(default="", max_length=300)
    separation_of_duties: bool = False
    quorum: int = Field(default=1, ge=1, le=20)
    votes: tuple[Vote, ...] = ()
    # False only for a local run started without --approvers: the operator's own CLI may then decide.
    restricted: bool = True
    # Set when "propose again" replaced this approval: the same links open the new one.
    superseded_by: str = ""

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

    def approver_names(self) -> tuple[str, ...]:
        """Everyone asked, in the order they were asked."""
        return tuple(link.approver for link in self.approvers)

    def has_voted(self, approver: str) -> bool:
        """True when ``approver`` already decided on this approval."""
        return any(vote.decision.approver == approver for vote in self.votes)

    def approving_votes(self) -> int:
        """How many distinct approvers approved."""
        return len({vote.decision.approver for vote in self.votes if vote.decision.approved})

    def refusal_for(self, approver: str, approved: bool) -> str | None:
        """Why ``approver`` may not make this decision, or None when they may."""
        if approver not in self.approver_names():
            return f"{approver} is not an approver of approval {self.approval_id}"
        if approved and self.separation_of_duties and self.requester and approver == self.requester:
            return f"{approver} started this run and may not approve their own plan (separation of duties)"
        return None

    def with_vote(self, vote: Vote, closed_at: str) -> ApprovalRecord:
        """The record after ``vote``: decided on a reject or on reaching the quorum, else still pending."""
        votes = (*self.votes, vote)
        probe = self.model_copy(update={"votes": votes})
        done = not vote.decision.approved or probe.approving_votes() >= self.quorum
        if not done:
            return probe
        return probe.model_copy(
            update={
                "status": "decided",
                "decided_by": ", ".join(
                    v.decision.approver for v in votes if v.decision.approved == vote.decision.approved
                ),
                "decision": vote.decision,
                "closed_at": closed_at,
            }
        )
