"""The whole shop's schedule with the pending plans laid over it (``shop show --html``, ``serve``'s
/schedule). Reads only.

    the shop now -> today, in the shop's time zone
    open runs (services/runs/requests: pending, stale, decided, resuming) -> each one's verified proposal,
        numbered 1, 2, ... oldest first
    -> domain/planning/shop_schedule.build_schedule
"""

from __future__ import annotations

from ...domain.errors import IntegrityError, ResumeRefusedError
from ...domain.planning.shop_schedule import PendingPlan, ShopSchedule, build_schedule
from ..evidence import current_state, review
from ..runs.requests import pending_requests
from ..runtime import Runtime


def shop_schedule(rt: Runtime) -> ShopSchedule:
    """The shop's schedule from today with every open run's plan over it; ``ShopError`` without a shop."""
    state = current_state(rt.store)
    plans: list[PendingPlan] = []
    for request in pending_requests(rt):
        try:
            _, proposal = review(rt.store, request.checkpoint_id)
        except (ResumeRefusedError, IntegrityError):
            continue  # unreadable since it was listed: nothing a person could approve
        plans.append(
            PendingPlan(len(plans) + 1, proposal, request.checkpoint_id, request.proposal_hash, request.status)
        )
    return build_schedule(state, state.today(rt.clock()), tuple(plans))
