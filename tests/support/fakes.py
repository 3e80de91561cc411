"""In-memory implementations of the ports in ``domain/ports.py``, for fast unit tests.

Each keeps the conditional semantics of the real adapters, not just their shapes: a proposal is created
once (different bytes: ``IntegrityError``), a decision is claimed once (``DecisionAlreadyClaimedError``), a
plan applies once and only on the revision and digest it was verified against (``StaleStateError``), a
vote lands only on a pending, unexpired approval and once per approver (the domain's transitions, applied to
the record read under the lock), a run's approval is written with its checkpoint, and every audit event is
chained (and MACed, given a key).
Records are kept serialized and parsed on every read, as a database returns fresh objects, so a test
cannot pass by sharing an object with the store. One lock per store makes each call atomic, so threads
racing on a fake serialize as processes racing on SQLite do. ``tests/integration/test_store_contract.py``
runs the same contract against these fakes as against SQLite and DynamoDB.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from strands.session.repository_session_manager import RepositorySessionManager
from strands.session.session_repository import SessionRepository
from strands.types.exceptions import SessionException
from strands.types.session import Session, SessionAgent, SessionMessage

from production_orchestrator.adapters import run_lists
from production_orchestrator.adapters.session_facts import facts_from
from production_orchestrator.domain.approval.approvals import APPROVAL_ID_PATTERN, ApprovalRecord, ApprovalTransitions
from production_orchestrator.domain.approval.audit_chain import chained, head_of
from production_orchestrator.domain.approval.verification import SessionFacts
from production_orchestrator.domain.errors import (
    DecisionAlreadyClaimedError,
    DeliveryError,
    HeldRequestCode,
    HeldRequestError,
    IntegrityError,
    NotFoundError,
    RequestClaimTakenError,
    ShopError,
    StaleStateError,
    TaskTokenClosedError,
)
from production_orchestrator.domain.intake.held import PossibleDuplicate
from production_orchestrator.domain.intake.request_key import RunRequest
from production_orchestrator.domain.intake.submissions import Submission
from production_orchestrator.domain.messages.outbox import OutboxMessage, outbox_order
from production_orchestrator.domain.ports import ApprovalMessage, MacKey
from production_orchestrator.domain.records import (
    AGENT_ID_PATTERN,
    CHECKPOINT_ID_PATTERN,
    SESSION_ID_PATTERN,
    AuditEvent,
    Completion,
    DecisionRecord,
    parse_utc,
    require_id,
)
from production_orchestrator.domain.shop.model import ShopState


class InMemoryShopStore:
    """A :class:`ShopStore` in memory: one shop, its proposals, checkpoints, decisions and audit trail.

    ``approvals``: the approval store a run's approval is written to in the checkpoint's "transaction" (both
    locks held, all or nothing); ``audit_key`` MACs every link and the head, as the real stores do.
    """

    def __init__(self, approvals: InMemoryApprovalStore | None = None, audit_key: MacKey | None = None) -> None:
        self._approvals = approvals
        self._audit_key = audit_key
        self._lock = threading.RLock()
        self._state: str | None = None
        self._proposals: dict[str, bytes] = {}
        self._checkpoints: dict[str, str] = {}  # insertion order is creation order
        self._claims: dict[tuple[str, int], str] = {}  # (request hash, generation) -> the run's request key
        self._holds: dict[str, str] = {}  # held id -> the held request
        self._decisions: dict[str, str] = {}
        self._applications: dict[str, tuple[str, int]] = {}
        self._audit: list[str] = []
        self._head: tuple[int, str, str] | None = None
        self._snapshots: dict[str, bytes] = {}
        self._outbox: dict[str, str] = {}  # outbox key -> the message's JSON

    # -- helpers (call with the lock held) ------------------------------------------------------------------
    def _append(self, event: AuditEvent) -> None:
        linked = chained(event, self._head, self._audit_key)
        self._audit.append(linked.model_dump_json())
        self._head = head_of(linked, self._audit_key)

    def _seeded(self) -> ShopState:
        state = self.load_state()
        if state is None:
            raise ShopError("the shop has not been seeded")
        return state

    def _held(self, checkpoint_id: str, claim_token: str) -> DecisionRecord | None:
        record = self.get_decision(checkpoint_id)
        if record is None or record.claim_token != claim_token or record.completion is not None:
            return None
        return record

    # -- the port -------------------------------------------------------------------------------------------
    def load_state(self) -> ShopState | None:
        """The current shop state, or None before it was seeded."""
        with self._lock:
            return None if self._state is None else ShopState.model_validate_json(self._state)

    def seed(self, state: ShopState, event: AuditEvent) -> ShopState:
        """Store ``state`` if the shop is empty; a shop of another name is a ``ShopError``."""
        with self._lock:
            existing = self.load_state()
            if existing is not None:
                if existing.name != state.name:
                    raise ShopError(f"this store holds the {existing.name!r} shop, not {state.name!r}")
                return existing
            self._state = state.model_dump_json()
            self._append(event)
            return state

    def replace_shop(self, state: ShopState, expected: tuple[int, str] | None, event: AuditEvent) -> None:
        """Put ``state`` in place of the shop whose revision and digest are ``expected`` (None: no shop yet)."""
        with self._lock:
            current = self.load_state()
            found = None if current is None else (current.revision, current.digest())
            if found != expected:
                raise StaleStateError(
                    "the shop changed while it was being replaced",
                    expected=None if expected is None else {"revision": expected[0], "digest": expected[1]},
                    found=None if found is None else {"revision": found[0], "digest": found[1]},
                )
            self._state = state.model_dump_json()
            self._append(event)

    def set_inventory(self, material_id: str, quantity: int, event: AuditEvent) -> ShopState:
        """The operator's out-of-band count; changes the digest, not the revision."""
        with self._lock:
            updated = self._seeded().with_inventory(material_id, quantity)
            self._state = updated.model_dump_json()
            self._append(event)
            return updated

    def put_proposal(self, proposal_hash: str, data: bytes) -> None:
        """Create the immutable proposal; identical bytes are a no-op, different bytes ``IntegrityError``."""
        with self._lock:
            stored = self._proposals.get(proposal_hash)
            if stored is not None and stored != data:
                raise IntegrityError(f"proposal {proposal_hash} exists with different bytes")
            self._proposals[proposal_hash] = bytes(data)

    def get_proposal(self, proposal_hash: str) -> bytes | None:
        """The stored proposal bytes."""
        with self._lock:
            return self._proposals.get(proposal_hash)

    def put_checkpoint(
        self,
        checkpoint_id: str,
        raw: str,
        event: AuditEvent,
        approval: ApprovalRecord | None = None,
        request_key: RunRequest | None = None,
    ) -> None:
        """Create the checkpoint (never overwrite) with its audit event, given, its approval (closing the
        approval it supersedes if that one is still open) and its request key: all of it, or nothing."""
        with self._lock:
            if checkpoint_id in self._checkpoints:
                raise IntegrityError(f"checkpoint {checkpoint_id} already exists")
            claim = None if request_key is None else (request_key.request_hash, request_key.generation)
            if claim is not None and claim in self._claims:
                raise RequestClaimTakenError("another start of this request wrote its run first")
            if approval is not None:
                if self._approvals is None:
                    raise IntegrityError("this fake shop store has no approval store to write the approval to")
                self._approvals.write_with_checkpoint(approval)  # raises before anything is written
            self._checkpoints[checkpoint_id] = raw
            if request_key is not None and claim is not None:
                self._claims[claim] = request_key.model_dump_json()
            self._append(event)

    def runs_of_request(self, request_hash: str) -> list[RunRequest]:
        """The request keys stored under ``request_hash``, by generation."""
        with self._lock:
            found = [RunRequest.model_validate_json(raw) for (h, _), raw in self._claims.items() if h == request_hash]
        return sorted(found, key=lambda r: r.generation)

    def runs_of_message(self, message_key: str) -> list[RunRequest]:
        """The request keys of the runs whose envelope had the Message-ID ``message_key``."""
        with self._lock:
            found = [RunRequest.model_validate_json(raw) for raw in self._claims.values()]
        return [r for r in found if message_key and r.message_key == message_key]

    def hold_request(self, record: PossibleDuplicate, event: AuditEvent) -> PossibleDuplicate:
        """Store the held request with ``event`` unless its id is stored; what is stored."""
        with self._lock:
            stored = self._holds.get(record.held_id)
            if stored is not None:
                return PossibleDuplicate.model_validate_json(stored)
            self._holds[record.held_id] = record.model_dump_json()
            self._append(event)
            return record

    def get_held_request(self, held_id: str) -> PossibleDuplicate | None:
        """The held request ``held_id``, or None."""
        with self._lock:
            raw = self._holds.get(held_id)
        return None if raw is None else PossibleDuplicate.model_validate_json(raw)

    def held_requests(self) -> list[PossibleDuplicate]:
        """Every held request, oldest first."""
        with self._lock:
            found = [PossibleDuplicate.model_validate_json(raw) for raw in self._holds.values()]
        return sorted(found, key=lambda r: (r.created_at, r.held_id))

    def close_held_request(self, record: PossibleDuplicate, event: AuditEvent) -> None:
        """Store ``record`` with ``event`` while the stored one is still held."""
        with self._lock:
            raw = self._holds.get(record.held_id)
            if raw is None:
                raise HeldRequestError(HeldRequestCode.NOT_FOUND, f"no held request {record.held_id}")
            stored = PossibleDuplicate.model_validate_json(raw)
            if stored.status != "held":
                raise HeldRequestError(
                    HeldRequestCode.REQUEST_NOT_HELD, f"held request {record.held_id} was already {stored.status}"
                )
            self._holds[record.held_id] = record.model_dump_json()
            self._append(event)

    def get_checkpoint(self, checkpoint_id: str) -> str | None:
        """The checkpoint's stored JSON text."""
        with self._lock:
            return self._checkpoints.get(checkpoint_id)

    def list_checkpoints(self) -> list[str]:
        """Every checkpoint's JSON text, oldest first."""
        with self._lock:
            return list(self._checkpoints.values())

    def open_checkpoints(self, now: datetime) -> list[str]:
        """Every checkpoint (no index here: the superset of the open ones)."""
        with self._lock:
            return list(self._checkpoints.values())

    def recent_checkpoints(self, limit: int | None, since: str | None) -> tuple[list[str], int]:
        """The latest ``limit`` checkpoints created on or after ``since``, and how many are stored."""
        with self._lock:
            return run_lists.recent(list(self._checkpoints.values()), limit, since)

    def get_decision(self, checkpoint_id: str) -> DecisionRecord | None:
        """The claimed decision for a checkpoint, if any."""
        with self._lock:
            raw = self._decisions.get(checkpoint_id)
            return None if raw is None else DecisionRecord.model_validate_json(raw)

    def claim_decision(self, record: DecisionRecord, event: AuditEvent) -> None:
        """Record the decision exactly once, with its audit event."""
        with self._lock:
            if record.checkpoint_id in self._decisions:
                raise DecisionAlreadyClaimedError(
                    f"a decision for checkpoint {record.checkpoint_id} was already recorded"
                )
            self._decisions[record.checkpoint_id] = record.model_dump_json()
            self._append(event)

    def take_over_decision(self, record: DecisionRecord, previous_token: str, event: AuditEvent) -> None:
        """Replace an open claim still held by ``previous_token``; else ``DecisionAlreadyClaimedError``."""
        with self._lock:
            if self._held(record.checkpoint_id, previous_token) is None:
                raise DecisionAlreadyClaimedError(
                    f"another resume took over or finished the decision of checkpoint {record.checkpoint_id}"
                )
            self._decisions[record.checkpoint_id] = record.model_dump_json()
            self._append(event)

    def complete_decision(
        self, checkpoint_id: str, claim_token: str, completion: Completion, event: AuditEvent | None
    ) -> bool:
        """Record the outcome if ``claim_token`` still holds the open claim; False when it does not."""
        with self._lock:
            record = self._held(checkpoint_id, claim_token)
            if record is None:
                return False
            self._decisions[checkpoint_id] = record.model_copy(update={"completion": completion}).model_dump_json()
            if event is not None:
                self._append(event)
            return True

    def apply_plan(
        self,
        *,
        proposal_hash: str,
        checkpoint_id: str,
        new_state: ShopState,
        expected: tuple[int, str],
        event: AuditEvent,
        messages: Sequence[OutboxMessage] = (),
    ) -> bool:
        """State + application + ``plan_applied`` + the plan's messages together, conditioned on revision and
        digest; once per hash."""
        with self._lock:
            if proposal_hash in self._applications:
                return False
            if any(m.key in self._outbox for m in messages):
                raise IntegrityError(f"outbox messages of {proposal_hash} exist for a plan that never applied")
            current = self.load_state()
            if current is None or (current.revision, current.digest()) != expected:
                found = None if current is None else {"revision": current.revision, "digest": current.digest()}
                raise StaleStateError(
                    "the shop changed since the plan was verified",
                    expected={"revision": expected[0], "digest": expected[1]},
                    found=found,
                )
            self._state = new_state.model_dump_json()
            self._applications[proposal_hash] = (checkpoint_id, new_state.revision)
            self._append(event)
            self._outbox.update({m.key: m.model_dump_json() for m in messages})
            return True

    def outbox_messages(self, proposal_hash: str | None = None) -> list[OutboxMessage]:
        """Every message (of one plan, or all), in ``outbox_order`` (insertion order standing for the sequence)."""
        with self._lock:
            stored = [(n, OutboxMessage.model_validate_json(raw)) for n, raw in enumerate(self._outbox.values())]
        return outbox_order((n, m) for n, m in stored if proposal_hash is None or m.proposal_hash == proposal_hash)

    def replace_outbox_message(
        self, previous: OutboxMessage, updated: OutboxMessage, event: AuditEvent | None = None
    ) -> bool:
        """Compare-and-set on the stored message (with ``event``)."""
        if updated.key != previous.key:
            raise IntegrityError(f"outbox message {previous.key} cannot become {updated.key}")
        with self._lock:
            raw = self._outbox.get(previous.key)
            if raw is None or OutboxMessage.model_validate_json(raw) != previous:
                return False
            self._outbox[updated.key] = updated.model_dump_json()
            if event is not None:
                self._append(event)
            return True

    def application_count(self, proposal_hash: str | None = None) -> int:
        """How many plans applied (for one proposal, or in all)."""
        with self._lock:
            if proposal_hash is None:
                return len(self._applications)
            return int(proposal_hash in self._applications)

    def append_audit(self, event: AuditEvent) -> None:
        """Append one audit event."""
        with self._lock:
            self._append(event)

    def change_approval(
        self,
        approval_id: str,
        change: Callable[[ApprovalRecord], ApprovalRecord],
        event: Callable[[ApprovalRecord], AuditEvent | None],
        mail: Sequence[OutboxMessage] = (),
    ) -> tuple[ApprovalRecord, bool]:
        """The approval's transition, its audit event and its mail: all under both locks, all or nothing."""
        if self._approvals is None:
            raise IntegrityError("this fake shop store has no approval store")
        with self._lock, self._approvals._lock:
            before = self._approvals._existing(approval_id)
            after = change(before)
            if after == before:
                return after, False
            found = event(after)
            self._approvals._records[approval_id] = after.model_dump_json()
            if found is not None:
                self._append(found)
            for item in mail:
                self._outbox.setdefault(item.key, item.model_dump_json())
            return after, True

    def audit_events(self) -> list[AuditEvent]:
        """The audit trail, oldest first."""
        with self._lock:
            return [AuditEvent.model_validate_json(raw) for raw in self._audit]

    def audit_events_of(
        self,
        event_types: Collection[str],
        *,
        checkpoint_id: str | None = None,
        limit: int | None = None,
        since: str | None = None,
    ) -> tuple[list[AuditEvent], int]:
        """The latest ``limit`` events of ``event_types`` (of one checkpoint, at or after ``since``), and how many."""
        return run_lists.events_of(self.audit_events(), event_types, checkpoint_id, limit, since)

    def raw_audit_trail(self) -> tuple[list[AuditEvent | None], tuple[int, str, str] | None]:
        """Every stored event in stored order and the chain head, read together."""
        with self._lock:
            return [AuditEvent.model_validate_json(raw) for raw in self._audit], self._head

    def put_state_snapshot(self, digest: str, data: bytes) -> None:
        """Keep the canonical state whose hash is ``digest``; a second put is a no-op."""
        with self._lock:
            self._snapshots.setdefault(digest, bytes(data))

    def get_state_snapshot(self, digest: str) -> bytes | None:
        """The snapshot stored under ``digest``."""
        with self._lock:
            return self._snapshots.get(digest)

    # -- for tests: what an attacker or a bug could do to stored rows ---------------------------------------
    def tamper_checkpoint(self, checkpoint_id: str, raw: str) -> None:
        """Overwrite a stored checkpoint out of band (the adapters never do)."""
        with self._lock:
            self._checkpoints[checkpoint_id] = raw

    def tamper_proposal(self, proposal_hash: str, data: bytes) -> None:
        """Overwrite stored proposal bytes out of band."""
        with self._lock:
            self._proposals[proposal_hash] = data


