"""The resume gate: a pure function from persisted evidence to "go" or a refusal with a stable code.

It runs before the decision is claimed and before any agent, tool or write path is built:

    checkpoint raw --read_checkpoint--> Checkpoint --verify_resume(evidence, runtime, now)--> Go | Refusal
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import ValidationError as PydanticValidationError

from ..canonical import sha256_hex
from ..errors import IntegrityError, RefusalCode, ResumeRefusedError
from ..planning.application import judge
from ..planning.proposal import ProposalContent, load_proposal
from ..planning.still_holds import judged_today
from ..records import INTERRUPT_NAME, Checkpoint, ProviderBinding, agent_identity, parse_utc
from ..shop.model import ShopState


@dataclass(frozen=True)
class ResumeRequest:
    """What the caller asks for: which checkpoint, which decision, on which reviewed hash."""

    checkpoint_id: str
    approved: bool
    reviewed_hash: str
    interrupt_id: str | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class SessionFacts:
    """What the stored agent session says, read without restoring an agent."""

    session_exists: bool
    agent_exists: bool
    interrupt_activated: bool
    pending_interrupt_ids: frozenset[str]
    interrupt_proposal_hash: str | None = None


@dataclass(frozen=True)
class Refusal:
    """A refusal: stable code plus a message a person can act on."""

    code: RefusalCode
    message: str

    def error(self) -> ResumeRefusedError:
        """The one way a refusal becomes an exception: code and message kept as they are."""
        return ResumeRefusedError(self.code, self.message)


@dataclass(frozen=True)
class Go:
    """Everything checked; the verified checkpoint and proposal to resume with."""

    checkpoint: Checkpoint
    proposal: ProposalContent
    # Recovery only: the stored session shows the agent already consumed the decision (it ran to the end).
    agent_finished: bool = False


def read_checkpoint(raw: str | None, checkpoint_id: str) -> Checkpoint | Refusal:
    """Parse and check the seal of a stored checkpoint (the only parser of stored checkpoints)."""
    if raw is None:
        return Refusal(RefusalCode.CHECKPOINT_INVALID, f"checkpoint {checkpoint_id} does not exist")
    try:
        checkpoint = Checkpoint.model_validate_json(raw)
    except (PydanticValidationError, ValueError) as exc:
        first = exc.errors()[0]["msg"] if isinstance(exc, PydanticValidationError) else str(exc)
        return Refusal(RefusalCode.CHECKPOINT_INVALID, f"checkpoint {checkpoint_id} is malformed: {first}")
    if checkpoint.checkpoint_id != checkpoint_id:
        return Refusal(RefusalCode.CHECKPOINT_INVALID, f"checkpoint stored as {checkpoint_id} names another id")
    if not checkpoint.is_intact():
        return Refusal(RefusalCode.CHECKPOINT_INVALID, f"checkpoint {checkpoint_id} was altered after it was sealed")
    if checkpoint.interrupt_name != INTERRUPT_NAME:
        return Refusal(RefusalCode.CHECKPOINT_INVALID, f"checkpoint {checkpoint_id} is not an approval checkpoint")
    return checkpoint


@dataclass(frozen=True)
class Evidence:
    """What the resume gate checks a checkpoint against: everything persisted, read before any write path
    exists (``decided``: a decision record exists; ``recovering``/``already_applied``: see :func:`verify_resume`)."""

    decided: bool
    session: SessionFacts
    proposal_bytes: bytes | None
    current: ShopState
    runtime_binding: ProviderBinding
    now: datetime
    recovering: bool = False
    already_applied: bool = False
    proposed_on: ShopState | None = None


def verify_resume(checkpoint: Checkpoint, request: ResumeRequest, evidence: Evidence) -> Go | Refusal:
    """Check every fact a resume depends on, in a fixed order; the first failure is the answer.

    A claimed decision is reported before anything else changes the verdict, so a replay is always
    ALREADY_DECIDED even after the apply moved the domain digest on. A rejection is not refused for a
    stale shop: it changes nothing, and it is how a person cancels a plan the shop has moved past. Stale
    is the one rule of :func:`domain.planning.application.judge` on ``current`` on ``now``'s day in the
    shop (a plan no longer holds, or a day of it passed; ``proposed_on``, the shop the plan was made on when
    on record, only names what changed under the strict any-change rule).

    ``recovering``: finishing a decision claimed in time by a resume that died (see ``claims``). The window
    is not re-checked, the session may show the agent already finished, and when this proposal already
    applied (``already_applied``) the digest has moved on because of it, not against it.
    """
    decided, session, now, recovering = evidence.decided, evidence.session, evidence.now, evidence.recovering
    refusal = _claim_and_window(checkpoint, decided=decided, now=now, recovering=recovering)
    refusal = refusal or _ids(checkpoint, request)
    if refusal:
        return refusal
    finished = _session(checkpoint, session, recovering=recovering)
    if isinstance(finished, Refusal):
        return finished
    refusal = _provider(checkpoint, evidence.runtime_binding)
    if refusal:
        return refusal
    proposal = _proposal(checkpoint, evidence.proposal_bytes, session, finished=finished)
    if isinstance(proposal, Refusal):
        return proposal
    cid = checkpoint.checkpoint_id
    if request.reviewed_hash != checkpoint.proposal_hash:
        return Refusal(
            RefusalCode.REVIEWED_HASH_MISMATCH,
            f"the reviewed hash {request.reviewed_hash[:12]}... is not the pending proposal "
            f"{checkpoint.proposal_hash[:12]}... of checkpoint {cid}",
        )
    # Only an approve needs a shop the plan still applies on: a reject changes nothing, so a stale plan can
    # be cancelled. A recovery whose plan already applied finds the shop moved on by its own apply.
    if request.approved and not (recovering and evidence.already_applied):
        today = judged_today(evidence.current, parse_utc(checkpoint.created_at), evidence.now)
        verdict = judge(evidence.current, proposal, evidence.proposed_on, today)
        if verdict.stale:
            return Refusal(RefusalCode.STALE_DOMAIN_STATE, verdict.message())
    return Go(checkpoint=checkpoint, proposal=proposal, agent_finished=finished)


def _claim_and_window(checkpoint: Checkpoint, *, decided: bool, now: datetime, recovering: bool) -> Refusal | None:
    cid = checkpoint.checkpoint_id
    if decided and not recovering:
        return Refusal(RefusalCode.ALREADY_DECIDED, f"a decision for checkpoint {cid} was already recorded")
    if not recovering and now >= parse_utc(checkpoint.expires_at):
        return Refusal(
            RefusalCode.EXPIRED, f"the approval window of checkpoint {cid} closed at {checkpoint.expires_at}"
        )
    return None


def _ids(checkpoint: Checkpoint, request: ResumeRequest) -> Refusal | None:
    cid = checkpoint.checkpoint_id
    if request.interrupt_id is not None and request.interrupt_id != checkpoint.interrupt_id:
        return Refusal(RefusalCode.INTERRUPT_MISMATCH, f"interrupt id given is not the one checkpoint {cid} waits on")
    if request.session_id is not None and request.session_id != checkpoint.session_id:
        return Refusal(RefusalCode.SESSION_MISMATCH, f"session id given is not the session of checkpoint {cid}")
    return None


def _session(checkpoint: Checkpoint, session: SessionFacts, *, recovering: bool) -> bool | Refusal:
    """Whether the agent already finished (recovery only), or why the stored session does not fit."""
    cid = checkpoint.checkpoint_id
    if not session.session_exists or not session.agent_exists:
        return Refusal(
            RefusalCode.SESSION_MISMATCH,
            f"stored session {checkpoint.session_id} does not hold the agent of {cid}",
        )
    pending = session.interrupt_activated and checkpoint.interrupt_id in session.pending_interrupt_ids
    finished = recovering and not pending
    if not pending and not finished:
        return Refusal(
            RefusalCode.INTERRUPT_MISMATCH,
            f"interrupt of checkpoint {cid} is not pending in the restored session",
        )
    return finished


def _provider(checkpoint: Checkpoint, runtime_binding: ProviderBinding) -> Refusal | None:
    cid = checkpoint.checkpoint_id
    differing = checkpoint.provider_binding.differences(runtime_binding)
    if differing:
        return Refusal(
            RefusalCode.PROVIDER_MISMATCH,
            f"this runtime's provider binding differs from checkpoint {cid} in: {', '.join(differing)} "
            f"(it was started on {checkpoint.provider_binding.provider})",
        )
    if agent_identity(runtime_binding, checkpoint.scenario) != checkpoint.agent_id:
        return Refusal(RefusalCode.CHECKPOINT_INVALID, f"agent id of checkpoint {cid} does not match its binding")
    return None


def _proposal(
    checkpoint: Checkpoint, proposal_bytes: bytes | None, session: SessionFacts, *, finished: bool
) -> ProposalContent | Refusal:
    if proposal_bytes is None:
        return Refusal(RefusalCode.PROPOSAL_INTEGRITY, f"proposal {checkpoint.proposal_hash} is missing")
    if sha256_hex(proposal_bytes) != checkpoint.proposal_hash:
        return Refusal(
            RefusalCode.PROPOSAL_INTEGRITY, f"stored proposal does not re-hash to {checkpoint.proposal_hash}"
        )
    if not finished and session.interrupt_proposal_hash != checkpoint.proposal_hash:
        return Refusal(
            RefusalCode.PROPOSAL_INTEGRITY,
            "the pending interrupt and the checkpoint name different proposals",
        )
    try:
        return load_proposal(proposal_bytes, checkpoint.proposal_hash)
    except IntegrityError as exc:
        return Refusal(RefusalCode.PROPOSAL_INTEGRITY, str(exc))
