"""Propose: build the plan a human approves (blockers, schedule changes, procurement, orders at risk,
message drafts) and apply an approved one.

Everything here is a pure function of the shop state, the new order and the planning day, so the same
shop and request always give the same proposal and the same proposal hash. The proposal names the state
it was built on (revision and digest), its footprint (what it books, moves, adds, reserves and procures)
with that part's digest, and what it produces; applying it is :mod:`.application`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import PlanningError, UnplannableError
from ..limits import DEFAULT_NODES
from ..shop.footprint import Footprint, MachineDay, footprint_digest, plan_footprint
from ..shop.model import Allocation, Order, ShopState, add_days, parse_day
from .application import apply_proposal, result_of
from .causes import CANNOT_MOVE, Placed, cannot_arrive, plan_at_risk, plan_blockers
from .drafts import draft_messages
from .greedy import HORIZON_DAYS, Placement, Placing
from .guidance import Guidance, Revision, planner_view
from .holds import held_on, held_view
from .materials import Shortage, plan_procurement, ready_day, shortages
from .optimize import PlannedBy, best_placement
from .proposal import PLANNER_VERSION, AtRisk, Blocker, GivenFacts, ProcurementAction, ProposalContent, ScheduleChange


def _target(state: ShopState, order_id: str, planning_day: str) -> Order:
    order = state.order(order_id)
    if order is None:
        raise PlanningError(f"order {order_id} is not in the shop; take the customer request in first")
    if order.schedule:
        raise PlanningError(f"order {order_id} is already scheduled (from {order.schedule[0].day}); nothing to plan")
    if state.product(order.product) is None:
        raise PlanningError(f"order {order_id} names product {order.product}, which the shop does not make")
    parse_day(planning_day)
    return order


def analyze_blockers(
    state: ShopState, order_id: str, planning_day: str, holds: tuple[ProposalContent, ...] = ()
) -> tuple[Blocker, ...]:
    """What stops ``order_id`` from being produced by its due date: shortages, then capacity (with what the open
    pending plans ``holds`` book taken, :mod:`.holds`)."""
    target = _target(state, order_id, planning_day)
    return _plan(held_view(state, holds, target), target, planning_day, solve=False).blockers


@dataclass(frozen=True)
class _Plan:
    blockers: tuple[Blocker, ...]
    placement: Placement
    short: list[Shortage]
    machines: tuple[str, ...]
    planned_by: PlannedBy


def _plan(state: ShopState, target: Order, planning_day: str, nodes: int = DEFAULT_NODES, solve: bool = True) -> _Plan:
    product = state.product(target.product)
    assert product is not None  # checked by _target
    short = shortages(state, target, product, planning_day)
    earliest = ready_day(short, planning_day)
    last = add_days(planning_day, HORIZON_DAYS - 1)
    if earliest > last:
        raise UnplannableError(
            f"{target.id} cannot be made in the {HORIZON_DAYS} days from {planning_day}: "
            + "; ".join(cannot_arrive(s) for s in short if s.arrives > last)
        )
    placement, planned_by = best_placement(Placing(state, target, product, planning_day, earliest), nodes, solve)
    blockers = plan_blockers(target, product, short, placement)
    return _Plan(blockers=blockers, placement=placement, short=short, machines=product.machines, planned_by=planned_by)


def _kept_named(at_risk: tuple[AtRisk, ...], guidance: Guidance | None) -> tuple[AtRisk, ...]:
    """Each at-risk order's cause, naming the orders the approver asked to keep among those in its way."""
    kept = set(guidance.keep) if guidance is not None else set()
    named = []
    for risk in at_risk:
        held = [o for o in risk.blocking_orders if o in kept]
        if held:
            why = f"{', '.join(held)} kept where {'they are' if len(held) > 1 else 'it is'}, as the revision asked"
            detail = risk.detail
            if set(held) == set(risk.blocking_orders):  # nothing else holds that time: the keep is the cause
                detail = detail.replace(f"; {CANNOT_MOVE}", "")
            risk = risk.model_copy(update={"detail": f"{detail}; {why}"})
        named.append(risk)
    return tuple(named)


def _with_days(footprint: Footprint, days: list[MachineDay]) -> Footprint:
    """``footprint`` with the machine-days whose calendar the plan changes (a re-validated copy)."""
    if not days:
        return footprint
    return Footprint.model_validate({**footprint.model_dump(), "machine_days": [*footprint.machine_days, *days]})


def _held(
    state: ShopState, holds: tuple[ProposalContent, ...], target: Order, day: str, placed: tuple[Allocation, ...]
) -> dict[str, object]:
    """The proposal's record of what other pending plans held that it could use, up to its due date (or its last
    day, when later)."""
    last = max([target.due, *(a.day for a in placed)])
    capacity, stock = held_on(state, holds, target, day, last)
    return {"held_capacity": capacity, "held_stock": stock}