class InMemoryApprovalStore(ApprovalTransitions):
    """An :class:`ApprovalStore` in memory, with the conditional status changes of the SQLite store."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._records: dict[str, str] = {}  # insertion order is creation order

    def create_approval(self, record: ApprovalRecord) -> None:
        """Create ``record``; an existing id is ``IntegrityError``."""
        with self._lock:
            if record.approval_id in self._records:
                raise IntegrityError(f"approval {record.approval_id} already exists")
            self._records[record.approval_id] = record.model_dump_json()

    def get_approval(self, approval_id: str) -> ApprovalRecord | None:
        """The approval, or None (also for an id that could never exist)."""
        if not isinstance(approval_id, str) or not APPROVAL_ID_PATTERN.match(approval_id):
            return None
        with self._lock:
            raw = self._records.get(approval_id)
            return None if raw is None else ApprovalRecord.model_validate_json(raw)

    def approvals_for(self, checkpoint_id: str) -> list[ApprovalRecord]:
        """Every approval requested for ``checkpoint_id``, oldest first."""
        require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
        return [a for a in self.list_approvals() if a.checkpoint_id == checkpoint_id]

    def list_approvals(self) -> list[ApprovalRecord]:
        """Every approval, oldest first."""
        with self._lock:
            return [ApprovalRecord.model_validate_json(raw) for raw in self._records.values()]

    def _existing(self, approval_id: str) -> ApprovalRecord:
        record = self.get_approval(approval_id)
        if record is None:
            raise NotFoundError(f"approval {approval_id} does not exist")
        return record

    def _change(self, approval_id: str, change: Any) -> ApprovalRecord:
        """Read, transform (the domain refuses what is not allowed), write: atomic under the lock."""
        with self._lock:
            before = self._existing(approval_id)
            after: ApprovalRecord = change(before)
            if after != before:
                self._records[approval_id] = after.model_dump_json()
            return after

    def write_with_checkpoint(self, record: ApprovalRecord) -> None:
        """The shop store's checkpoint write: create ``record`` and close the approval it supersedes, or neither."""
        with self._lock:
            if record.approval_id in self._records:
                raise IntegrityError(f"approval {record.approval_id} already exists")
            closed = None
            if record.supersedes:
                closed = self._existing(record.supersedes).superseded(
                    record.approval_id,
                    parse_utc(record.created_at),
                    version=record.version,
                    proposal_hash=record.proposal_hash,
                )
            if closed is not None:
                self._records[closed.approval_id] = closed.model_dump_json()
            self._records[record.approval_id] = record.model_dump_json()


