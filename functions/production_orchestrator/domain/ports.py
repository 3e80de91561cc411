"""Ports: what the services need from storage, as Protocols. Adapters (local, AWS) implement them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from .approval.mac import MacKey as MacKey

if TYPE_CHECKING:  # named in signatures only: a command imports the records it reads, not every port's
    from .approval.approvals import ApprovalRecord, ApproverLink, Vote
    from .approval.audit_chain import Head
    from .approval.verification import SessionFacts
    from .intake.held import PossibleDuplicate
    from .intake.request_key import RunRequest
    from .intake.submissions import Submission
    from .messages.outbox import OutboxMessage
    from .records import AuditEvent, Completion, DecisionRecord
    from .shop.model import ShopState


class ShopStore(Protocol):
    """Domain state, proposals, checkpoints, decisions and audit events of one shop.

    Every state change is a conditional write; a failed condition raises a typed domain error.
    """

    def load_state(self) -> ShopState | None:
        """The current shop state, or None before it was seeded."""
        ...

    def seed(self, state: ShopState, event: AuditEvent) -> ShopState:
        """Store ``state`` if the shop is empty and return the stored state (seeded or existing)."""
        ...

    def replace_shop(self, state: ShopState, expected: tuple[int, str] | None, event: AuditEvent) -> None:
        """Replace the shop (an import) if its revision and digest are still ``expected`` (None: no shop yet).

        Raises ``StaleStateError`` when the shop moved on (or appeared) meanwhile; writes nothing then.
        """
        ...

    def set_inventory(self, material_id: str, quantity: int, event: AuditEvent) -> ShopState:
        """The operator's out-of-band count of ``material_id``; changes the digest, not the revision."""
        ...

    def put_proposal(self, proposal_hash: str, data: bytes) -> None:
        """Create the immutable proposal; identical bytes are a no-op, different bytes ``IntegrityError``."""
        ...

    def get_proposal(self, proposal_hash: str) -> bytes | None:
        """The stored proposal bytes (not re-hashed here: callers verify)."""
        ...

    def put_checkpoint(
        self,
        checkpoint_id: str,
        raw: str,
        event: AuditEvent,
        approval: ApprovalRecord | None = None,
        request_key: RunRequest | None = None,
    ) -> None:
        """Create the checkpoint (never overwrite) with its audit event, its approval (closing the one it
        ``supersedes``, conditioned on it being open, else the domain error) and its ``request_key`` (under its
        hash and generation, never overwritten: ``RequestClaimTakenError``), in one transaction: all or nothing."""
        ...

    def runs_of_request(self, request_hash: str) -> list[RunRequest]:
        """The request keys stored under ``request_hash``, by generation (one indexed read, whatever the history)."""
        ...

    def runs_of_message(self, message_key: str) -> list[RunRequest]:
        """The request keys of the runs whose envelope had the sender's Message-ID ``message_key``."""
        ...

    def hold_request(self, record: PossibleDuplicate, event: AuditEvent) -> PossibleDuplicate:
        """Store the held request with ``event`` unless its id is stored; return what is stored (the same
        envelope held twice is one hold, and one event)."""
        ...

    def get_held_request(self, held_id: str) -> PossibleDuplicate | None:
        """The held request ``held_id`` (any status), or None."""
        ...

    def held_requests(self) -> list[PossibleDuplicate]:
        """Every held request (any status), oldest first."""
        ...

    def close_held_request(self, record: PossibleDuplicate, event: AuditEvent) -> None:
        """Store ``record`` (started or dropped) with ``event`` if the stored one is still held; else nothing is
        written and ``HeldRequestError`` (``REQUEST_NOT_HELD``; ``NOT_FOUND`` when there is none) is raised."""
        ...

    def get_checkpoint(self, checkpoint_id: str) -> str | None:
        """The checkpoint's stored JSON text, unparsed."""
        ...

    def list_checkpoints(self) -> list[str]:
        """Every stored checkpoint's JSON text, oldest first."""
        ...

    def open_checkpoints(self, now: datetime) -> list[str]:
        """Every checkpoint whose run may still be open at ``now``, oldest first: a superset judged run by run."""
        ...

    def recent_checkpoints(self, limit: int | None, since: str | None) -> tuple[list[str], int]:
        """The latest ``limit`` (0: all) created on or after ``since``, oldest first; and how many are stored."""
        ...

    def get_decision(self, checkpoint_id: str) -> DecisionRecord | None:
        """The claimed decision for a checkpoint, if any."""
        ...

    def claim_decision(self, record: DecisionRecord, event: AuditEvent) -> None:
        """Record the decision exactly once; raises ``DecisionAlreadyClaimedError`` when one exists."""
        ...

    def take_over_decision(self, record: DecisionRecord, previous_token: str, event: AuditEvent) -> None:
        """Replace the open claim held by ``previous_token`` with ``record`` (same decision, new token and lease).

        Conditioned on the token and on no outcome being recorded, so of many racing re-runs one wins;
        the others get ``DecisionAlreadyClaimedError``.
        """
        ...

    def complete_decision(
        self, checkpoint_id: str, claim_token: str, completion: Completion, event: AuditEvent | None
    ) -> bool:
        """Record how the resume ended, with ``event`` if given, while ``claim_token`` holds the open claim.

        Returns False (nothing written) when the claim was taken over or already completed.
        """
        ...

    def apply_plan(
        self,
        *,
        proposal_hash: str,
        checkpoint_id: str,
        new_state: ShopState,
        expected: tuple[int, str],
        event: AuditEvent,
        messages: Sequence[OutboxMessage],
    ) -> bool:
        """Atomically replace the state, record the application, append ``plan_applied`` and queue ``messages``.

        Conditioned on ``expected`` (revision, digest); keyed by ``proposal_hash`` so it happens at most once, and each
        message by proposal hash and index, so it is queued exactly when the plan applies, and once.
        Returns True when this call applied, False when the same proposal had already applied (nothing is
        written then). Raises ``StaleStateError`` when the state moved on.
        """
        ...

    def outbox_messages(self, proposal_hash: str | None = None) -> list[OutboxMessage]:
        """Every message of the outbox, of every kind (or one plan's messages only), in ``outbox_order``: a plan's
        drafted messages and, in a local shop, the approval requests and reminders."""
        ...

    def replace_outbox_message(
        self, previous: OutboxMessage, updated: OutboxMessage, event: AuditEvent | None = None
    ) -> bool:
        """Store ``updated`` (same key) if the stored message is still exactly ``previous``, with ``event``.

        The compare-and-set every delivery step uses (claim, mark sent, release): of racing senders one
        wins, the others get False and nothing is written.
        """
        ...

    def application_count(self, proposal_hash: str | None = None) -> int:
        """How many plans applied (for one proposal, or in all)."""
        ...

    def append_audit(self, event: AuditEvent) -> None:
        """Append one audit event (a ``TOOL_CALLED_EVENT`` may wait for the next audited write, in order)."""
        ...

    def audit_events(self) -> list[AuditEvent]:
        """The audit trail, oldest first."""
        ...

    def audit_events_of(
        self,
        event_types: Collection[str],
        *,
        checkpoint_id: str | None = None,
        limit: int | None = None,
        since: str | None = None,
    ) -> tuple[list[AuditEvent], int]:
        """The latest ``limit`` (0: all) of ``event_types`` (one checkpoint's; ``since``), oldest first; how many."""
        ...

    def raw_audit_trail(self) -> tuple[list[AuditEvent | None], Head | None]:
        """Every stored audit event in stored order (None where one cannot be read) and the chain head
        (seq, hash and its MAC)."""
        ...

    def put_state_snapshot(self, digest: str, data: bytes) -> None:
        """Keep the canonical state whose hash is ``digest`` (idempotent; content-addressed)."""
        ...

    def change_approval(
        self,
        approval_id: str,
        change: Callable[[ApprovalRecord], ApprovalRecord],
        event: Callable[[ApprovalRecord], AuditEvent | None],
        mail: Sequence[OutboxMessage] = (),
    ) -> tuple[ApprovalRecord, bool]:
        """Apply the domain transition ``change`` to the approval as read and write it, conditioned on that read,
        together with ``event(after)`` (when not None) and the approval ``mail`` (requests, reminders) it queues in
        the outbox, each once by its key: one transaction, all or nothing; racing writers serialize and the loser
        re-reads. Nothing is written when ``change`` changes nothing. Returns the record and whether this call
        changed it. ``mail`` is for a local shop's outbox (the AWS store refuses it: there links go by SNS)."""
        ...

    def get_state_snapshot(self, digest: str) -> bytes | None:
        """The snapshot stored under ``digest`` (callers re-hash it)."""
        ...