@dataclass(frozen=True)
class Requested:
    """What a customer's request brings to its plan besides the order id.

    ``text``: the e-mail, recorded with the plan. ``pending``: the request's order when it waits beside the
    shop (held with its run, not in the shop): it is planned as if taken in, while the proposal's base and
    footprint digests are those of the shop itself, so starting a run changes no digest and the plan adds its
    order when it applies. ``given``: the facts the person who started the run gave, recorded with the plan.
    ``revision``: an approver's guidance for a revised version (the planners plan on its
    :func:`~.guidance.planner_view`; the proposal records it and its overtime as calendar changes).
    ``holds``: the other open pending plans, whose bookings, moves and purchases the plan treats as taken
    (:func:`~.holds.held_view`); the proposal records what they held of what it could use.
    """

    text: str = ""
    pending: Order | None = None
    given: GivenFacts | None = None
    revision: Revision | None = None
    holds: tuple[ProposalContent, ...] = ()


def build_proposal(
    shop: ShopState,
    order_id: str,
    planning_day: str,
    request: Requested | str = "",
    solver_nodes: int = DEFAULT_NODES,
) -> ProposalContent:
    """The complete plan for ``order_id`` against ``shop`` from ``planning_day``: deterministic, no clock.

    ``request``: what the request brings (:class:`Requested`; a bare text is a request of that text only).
    ``solver_nodes`` is the solver's budget in work (nodes per objective stage; 0: the greedy plan only).
    """
    asked = Requested(text=request) if isinstance(request, str) else request
    request_text, pending, given, revision = asked.text, asked.pending, asked.given, asked.revision
    state = shop if pending is None or shop.order(pending.id) is not None else shop.with_order(pending)
    target = _target(state, order_id, planning_day)
    guidance = revision.guidance if revision is not None else None
    held = held_view(state, asked.holds, target)
    view = planner_view(held, guidance, target)
    plan = _plan(view, target, planning_day, solver_nodes, solve=solver_nodes > 0)
    blockers, placement, planned_by = plan.blockers, plan.placement, plan.planned_by
    changes = [
        ScheduleChange(order_id=oid, before=state.order(oid).schedule, after=after)  # type: ignore[union-attr]
        for oid, after in sorted(placement.moved.items())
    ]
    changes.append(ScheduleChange(order_id=target.id, before=(), after=placement.allocations))
    planned = state.with_orders(
        [state.order(c.order_id).model_copy(update={"schedule": c.after}) for c in changes]  # type: ignore[union-attr]
    )
    # Purchases are counted with the pending plans' purchases and reservations held, as capacity is.
    after_held = held.with_orders(planned.order(c.order_id) for c in changes)  # type: ignore[misc]
    lines = plan_procurement(held, after_held, target.id, set(placement.moved), planning_day)
    actions = tuple(
        ProcurementAction(
            material_id=x.material, quantity=x.quantity, needed_by=x.needed_by, supplier_email=x.supplier_email
        )
        for x in lines
    )
    orders = {o.id: o for o in planned.orders}
    at_risk = _kept_named(
        plan_at_risk(Placed(target, plan.machines, placement, plan.short), lines, orders, planning_day), guidance
    )
    calendar = guidance.overtime if guidance is not None else ()
    footprint = _with_days(
        plan_footprint(
            shop,
            [(c.order_id, c.before, c.after) for c in changes],
            added=[target],
            procured=[a.material_id for a in actions],
        ),
        [MachineDay(machine=o.machine, day=o.day) for o in calendar],
    )
    content = {
        "planner_version": PLANNER_VERSION,
        "planned_by": planned_by,
        "base_revision": shop.revision,
        "base_digest": shop.digest(),
        "planning_day": planning_day,
        "horizon_days": HORIZON_DAYS,
        "request_text": request_text,
        "target_order": target,
        "evidence": blockers,
        "schedule_changes": tuple(changes),
        "procurement_actions": actions,
        "at_risk": at_risk,
        "communication_drafts": draft_messages(state, target, tuple(changes), actions, at_risk),
        "footprint": footprint,
        "footprint_digest": footprint_digest(shop, footprint),
        "result_footprint_digest": "",
        "result_digest": "",
        "given": given,
        "revision": revision,
        "calendar_changes": calendar,
        **_held(state, asked.holds, target, planning_day, placement.allocations),
    }
    draft = ProposalContent(**content)
    after = result_of(shop, draft)
    return draft.model_copy(
        update={"result_digest": after.digest(), "result_footprint_digest": footprint_digest(after, footprint)}
    )


__all__ = ["PLANNER_VERSION", "analyze_blockers", "apply_proposal", "build_proposal"]
