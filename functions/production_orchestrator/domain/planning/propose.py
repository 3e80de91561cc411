"""Propose: build the plan a human approves (blockers, schedule changes, procurement, orders at risk,
message drafts) and apply an approved one.

Everything here is a pure function of the shop state, the new order and the planning day, so the same
shop and request always give the same proposal and the same proposal hash. The proposal names the state
it was built on (revision and digest) and the state it produces (``result_digest``): applying it either
produces exactly that state or refuses.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import PlanningError, UnplannableError
from ..shop.model import Order, ProcurementTask, ShopState, add_days, parse_day, procurement_key
from .causes import cannot_arrive, plan_at_risk, plan_blockers
from .drafts import draft_messages
from .greedy import HORIZON_DAYS, Placement
from .materials import Shortage, plan_procurement, ready_day, shortages
from .optimize import PlannedBy, best_placement
from .proposal import Blocker, ProcurementAction, ProposalContent, ScheduleChange
from .solver import DEFAULT_NODES

PLANNER_VERSION = "planner-3"


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


def analyze_blockers(state: ShopState, order_id: str, planning_day: str) -> tuple[Blocker, ...]:
    """What stops ``order_id`` from being produced by its due date: shortages, then capacity."""
    return _plan(state, _target(state, order_id, planning_day), planning_day, solve=False).blockers


def check_plannable(state: ShopState, order: Order, planning_day: str) -> None:
    """Refuse an order of which nothing fits in the horizon (``UnplannableError``, with the reason) before any
    planning run; an order of which part fits passes (its plan lists the rest at risk). Writes nothing."""
    taken_in = state.with_order(order)
    _plan(taken_in, _target(taken_in, order.id, planning_day), planning_day, solve=False)


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
    placement, planned_by = best_placement(state, target, product, planning_day, earliest, nodes, solve)
    blockers = plan_blockers(target, product, short, placement)
    return _Plan(blockers=blockers, placement=placement, short=short, machines=product.machines, planned_by=planned_by)


def build_proposal(
    state: ShopState, order_id: str, planning_day: str, request_text: str = "", solver_nodes: int = DEFAULT_NODES
) -> ProposalContent:
    """The complete plan for ``order_id`` against ``state`` from ``planning_day``: deterministic, no clock.

    ``solver_nodes`` is the solver's budget in work (nodes per objective stage; 0: the greedy plan only)."""
    target = _target(state, order_id, planning_day)
    plan = _plan(state, target, planning_day, solver_nodes, solve=solver_nodes > 0)
    blockers, placement, planned_by = plan.blockers, plan.placement, plan.planned_by
    changes = [
        ScheduleChange(order_id=oid, before=state.order(oid).schedule, after=after)  # type: ignore[union-attr]
        for oid, after in sorted(placement.moved.items())
    ]
    changes.append(ScheduleChange(order_id=target.id, before=(), after=placement.allocations))
    planned = state.with_orders(
        [state.order(c.order_id).model_copy(update={"schedule": c.after}) for c in changes]  # type: ignore[union-attr]
    )
    lines = plan_procurement(state, planned, target.id, set(placement.moved), planning_day)
    actions = tuple(
        ProcurementAction(
            material_id=x.material, quantity=x.quantity, needed_by=x.needed_by, supplier_email=x.supplier_email
        )
        for x in lines
    )
    orders = {o.id: o for o in planned.orders}
    at_risk = plan_at_risk(target, plan.machines, placement, plan.short, lines, orders, planning_day)
    content = {
        "planner_version": PLANNER_VERSION,
        "planned_by": planned_by,
        "base_revision": state.revision,
        "base_digest": state.digest(),
        "planning_day": planning_day,
        "horizon_days": HORIZON_DAYS,
        "request_text": request_text,
        "target_order": target,
        "evidence": blockers,
        "schedule_changes": tuple(changes),
        "procurement_actions": actions,
        "at_risk": at_risk,
        "communication_drafts": draft_messages(state, target, tuple(changes), actions, at_risk),
        "result_digest": "",
    }
    draft = ProposalContent(**content)
    return draft.model_copy(update={"result_digest": _result(state, draft).digest()})


def _result(state: ShopState, proposal: ProposalContent) -> ShopState:
    orders = {o.id: o for o in state.orders}
    changed = []
    for change in proposal.schedule_changes:
        order = orders.get(change.order_id)
        if order is None or order.schedule != change.before:
            raise PlanningError(f"order {change.order_id} is no longer where the proposal expects it")
        changed.append(order.model_copy(update={"schedule": change.after}))
    tasks = tuple(
        ProcurementTask(
            material=a.material_id, quantity=a.quantity, needed_by=a.needed_by, supplier_email=a.supplier_email
        )
        for a in proposal.procurement_actions
    )
    return state.with_orders(changed).model_copy(
        update={
            "procurement": tuple(sorted(state.procurement + tasks, key=procurement_key)),
            "revision": state.revision + 1,
        }
    )


def apply_proposal(state: ShopState, proposal: ProposalContent) -> ShopState:
    """The state after ``proposal`` applies: exactly the one it described (``result_digest``), or a refusal."""
    if state.revision != proposal.base_revision or state.digest() != proposal.base_digest:
        raise PlanningError(
            f"the proposal was built on revision {proposal.base_revision} ({proposal.base_digest[:12]}), "
            f"the shop is at revision {state.revision} ({state.digest()[:12]})"
        )
    after = _result(state, proposal)
    if after.digest() != proposal.result_digest:
        raise PlanningError("applying the proposal would not give the state it describes; nothing was applied")
    return after