class SessionStore(Protocol):
    """Where agent sessions live (files locally, S3 in AWS)."""

    def session_manager(self, session_id: str) -> Any:
        """A new Strands session manager for ``session_id`` (one per Agent)."""
        ...

    def read_facts(self, session_id: str, agent_id: str) -> SessionFacts:
        """What the stored session holds, read without creating or changing anything."""
        ...


class ApprovalStore(Protocol):
    """Approval requests: the stored policy, task token, link-secret hashes, votes and status.

    Every change is the domain's transition (``ApprovalRecord.with_vote``, ``expired``, ``woken``...)
    applied to the record as read and written conditioned on it, so racing writers serialize: the loser
    re-reads and either applies its change to the new record or gets the domain's refusal
    (``DecisionAlreadyClaimedError``, ``ApprovalExpiredError``). ``NotFoundError`` when it does not exist.
    """

    def create_approval(self, record: ApprovalRecord) -> None:
        """Create ``record`` (never overwrite); raises ``IntegrityError`` when the id exists."""
        ...

    def get_approval(self, approval_id: str) -> ApprovalRecord | None:
        """The approval, read consistently, or None."""
        ...

    def approvals_for(self, checkpoint_id: str) -> list[ApprovalRecord]:
        """Every approval requested for ``checkpoint_id``."""
        ...

    def list_approvals(self) -> list[ApprovalRecord]:
        """Every approval of the shop (the reconciler, the audit check and the local index read them)."""
        ...

    def record_approval_vote(self, approval_id: str, vote: Vote, *, now: datetime) -> ApprovalRecord:
        """Add ``vote`` to a pending approval in its window; a reject or the quorum closes it.

        Two voters at once both count: a write that lost the race re-reads and adds its vote to the winner's.
        """
        ...

    def expire_approval(self, approval_id: str, *, now: datetime, include_closed: bool = False) -> ApprovalRecord:
        """pending -> expired (and, with ``include_closed``, a decided or rejected approval, or a revision ask no
        version answered, that the workflow ended without: it never will be acted on). Expired stays as is."""
        ...

    def record_wake(self, approval_id: str, *, now: datetime, confirmed: bool) -> ApprovalRecord:
        """Record that waking the workflow is about to be tried, or (``confirmed``) that it was told about the
        decision; idempotent once woken."""
        ...

    def record_reminder_claim(
        self, approval_id: str, key: str, token: str, *, now: datetime, lease: timedelta
    ) -> ApprovalRecord:
        """Hold reminder ``key`` for the sender ``token`` until ``now + lease`` (unless it was sent or another
        sender holds it); the caller sends only when the stored claim is its own."""
        ...

    def record_reminder_sent(self, approval_id: str, key: str, token: str, *, now: datetime) -> ApprovalRecord:
        """Mark reminder ``key`` sent by its holder ``token``."""
        ...

    def record_escalation(
        self, approval_id: str, backups: tuple[ApproverLink, ...], *, now: datetime
    ) -> ApprovalRecord:
        """Add the backup approvers, with their links, to the open approval, once (nothing else of the policy)."""
        ...

    def record_relink(
        self, approval_id: str, approver: str, secret_hash: str, *, now: datetime, nonce: str = ""
    ) -> ApprovalRecord:
        """Replace ``approver``'s link on the open approval by one whose secret hashes to ``secret_hash`` (the old
        link stops working)."""
        ...

    def record_delivery(
        self, approval_id: str, task_token: str, approver: str = "", secret_hash: str = "", nonce: str = ""
    ) -> ApprovalRecord:
        """Bind a pending approval to the workflow task ``task_token`` and, given ``approver``, record that their
        link, whose secret hashes to ``secret_hash``, went out."""
        ...