@dataclass
class RecordingCallback:
    """A :class:`WorkflowCallback` that records each wake-up; ``closed`` makes it answer as a timed-out token."""

    closed: bool = False
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        """Record the call, or raise ``TaskTokenClosedError`` when the workflow stopped waiting."""
        if self.closed:
            raise TaskTokenClosedError("the workflow stopped waiting for this token")
        self.calls.append((task_token, dict(output)))


@dataclass
class CollectingNotifier:
    """An :class:`ApprovalNotifier` that keeps the messages (the links are in them)."""

    messages: list[ApprovalMessage] = field(default_factory=list)

    def notify(self, message: ApprovalMessage) -> None:
        """Keep ``message``."""
        self.messages.append(message)


class InMemoryMacKey:
    """A :class:`MacKey`: HMAC-SHA256 under a random key that lives as long as the object."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    @property
    def key_id(self) -> str:
        """A name for the key that reveals nothing of it."""
        return f"memory:{hashlib.sha256(b'key-id' + self._key).hexdigest()[:12]}"

    def sign(self, message: bytes) -> str:
        """HMAC-SHA256 of ``message``, hex."""
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def verify(self, message: bytes, mac: str) -> bool:
        """Constant-time comparison with the expected MAC."""
        return hmac.compare_digest(self.sign(message), mac)


class InMemorySessionRepository(SessionRepository):
    """Strands' session repository in memory, storing each record as JSON as the file repository does."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._sessions: dict[str, str] = {}
        self._agents: dict[tuple[str, str], str] = {}
        self._messages: dict[tuple[str, str], dict[int, str]] = {}

    def create_session(self, session: Session, **kwargs: Any) -> Session:
        """Create a session; an existing id is a ``SessionException``."""
        with self._lock:
            if session.session_id in self._sessions:
                raise SessionException(f"Session {session.session_id} already exists")
            self._sessions[session.session_id] = json.dumps(session.to_dict())
            return session

    def read_session(self, session_id: str, **kwargs: Any) -> Session | None:
        """The session, or None."""
        with self._lock:
            raw = self._sessions.get(session_id)
            return None if raw is None else Session.from_dict(json.loads(raw))

    def create_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        """Create (or replace) the agent record of a session."""
        with self._lock:
            key = (session_id, session_agent.agent_id)
            self._agents[key] = json.dumps(session_agent.to_dict())
            self._messages.setdefault(key, {})

    def read_agent(self, session_id: str, agent_id: str, **kwargs: Any) -> SessionAgent | None:
        """The agent record, or None."""
        with self._lock:
            raw = self._agents.get((session_id, agent_id))
            return None if raw is None else SessionAgent.from_dict(json.loads(raw))

    def update_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        """Replace an existing agent record, keeping when it was created."""
        with self._lock:
            previous = self.read_agent(session_id, session_agent.agent_id)
            if previous is None:
                raise SessionException(f"Agent {session_agent.agent_id} in session {session_id} does not exist")
            session_agent.created_at = previous.created_at
            self._agents[(session_id, session_agent.agent_id)] = json.dumps(session_agent.to_dict())

    def create_message(self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any) -> None:
        """Store one message."""
        with self._lock:
            messages = self._messages.setdefault((session_id, agent_id), {})
            messages[session_message.message_id] = json.dumps(session_message.to_dict())

    def read_message(self, session_id: str, agent_id: str, message_id: int, **kwargs: Any) -> SessionMessage | None:
        """One message, or None."""
        with self._lock:
            raw = self._messages.get((session_id, agent_id), {}).get(message_id)
            return None if raw is None else SessionMessage.from_dict(json.loads(raw))

    def update_message(self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any) -> None:
        """Replace an existing message, keeping when it was created."""
        with self._lock:
            previous = self.read_message(session_id, agent_id, session_message.message_id)
            if previous is None:
                raise SessionException(f"Message {session_message.message_id} does not exist")
            session_message.created_at = previous.created_at
            self._messages[(session_id, agent_id)][session_message.message_id] = json.dumps(session_message.to_dict())

    def list_messages(
        self, session_id: str, agent_id: str, limit: int | None = None, offset: int = 0, **kwargs: Any
    ) -> list[SessionMessage]:
        """Messages in id order, paginated."""
        with self._lock:
            stored = self._messages.get((session_id, agent_id))
            if stored is None:
                raise SessionException(f"Messages missing from agent: {agent_id} in session {session_id}")
            ordered = [stored[i] for i in sorted(stored)]
            chosen = ordered[offset : offset + limit] if limit is not None else ordered[offset:]
            return [SessionMessage.from_dict(json.loads(raw)) for raw in chosen]

    def forget(self, session_id: str) -> None:
        """Drop a session and everything in it (a lost or deleted session)."""
        with self._lock:
            self._sessions.pop(session_id, None)
            for key in [k for k in self._agents if k[0] == session_id]:
                del self._agents[key]
                self._messages.pop(key, None)


