"""The reads every lifecycle step shares: the shop, the sealed checkpoint, the plan. Imports nothing of strands.

``load_checkpoint`` is the only way a step reads a checkpoint: the id is checked before it addresses
anything, the seal is checked before any field is trusted, and a problem is a ``ResumeRefusedError``.
"""

from __future__ import annotations

from ..domain.approval.verification import Refusal, read_checkpoint
from ..domain.canonical import sha256_hex
from ..domain.errors import RefusalCode, ResumeRefusedError, ShopError
from ..domain.planning.application import Verdict, judge
from ..domain.planning.proposal import ProposalContent, load_proposal
from ..domain.ports import ShopStore
from ..domain.records import CHECKPOINT_ID_PATTERN, Checkpoint, require_id
from ..domain.shop.model import ShopState


def current_state(store: ShopStore) -> ShopState:
    """The shop as stored now; a data dir or table without one is a ``ShopError``."""
    state = store.load_state()
    if state is None:
        raise ShopError("this data dir holds no shop yet; run start first")
    return state


def load_checkpoint(store: ShopStore, checkpoint_id: str) -> Checkpoint:
    """The sealed checkpoint ``checkpoint_id``; ``ResumeRefusedError(CHECKPOINT_INVALID)`` otherwise."""
    require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
    checkpoint = read_checkpoint(store.get_checkpoint(checkpoint_id), checkpoint_id)
    if isinstance(checkpoint, Refusal):
        raise checkpoint.error()
    return checkpoint


def review(store: ShopStore, checkpoint_id: str) -> tuple[Checkpoint, ProposalContent]:
    """The checkpoint and its verified proposal: exactly what a human reviews."""
    checkpoint = load_checkpoint(store, checkpoint_id)
    data = store.get_proposal(checkpoint.proposal_hash)
    if data is None:
        raise ResumeRefusedError(RefusalCode.PROPOSAL_INTEGRITY, f"proposal {checkpoint.proposal_hash} is missing")
    return checkpoint, load_proposal(data, checkpoint.proposal_hash)


def proposed_on(store: ShopStore, checkpoint: Checkpoint) -> ShopState | None:
    """The shop the plan was proposed on, as start kept it (None when not on record or not intact)."""
    data = store.get_state_snapshot(checkpoint.domain_digest)
    if data is None or sha256_hex(data) != checkpoint.domain_digest:
        return None
    return ShopState.model_validate_json(data)


def freshness(store: ShopStore, checkpoint: Checkpoint, proposal: ProposalContent) -> Verdict:
    """The one staleness rule (:func:`domain.planning.application.judge`) on the shop as stored now.

    Every path that decides or shows "stale" asks here: the page, the CLI resume, resume-approval, the resume
    Lambda (through the resume gate, which judges with the same function), status and review.
    """
    current = current_state(store)
    verdict = judge(current, proposal)
    if verdict.stale:
        return judge(current, proposal, proposed_on(store, checkpoint))  # the snapshot only names what changed
    return verdict
