"""Which open pending plans hold what they book while a new request is planned (domain/planning/holds.py).

    the store's open runs (a superset) -> each checkpoint unexpired, not rejected, superseded or expired
      (an approved one not yet applied still holds: it is about to apply)
    -> its proposal, read and re-hashed -> still holding on the shop now (the one staleness rule, by time too)
    -> the new plan is made around it

A stale plan holds nothing: it cannot apply as it is, and proposing it again plans around the others. Reads
only; the same on SQLite and DynamoDB (``ShopStore.open_checkpoints``).
"""

from __future__ import annotations

from ...domain.errors import IntegrityError, ResumeRefusedError
from ...domain.planning.application import judge
from ...domain.planning.proposal import ProposalContent
from ...domain.planning.still_holds import judged_today
from ...domain.records import Checkpoint, parse_utc
from ...domain.shop.model import ShopState
from ..evidence import review
from ..runtime import Runtime
from ..status import open_checkpoints

_HOLDING = ("pending", "decided")  # the approval's status: waiting for votes, or approved and not yet resumed


def _open(rt: Runtime, checkpoint: Checkpoint) -> bool:
    """Whether ``checkpoint``'s plan may still apply without being proposed again (window open, not closed)."""
    now = rt.clock()
    if now >= parse_utc(checkpoint.expires_at):
        return False
    record = rt.store.get_decision(checkpoint.checkpoint_id)
    if record is not None:
        return record.decision.approved and not record.is_complete()  # approved, being applied
    found = rt.approvals.approvals_for(checkpoint.checkpoint_id)
    # No approval yet: on AWS the workflow requests it just after the start; the plan already waits for it.
    return not found or (found[-1].status in _HOLDING and now < parse_utc(found[-1].expires_at))


def holding_plans(rt: Runtime, shop: ShopState) -> tuple[ProposalContent, ...]:
    """The plans of the open runs that still hold on ``shop`` now, oldest first."""
    now = rt.clock()
    found = []
    for _, checkpoint in open_checkpoints(rt):
        if not isinstance(checkpoint, Checkpoint) or not _open(rt, checkpoint):
            continue
        try:
            _, proposal = review(rt.store, checkpoint.checkpoint_id)
        except (ResumeRefusedError, IntegrityError):
            continue  # unreadable: the resume gate refuses it; it can hold nothing
        if not judge(shop, proposal, today=judged_today(shop, parse_utc(checkpoint.created_at), now)).stale:
            found.append(proposal)
    return tuple(found)
