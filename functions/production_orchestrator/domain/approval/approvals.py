"""Approval records: one approval per plan, holding its policy, the task token, link-secret hashes and votes.

    pending --vote (an approve short of the quorum)--> pending
    pending --the approve reaching the quorum-------> decided     --woken--> (the workflow resumes it)
    pending --a reject-------------------------------> rejected    --woken--> (the agent is told, nothing changes)
    pending --window closed / workflow timed out----> expired
    decided | rejected, not resumed --workflow timed out--> expired
    pending --propose again--------------------------> superseded (its successor opens under the same links)

Only a SHA-256 of each link secret is stored; the raw secret exists in the e-mail and the link only. Who
may decide is the stored :class:`~.policy.ApprovalPolicy`; ``required`` is what it asks of this plan.
Every transition is computed here (pure) and written by the stores with a condition on the record read,
so racing writers serialize and the loser re-reads.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from ..errors import ApprovalExpiredError, DecisionAlreadyClaimedError, ValidationError
from ..records import CheckpointId, Decision, ProposalHash, SecretHash, Timestamp, parse_utc, require_id, utc_iso
from .policy import MAX_APPROVERS, ApprovalPolicy, identity
from .receipts import Receipt
from .reminders import ReminderMark
from .revision_ask import RevisionAsk

APPROVAL_ID_PATTERN = re.compile(r"^appr-[0-9a-f]{32}\Z")
# secrets.token_urlsafe(32) yields 43 url-safe characters; accept a bounded range, nothing else.
LINK_SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32,128}\Z")
APPROVAL_SCHEMA_VERSION: Literal[2] = 2
ApprovalStatus = Literal["pending", "decided", "rejected", "expired", "superseded"]
CLOSED_STATUSES: frozenset[str] = frozenset({"decided", "rejected"})
ApprovalId = Annotated[str, AfterValidator(lambda value: require_id(value, APPROVAL_ID_PATTERN, "approval id"))]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def hash_link_secret(secret: str) -> str:
    """The stored form of a link secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApproverLink(_Frozen):
    """One approver and the hash of the secret in their link; ``nonce`` (not secret) when the secret is derived
    from the shop's link key (links.py), so the same link can be issued again (a reminder, a lost e-mail)."""

    approver: str = Field(min_length=3, max_length=120)
    secret_hash: SecretHash = Field(repr=False)
    nonce: str = Field(default="", pattern=r"^([0-9a-f]{32})?$")

    @model_serializer(mode="wrap")
    def _without_empty_nonce(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A random (underivable) link serializes as before the field existed: DynamoDB compares stored text.
        data: dict[str, Any] = handler(self)
        if not data.get("nonce"):
            data.pop("nonce", None)
        return data


class Vote(_Frozen):
    """One approver's decision and its receipt."""

    decision: Decision
    receipt: Receipt | None = None


def _upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Read a version 1 record: the policy was spread over fields and "decided" meant approved or rejected."""
    links = data.pop("approvers", ())
    quorum = int(data.pop("quorum", 1))
    names = [link["approver"] if isinstance(link, dict) else link.approver for link in links]
    data["links"] = links
    data["policy"] = {
        "approvers": names,
        "requester": data.pop("requester", ""),
        "separation_of_duties": data.pop("separation_of_duties", False),
        "quorum": quorum,
        # Version 1 kept only the number this plan needed: treat any procurement as above the threshold.
        "quorum_above": 0 if quorum > 1 else None,
        "restricted": data.pop("restricted", True),
    }
    data["required"] = quorum
    decision = data.get("decision")
    if data.get("status") == "decided" and isinstance(decision, dict) and not decision.get("approved"):
        data["status"] = "rejected"
    if data.get("status") == "expired" and data.get("superseded_by"):
        data["status"] = "superseded"
    data["notified"] = names
    data["schema_version"] = APPROVAL_SCHEMA_VERSION
    return data


class ApprovalRecord(_Frozen):
    """An approval request: what it is about, who may decide (the policy), and the votes and outcome."""

    schema_version: Literal[2] = APPROVAL_SCHEMA_VERSION
    approval_id: ApprovalId
    checkpoint_id: CheckpointId
    proposal_hash: ProposalHash
    status: ApprovalStatus = "pending"
    created_at: Timestamp
    expires_at: Timestamp
    # Never printed: repr=False keeps the token out of reprs, tracebacks and log lines.
    task_token: str = Field(min_length=1, max_length=4096, repr=False)
    policy: ApprovalPolicy
    links: tuple[ApproverLink, ...] = Field(min_length=1, max_length=20)
    required: int = Field(default=1, ge=1, le=20)
    votes: tuple[Vote, ...] = ()
    decided_by: str = ""
    decision: Decision | None = None
    closed_at: str = ""
    # Set once the workflow was told about the decision (SendTaskSuccess answered); until then a voter's
    # next POST, or the reconciler, wakes it again.
    woken_at: str = ""
    # Counted before each SendTaskSuccess: a "token closed" answer when another try exists means that try (its
    # answer lost, or racing ours) woke the workflow, not that the workflow went away.
    wake_tries: int = Field(default=0, ge=0)
    # Approvers whose link was delivered; a retried request sends only to the others.
    notified: tuple[str, ...] = ()
    supersedes: str = ""
    superseded_by: str = ""
    version: int = Field(default=1, ge=1, le=1000, exclude_if=lambda v: v == 1)  # the plan's; then its successor's:
    successor_version: int = Field(default=0, ge=0, le=1000, exclude_if=lambda v: v == 0)
    successor_hash: str = Field(default="", pattern=r"^([0-9a-f]{64})?$", exclude_if=lambda v: not v)
    # Reminders held or sent (``<point>|<approver>``) and when the backup approvers joined (once).
    reminders: tuple[ReminderMark, ...] = ()
    escalated_at: str = ""
    revision_asked: RevisionAsk | None = Field(default=None, exclude_if=lambda v: v is None)  # AWS: revision_ask.py

    @model_validator(mode="before")
    @classmethod
    def _read_older(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("schema_version", 1) == 1 and "policy" not in data:
            return _upgrade_v1(dict(data))
        return data

    @model_validator(mode="after")
    def _links_match_policy(self) -> ApprovalRecord:
        if tuple(identity(link.approver) for link in self.links) != self.policy.approvers:
            raise ValueError("the links must name exactly the policy's approvers, in its order")
        return self

    # -- reading ---------------------------------------------------------------------------------------

    def approver_for(self, secret: str) -> str | None:
        """The approver whose link carries ``secret``, compared in constant time; None when none does."""
        if not isinstance(secret, str) or not LINK_SECRET_PATTERN.fullmatch(secret):
            return None
        presented = hash_link_secret(secret)
        found = None
        for link in self.links:
            if hmac.compare_digest(link.secret_hash, presented):
                found = link.approver
        return found

    def approver_names(self) -> tuple[str, ...]:
        """Everyone asked, in the order they were asked."""
        return self.policy.approvers

    @property
    def requester(self) -> str:
        """Who requested the plan (normalized)."""
        return self.policy.requester

    def has_voted(self, approver: str) -> bool:
        """True when ``approver`` already voted on this approval."""
        person = identity(approver)
        return any(identity(vote.decision.approver) == person for vote in self.votes)

    def approving_votes(self) -> int:
        """How many distinct approvers approved exactly this plan."""
        approving = (v.decision for v in self.votes if v.decision.approved)
        return len({identity(d.approver) for d in approving if d.reviewed_hash == self.proposal_hash})

    def is_open(self, now: datetime) -> bool:
        """Pending and inside its window."""
        return self.status == "pending" and now < parse_utc(self.expires_at)

    def state(self, now: datetime) -> str:
        """The status as a person should read it now: a pending approval past its window is expired."""
        return "expired" if self.status == "pending" and now >= parse_utc(self.expires_at) else self.status

    def needs_wake(self) -> bool:
        """Decided, rejected or revised by a revision ask (revision_ask.py), and the workflow not yet told."""
        return (self.status in CLOSED_STATUSES or self.revision_asked is not None) and not self.woken_at

    # -- transitions (pure; the stores write them conditioned on the record read) -----------------------

    def _require_open(self, now: datetime) -> None:
        if self.status in CLOSED_STATUSES or self.status == "superseded":
            raise DecisionAlreadyClaimedError(f"approval {self.approval_id} is already {self.status}")
        if self.status == "expired" or now >= parse_utc(self.expires_at):
            raise ApprovalExpiredError(f"approval {self.approval_id} expired at {self.expires_at}")

    def with_vote(self, vote: Vote, now: datetime) -> ApprovalRecord:
        """The record after ``vote``: rejected on a reject, decided on reaching the quorum, else pending."""
        self._require_open(now)
        if self.has_voted(vote.decision.approver):
            raise DecisionAlreadyClaimedError(f"{vote.decision.approver} already voted on approval {self.approval_id}")
        votes = (*self.votes, vote)
        probe = self.model_copy(update={"votes": votes})
        if vote.decision.approved and probe.approving_votes() < self.required:
            return probe
        status: ApprovalStatus = "decided" if vote.decision.approved else "rejected"
        return probe.model_copy(
            update={
                "status": status,
                "decided_by": ", ".join(
                    v.decision.approver for v in votes if v.decision.approved == vote.decision.approved
                ),
                "decision": vote.decision,
                "closed_at": utc_iso(now),
            }
        )

    def expired(self, now: datetime, *, include_closed: bool = False) -> ApprovalRecord:
        """The record closed by the window (pending) or, with ``include_closed``, by the workflow ending expired
        (also a decided or rejected approval, or a revision ask no version answered, that no resume acted on: woken
        or not, the workflow stopped waiting without it; a resend that heard TaskTimedOut may have judged it woken)."""
        if self.status == "expired":
            return self
        unanswered = self.status in CLOSED_STATUSES or (self.revision_asked is not None and not self.superseded_by)
        if self.status != "pending" and not (include_closed and unanswered):
            raise DecisionAlreadyClaimedError(f"approval {self.approval_id} is {self.status}, not pending")
        return self.model_copy(update={"status": "expired", "closed_at": utc_iso(now)})

    def superseded(self, successor: str, now: datetime, *, version: int = 0, proposal_hash: str = "") -> ApprovalRecord:
        """Closed by "propose again" or a revision (a higher ``version``): only an open approval is replaced."""
        self._require_open(now)
        revised = {"successor_version": version, "successor_hash": proposal_hash} if version > self.version else {}
        return self.model_copy(
            update={"status": "superseded", "superseded_by": successor, "closed_at": utc_iso(now), **revised}
        )

    def woken(self, now: datetime, *, confirmed: bool = True) -> ApprovalRecord:
        """The record once the workflow was told (``confirmed``), or as a wake-up is about to be tried."""
        if self.woken_at:
            return self
        if not self.needs_wake():
            raise DecisionAlreadyClaimedError(f"approval {self.approval_id} is {self.status}: nothing to wake")
        if confirmed:
            return self.model_copy(update={"woken_at": utc_iso(now)})
        return self.model_copy(update={"wake_tries": self.wake_tries + 1})

    def delivered(self, task_token: str, approver: str = "", secret_hash: str = "", nonce: str = "") -> ApprovalRecord:
        """The record bound to the workflow task ``task_token`` and, given ``approver``, with their link (whose
        secret hashes to ``secret_hash``, derived from ``nonce`` when given) recorded as sent."""
        if self.status != "pending":
            raise DecisionAlreadyClaimedError(f"approval {self.approval_id} is {self.status}: no link to send")
        update: dict[str, Any] = {"task_token": task_token}
        person = identity(approver)
        if person:
            update["links"] = tuple(
                ApproverLink(approver=link.approver, secret_hash=secret_hash, nonce=nonce)
                if link.approver == person
                else link
                for link in self.links
            )
            update["notified"] = self.notified if person in self.notified else (*self.notified, person)
        return self.model_copy(update=update)

    def relinked(self, approver: str, secret_hash: str, now: datetime, nonce: str = "") -> ApprovalRecord:
        """The record with ``approver``'s link replaced by one whose secret hashes to ``secret_hash`` (derived from
        ``nonce`` when given): the old link stops working at once. Only while the approval is open, and only for
        an approver it asks."""
        self._require_open(now)
        person = identity(approver)
        if person not in self.policy.approvers:
            raise ValidationError(f"{approver} is not an approver of approval {self.approval_id}")
        links = tuple(
            ApproverLink(approver=link.approver, secret_hash=secret_hash, nonce=nonce)
            if link.approver == person
            else link
            for link in self.links
        )
        return self.model_copy(update={"links": links})

    def link_of(self, approver: str) -> ApproverLink | None:
        """``approver``'s current link (its hash and nonce), or None when the approval does not ask them."""
        person = identity(approver)
        return next((link for link in self.links if link.approver == person), None)

    def reminder(self, key: str) -> ReminderMark | None:
        """The reminder ``key`` as recorded, if any."""
        return next((m for m in self.reminders if m.key == key), None)

    def reminder_claimed(self, key: str, token: str, now: datetime, lease: timedelta) -> ApprovalRecord:
        """The record with reminder ``key`` held by ``token`` until ``now + lease``; unchanged when it was sent,
        or another sender holds it (the caller sends only if the stored claim is its own)."""
        self._require_open(now)
        found = self.reminder(key)
        if found is not None and (found.sent_at or (found.until and now < parse_utc(found.until))):
            return self
        mark = ReminderMark(key=key, claim=token, until=utc_iso(now + lease))
        return self.model_copy(update={"reminders": (*(m for m in self.reminders if m.key != key), mark)})

    def reminder_sent(self, key: str, token: str, now: datetime) -> ApprovalRecord:
        """The record with reminder ``key`` marked sent, if ``token`` holds it (else unchanged)."""
        found = self.reminder(key)
        if found is None or found.claim != token or found.sent_at:
            return self
        done = found.model_copy(update={"sent_at": utc_iso(now)})
        return self.model_copy(update={"reminders": tuple(done if m.key == key else m for m in self.reminders)})

    def reminder_queued(self, key: str, approver: str, now: datetime) -> ApprovalRecord:
        """The record with reminder ``key`` marked sent as it is queued in the outbox (in the same transaction: no
        lease needed); unchanged when it was sent already or ``approver`` voted meanwhile."""
        self._require_open(now)
        found = self.reminder(key)
        if (found is not None and found.sent_at) or self.has_voted(approver):
            return self
        mark = ReminderMark(key=key, sent_at=utc_iso(now))
        return self.model_copy(update={"reminders": (*(m for m in self.reminders if m.key != key), mark)})

    def escalated(self, backups: tuple[ApproverLink, ...], now: datetime) -> ApprovalRecord:
        """The record with ``backups`` added to who is asked (each with their link), once; nothing else of
        the policy changes (the quorum, the requester, separation of duties stay as they were)."""
        self._require_open(now)
        if self.escalated_at:
            return self
        added = tuple(b for b in backups if identity(b.approver) not in self.policy.approvers)
        names = (*self.policy.approvers, *(identity(b.approver) for b in added))
        if len(names) > MAX_APPROVERS:
            raise ValidationError(
                f"approval {self.approval_id} would ask {len(names)} people (at most {MAX_APPROVERS})"
            )
        policy = self.policy.model_copy(update={"approvers": names})
        links = (*self.links, *(b.model_copy(update={"approver": identity(b.approver)}) for b in added))
        return self.model_copy(update={"policy": policy, "links": links, "escalated_at": utc_iso(now)})


