"""Ports: what the services need from storage, as Protocols. Adapters (local, AWS) implement them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .approvals import ApprovalRecord, ApprovalStatus, Vote
from .outbox import OutboxMessage
from .records import AuditEvent, Completion, DecisionRecord
from .shop import Order, ShopState
from .submissions import Submission
from .verification import SessionFacts


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

    def take_in_order(self, order: Order, event: AuditEvent) -> Order:
        """Add ``order`` unless present; return the stored one. Raises ``IntakeError`` when it differs."""
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

    def put_checkpoint(self, checkpoint_id: str, raw: str, event: AuditEvent) -> None:
        """Create the checkpoint (never overwrite) together with its audit event."""
        ...

    def get_checkpoint(self, checkpoint_id: str) -> str | None:
        """The checkpoint's stored JSON text, unparsed."""
        ...

    def list_checkpoints(self) -> list[str]:
        """Every stored checkpoint's JSON text, oldest first."""
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
        expected_revision: int,
        expected_digest: str,
        event: AuditEvent,
        messages: Sequence[OutboxMessage],
    ) -> bool:
        """Atomically replace the state, record the application, append ``plan_applied`` and queue ``messages``.

        Conditioned on revision and digest; keyed by ``proposal_hash`` so it happens at most once, and each
        message by proposal hash and index, so it is queued exactly when the plan applies, and once.
        Returns True when this call applied, False when the same proposal had already applied (nothing is
        written then). Raises ``StaleStateError`` when the state moved on.
        """
        ...

    def outbox_messages(self, proposal_hash: str | None = None) -> list[OutboxMessage]:
        """Queued, sent and failed messages (of one plan, or all), by queue time, proposal hash and index."""
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

    def raw_audit_trail(self) -> tuple[list[AuditEvent | None], tuple[int, str] | None]:
        """Every stored audit event in stored order (None where one cannot be read) and the chain head."""
        ...

    def put_state_snapshot(self, digest: str, data: bytes) -> None:
        """Keep the canonical state whose hash is ``digest`` (idempotent; content-addressed)."""
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
    """Approval requests: the stored task token, link-secret hashes, status and the recorded decision.

    Status changes are conditional writes; a failed condition raises a typed domain error.
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

    def record_approval_vote(self, approval_id: str, vote: Vote, *, now: datetime) -> ApprovalRecord:
        """Add ``vote`` to a pending, unexpired approval; a reject or the quorum moves it to ``decided``.

        Conditioned on the votes read, so racing voters serialize. Raises ``DecisionAlreadyClaimedError``
        when it was decided or this approver already voted, ``ApprovalExpiredError`` when it expired or its
        window closed, ``NotFoundError`` when it does not exist.
        """
        ...

    def expire_approval(
        self, approval_id: str, *, now: datetime, from_status: ApprovalStatus = "pending", superseded_by: str = ""
    ) -> ApprovalRecord:
        """Move the approval from ``from_status`` to ``expired`` (recording ``superseded_by`` when a new
        proposal replaced it); an already expired one is returned as is.

        Raises ``DecisionAlreadyClaimedError`` when it is ``decided`` and ``from_status`` is ``pending``.
        """
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
        """Start an execution named ``execution_name``; return its ARN."""
        ...


class MacKey(Protocol):
    """A message-authentication key that never leaves its adapter (a 0600 file, a KMS HMAC key)."""

    @property
    def key_id(self) -> str:
        """Which key (a file name, a KMS key id): recorded in each receipt."""
        ...

    def sign(self, message: bytes) -> str:
        """The MAC of ``message``, as text."""
        ...

    def verify(self, message: bytes, mac: str) -> bool:
        """True when ``mac`` is this key's MAC of ``message``."""
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
    """Hands an outbox message to a mail system (SMTP, a directory of .eml files, Amazon SES)."""

    @property
    def name(self) -> str:
        """Which transport, for reports (``smtp``, ``eml``, ``ses``)."""
        ...

    def send(self, message: OutboxMessage) -> str:
        """Deliver ``message``; return the transport's id for it.

        Raises ``DeliveryError`` (``permanent`` when retrying cannot help, e.g. a rejected recipient).
        """
        ...


class WorkflowCallback(Protocol):
    """Wakes the parked workflow (Step Functions ``SendTaskSuccess`` in AWS)."""

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        """Report success with ``output``; raises ``TaskTokenClosedError`` when the token is closed."""
        ...