class SubmissionStore(Protocol):
    """Who handed in each submitted run (the DynamoDB table in AWS)."""

    def put_submission(self, submission: Submission) -> None:
        """Create the record (never overwrite); raises ``IntegrityError`` when the execution name exists."""
        ...

    def get_submission(self, execution_name: str) -> Submission | None:
        """The record of ``execution_name``, read consistently, or None."""
        ...


class WorkflowStarter(Protocol):
    """Starts a run of the workflow (Step Functions ``StartExecution`` in AWS)."""

    def start(self, execution_name: str, execution_input: dict[str, Any]) -> str:
        """Start an execution named ``execution_name``; return its ARN. A name in use (by a closed execution,
        or with another input) is ``IntegrityError``."""
        ...

    def execution_arn(self, execution_name: str) -> str:
        """The ARN the execution named ``execution_name`` has (started or not): names are the workflow's own."""
        ...


@dataclass(frozen=True)
class ApprovalMessage:
    """One notification to one approver. ``body`` carries the link secret: never log it."""

    approval_id: str
    approver: str
    subject: str
    body: str
    link: str = ""

    def __repr__(self) -> str:
        return f"ApprovalMessage(approval_id={self.approval_id!r}, approver={self.approver!r})"


class ApprovalNotifier(Protocol):
    """Delivers approval messages (SNS e-mail in AWS)."""

    def notify(self, message: ApprovalMessage) -> None:
        """Send one message to its approver."""
        ...