class InMemorySessionStore:
    """A :class:`SessionStore` on :class:`InMemorySessionRepository`, through Strands' own session manager."""

    def __init__(self) -> None:
        self.repository = InMemorySessionRepository()

    def session_manager(self, session_id: str) -> RepositorySessionManager:
        """A new session manager for ``session_id`` (one per Agent)."""
        require_id(session_id, SESSION_ID_PATTERN, "session id")
        return RepositorySessionManager(session_id=session_id, session_repository=self.repository)

    def read_facts(self, session_id: str, agent_id: str) -> SessionFacts:
        """What the stored session holds, read without writing."""
        require_id(session_id, SESSION_ID_PATTERN, "session id")
        require_id(agent_id, AGENT_ID_PATTERN, "agent id")
        return facts_from(self.repository, session_id, agent_id)


class InMemorySubmissionStore:
    """Submission records, created once."""

    def __init__(self) -> None:
        self._records: dict[str, str] = {}

    def put_submission(self, submission: Submission) -> None:
        """Create the record; an existing execution name is an ``IntegrityError``."""
        if submission.execution_name in self._records:
            raise IntegrityError(f"submission {submission.execution_name} exists already")
        self._records[submission.execution_name] = submission.model_dump_json()

    def get_submission(self, execution_name: str) -> Submission | None:
        """The record of ``execution_name``, or None."""
        raw = self._records.get(execution_name)
        return None if raw is None else Submission.model_validate_json(raw)