class ApprovalTransitions:
    """The transitions an :class:`ApprovalStore` offers, each the record's own pure change, applied by the
    store's ``_change`` (read, change, write conditioned on the record read; retried when another writer won).

    Every store (SQLite, DynamoDB, the in-memory fake) inherits these, so an approval moves the same way
    whichever store holds it; a store implements only ``_change``.
    """

    def _change(self, approval_id: str, change: Callable[[ApprovalRecord], ApprovalRecord]) -> ApprovalRecord:
        raise NotImplementedError

    def record_approval_vote(self, approval_id: str, vote: Vote, *, now: datetime) -> ApprovalRecord:
        """Add ``vote`` to the pending approval in its window; a reject or the quorum closes it. Racing voters
        both count: the write that lost re-reads and adds its vote to the winner's record."""
        return self._change(approval_id, lambda before: before.with_vote(vote, now))

    def expire_approval(self, approval_id: str, *, now: datetime, include_closed: bool = False) -> ApprovalRecord:
        """pending (or, with ``include_closed``, decided but not acted on) -> expired; expired stays as is."""
        return self._change(approval_id, lambda before: before.expired(now, include_closed=include_closed))

    def record_wake(self, approval_id: str, *, now: datetime, confirmed: bool) -> ApprovalRecord:
        """Record a wake-up about to be tried, or (``confirmed``) done; idempotent once woken."""
        return self._change(approval_id, lambda before: before.woken(now, confirmed=confirmed))

    def record_reminder_claim(
        self, approval_id: str, key: str, token: str, *, now: datetime, lease: timedelta
    ) -> ApprovalRecord:
        """Hold reminder ``key`` for ``token`` (unless it was sent or another sender holds it)."""
        return self._change(approval_id, lambda before: before.reminder_claimed(key, token, now, lease))

    def record_reminder_sent(self, approval_id: str, key: str, token: str, *, now: datetime) -> ApprovalRecord:
        """Mark reminder ``key`` sent by the holder ``token``."""
        return self._change(approval_id, lambda before: before.reminder_sent(key, token, now))

    def record_escalation(
        self, approval_id: str, backups: tuple[ApproverLink, ...], *, now: datetime
    ) -> ApprovalRecord:
        """Add the backup approvers (with their links) to the open approval, once."""
        return self._change(approval_id, lambda before: before.escalated(backups, now))

    def record_relink(
        self, approval_id: str, approver: str, secret_hash: str, *, now: datetime, nonce: str = ""
    ) -> ApprovalRecord:
        """Replace ``approver``'s link on the open approval (their old link stops working)."""
        return self._change(approval_id, lambda before: before.relinked(approver, secret_hash, now, nonce))

    def record_delivery(
        self, approval_id: str, task_token: str, approver: str = "", secret_hash: str = "", nonce: str = ""
    ) -> ApprovalRecord:
        """Bind the approval to ``task_token`` and, given ``approver``, record their link (``secret_hash``) as sent."""
        return self._change(approval_id, lambda before: before.delivered(task_token, approver, secret_hash, nonce))