class MessageTransport(Protocol):
    """Hands a rendered outbox message to a mail system (SMTP, a directory of .eml files, Amazon SES)."""

    @property
    def name(self) -> str:
        """Which transport, for reports (``smtp``, ``eml``, ``ses``)."""
        ...

    @property
    def sender(self) -> str:
        """The From address every message is rendered with."""
        ...

    @property
    def sender_name(self) -> str:
        """The From display name (the shop's name; empty where the transport shows none)."""
        ...

    def send(self, message: OutboxMessage, data: bytes) -> str:
        """Deliver ``data`` (``message`` rendered: the same bytes for every attempt) to ``message.to``; return the
        transport's id for it.

        Raises ``DeliveryError`` (``permanent`` when retrying cannot help, e.g. a rejected recipient;
        ``unreachable`` when no server saw it).
        """
        ...


class WorkflowCallback(Protocol):
    """Wakes the parked workflow (Step Functions ``SendTaskSuccess`` in AWS)."""

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        """Report success with ``output``; raises ``TaskTokenClosedError`` when the token is closed."""
        ...


class WakeScheduler(Protocol):
    """One-time wake-ups of the reminder function at a moment (EventBridge Scheduler in AWS)."""

    def arm(self, name: str, at: datetime, payload: dict[str, str]) -> bool:
        """Create the wake-up ``name`` at ``at`` carrying ``payload``; False when it exists already (a retry)."""
        ...

    def disarm(self, name: str) -> bool:
        """Delete the wake-up ``name``; False when there is none (it fired, or was never armed)."""
        ...