@dataclass
class RecordingStarter:
    """A WorkflowStarter that keeps each started execution (name, input). As Step Functions does for a running
    execution: the same name with the same input is that execution again, with another input an error."""

    started: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def start(self, execution_name: str, execution_input: dict[str, Any]) -> str:
        arn = f"arn:aws:states:us-east-1:123456789012:execution:po:{execution_name}"
        for name, given in self.started:
            if name == execution_name:
                if given != execution_input:
                    raise IntegrityError(f"an execution named {execution_name} exists already")
                return arn
        self.started.append((execution_name, dict(execution_input)))
        return arn

    def execution_arn(self, execution_name: str) -> str:
        """The ARN ``start`` gives the execution ``execution_name``."""
        return f"arn:aws:states:us-east-1:123456789012:execution:po:{execution_name}"


@dataclass
class ScriptedTransport:
    """A MessageTransport that records what it was handed and fails as told (per recipient)."""

    name: str = "fake"
    sent: list[OutboxMessage] = field(default_factory=list)
    failures: dict[str, DeliveryError] = field(default_factory=dict)  # recipient -> the error to raise
    sender: str = "shop@example.com"
    sender_name: str = "Shop"
    data: list[bytes] = field(default_factory=list)  # the bytes of each message sent, in order

    def send(self, message: OutboxMessage, data: bytes) -> str:
        failure = self.failures.get(message.to)
        if failure is not None:
            raise failure
        self.sent.append(message)
        self.data.append(data)
        return f"fake:{len(self.sent)}"
