"""Propose again: a stale plan is replaced by a new run's plan under the same policy and links.

    pending approval, shop moved on -> the agent plans again on the current shop (a fresh run) -> its
    checkpoint and its approval are written, and the old approval closed (pending -> superseded), in one
    transaction conditioned on the old approval still being open

Two "propose again" clicks at once both run the agent, but only one transaction can close the old approval:
the other writes nothing (no checkpoint, no approval: no orphan that the old links could open) and is told
the plan was already replaced. What the new plan needs is recomputed under the stored policy: a plan that
now buys more than the quorum threshold needs the quorum.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from ...domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, ValidationError
from ...domain.records import ProviderBinding, parse_utc
from ..asking.request_approval import LinkPlan
from ..evidence import current_approval, review, what_changed
from ..runtime import Runtime
from .plan_request import planned_again
from .start import StartResult, StartRun, start_run


@dataclass(frozen=True)
class ProposeAgain:
    """Plan ``approval_id``'s request again on the current shop, with the agent on ``binding``."""

    approval_id: str
    binding: ProviderBinding


def propose_again(rt: Runtime, cmd: ProposeAgain) -> StartResult:
    """Plan again on the current shop for the open, stale approval ``approval_id`` (or the one replacing it)."""
    approval_id = cmd.approval_id
    old = current_approval(rt.approvals, approval_id)
    if old is None:
        raise ValidationError(f"approval {approval_id} does not exist")
    checkpoint, proposal = review(rt.store, old.checkpoint_id)
    if not old.is_open(rt.clock()):
        raise ValidationError(
            f"approval {old.approval_id} is {old.status}, not open: only an open plan is proposed again"
        )
    if what_changed(rt.store, checkpoint, rt.clock()) is None:
        raise ValidationError(f"the plan of {checkpoint.checkpoint_id} is not stale: approve or reject it instead")
    window = max(parse_utc(checkpoint.expires_at) - parse_utc(checkpoint.created_at), timedelta(seconds=1))
    try:
        again = StartRun(
            planned_again(rt, checkpoint, proposal),
            cmd.binding,
            window,
            LinkPlan.successor(old),
            replacing=True,
        )
        return start_run(rt, again)
    except (DecisionAlreadyClaimedError, ApprovalExpiredError) as exc:
        raise ValidationError(
            f"approval {old.approval_id} was closed meanwhile ({exc}); nothing was written: open the link again"
        ) from None
