"""Applying an approved plan, and the one staleness rule every deciding path uses.

    judge(current shop, proposal[, shop it was proposed on]) -> Verdict
        shop unchanged (digest = the proposal's base digest)         -> fresh
        shop rule "any-change" and the shop changed                    -> stale: the shop changed
        footprint digest differs from the one the plan was made on    -> stale: names what changed inside it
        the plan's changes on the current shop break a rule          -> stale: names the rule and where
        else                                                          -> fresh (a change elsewhere in the shop)
    apply_proposal(current shop, proposal) -> the shop after it: judge says fresh, the result is a
        deterministic function of the current shop and the plan, its footprint part is exactly the one the
        proposal describes (``result_footprint_digest``) and, on an unchanged shop, the whole shop is
        exactly the one it describes (``result_digest``); anything else refuses and nothing applies.

The rules are named functions (``capacity``, ``calendar``, ``eligibility``, ``due_dates``, ``materials``);
a broken rule names itself. They only look inside the footprint, where the plan writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import PlanningError
from ..shop.changes import describe_changes
from ..shop.footprint import changed_within, footprint_digest
from ..shop.model import ProcurementTask, ShopState, procurement_key
from .guidance import with_calendar
from .proposal import ProposalContent


@dataclass(frozen=True)
class Verdict:
    """Whether a plan may still apply on the current shop, and if not, why (each reason a phrase)."""

    stale: bool
    unchanged: bool
    reasons: tuple[str, ...] = ()

    def message(self) -> str:
        """The refusal a person reads: what changed inside the plan's footprint, or which rule it would break."""
        if not self.stale:
            return "the plan still applies on the current shop"
        return "the shop changed where this plan works: " + "; ".join(self.reasons) + ". Propose again."


def result_of(state: ShopState, proposal: ProposalContent) -> ShopState:
    """``state`` with the plan's calendar changes (overtime), schedule changes, new order and procurement, one
    revision on.

    A moved order must be exactly where the plan found it; the plan's own order is added when the shop does
    not hold it yet (a request waits beside the shop until its plan applies) or when it is held unscheduled.
    """
    state = with_calendar(state, proposal.calendar_changes)
    orders = {o.id: o for o in state.orders}
    changed = []
    for change in proposal.schedule_changes:
        order = orders.get(change.order_id)
        if order is None and change.order_id == proposal.target_order.id and not change.before:
            order = proposal.target_order
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


def capacity(before: ShopState, after: ShopState, proposal: ProposalContent) -> list[str]:
    """No machine-day of the plan is booked beyond its capacity (or more over it than it already was)."""
    broken = []
    for slot in proposal.footprint.machine_days:
        machine = after.machine(slot.machine)
        limit = 0 if machine is None or not machine.works_on(slot.day) else machine.minutes_on(slot.day)
        booked = after.booked_minutes(slot.machine, slot.day)
        if booked > limit and booked > before.booked_minutes(slot.machine, slot.day):
            broken.append(f"capacity: {slot.machine} on {slot.day} would be booked {booked} of {limit} minutes")
    return broken


def _moved(after: ShopState, proposal: ProposalContent) -> list[tuple[str, str, str]]:
    """(order, machine, day) of every allocation the plan places."""
    return [(c.order_id, a.machine, a.day) for c in proposal.schedule_changes for a in c.after]


def calendar(before: ShopState, after: ShopState, proposal: ProposalContent) -> list[str]:
    """Every allocation the plan places is on a day its machine works."""
    broken = []
    for order_id, machine_id, day in _moved(after, proposal):
        machine = after.machine(machine_id)
        if machine is None or not machine.works_on(day):
            broken.append(f"calendar: {machine_id} does not work on {day} ({order_id})")
    return broken


def eligibility(before: ShopState, after: ShopState, proposal: ProposalContent) -> list[str]:
    """Every allocation the plan places is on a machine its order's product may use."""
    broken = []
    for order_id, machine_id, day in _moved(after, proposal):
        order = after.order(order_id)
        product = after.product(order.product) if order else None
        if product is None or machine_id not in product.machines:
            broken.append(f"eligibility: {order_id} may not run on {machine_id} ({day})")
    return broken


def due_dates(before: ShopState, after: ShopState, proposal: ProposalContent) -> list[str]:
    """Every order the plan moves still finishes by its due date, unless the plan says it is at risk."""
    at_risk = {r.order_id for r in proposal.at_risk}
    broken = []
    for change in proposal.schedule_changes:
        order = after.order(change.order_id)
        if order is None or order.id in at_risk or order.last_day is None or order.last_day <= order.due:
            continue
        broken.append(f"due date: {order.id} would finish {order.last_day}, due {order.due}")
    return broken


def _short(state: ShopState, material_id: str, planning_day: str) -> int:
    products = {p.code: p for p in state.products}
    demand = 0
    for order in state.orders:
        product = products.get(order.product)
        if product is None or not order.schedule or order.schedule[0].day < planning_day:
            continue
        demand += sum(order.quantity * m.per_unit for m in product.materials if m.id == material_id)
    stock = state.material(material_id)
    supply = (stock.on_hand + stock.on_order if stock else 0) + sum(
        t.quantity for t in state.procurement if t.material == material_id
    )
    return max(0, demand - supply)


def materials(before: ShopState, after: ShopState, proposal: ProposalContent) -> list[str]:
    """The plan leaves no material of its footprint shorter than it was (what it reserves, it covers)."""
    broken = []
    for material_id in proposal.footprint.materials:
        was, now = (_short(s, material_id, proposal.planning_day) for s in (before, after))
        if now > was:
            broken.append(f"materials: {material_id} would be {now} short (was {was})")
    return broken


Rule = Callable[[ShopState, ShopState, ProposalContent], list[str]]
RULES: tuple[Rule, ...] = (capacity, calendar, eligibility, due_dates, materials)


def rule_breaks(before: ShopState, after: ShopState, proposal: ProposalContent) -> list[str]:
    """Every rule the plan's changes break when they take ``before`` to ``after`` (empty: all kept)."""
    return [problem for rule in RULES for problem in rule(before, after, proposal)]


def judge(current: ShopState, proposal: ProposalContent, proposed_on: ShopState | None = None) -> Verdict:
    """The one staleness rule: may ``proposal`` still apply on ``current``? ``proposed_on`` (the shop it was
    made on, when on record) only serves to name what changed."""
    if current.digest() == proposal.base_digest:
        return Verdict(stale=False, unchanged=True)
    if current.staleness == "any-change":
        named = describe_changes(proposed_on, current) if proposed_on is not None else []
        return Verdict(stale=True, unchanged=False, reasons=("the shop's rule is any-change", *named))
    if footprint_digest(current, proposal.footprint) != proposal.footprint_digest:
        named = changed_within(proposal.footprint, proposed_on, current) if proposed_on is not None else []
        return Verdict(
            stale=True,
            unchanged=False,
            reasons=tuple(f"{name} changed" for name in named)
            or (f"something inside its footprint changed ({proposal.footprint.describe()})",),
        )
    try:
        after = result_of(current, proposal)
    except PlanningError as exc:
        return Verdict(stale=True, unchanged=False, reasons=(str(exc),))
    broken = rule_breaks(current, after, proposal)
    return Verdict(stale=bool(broken), unchanged=False, reasons=tuple(broken))


def apply_proposal(state: ShopState, proposal: ProposalContent) -> ShopState:
    """The shop after ``proposal`` applies on ``state``, or ``PlanningError`` naming why it may not."""
    verdict = judge(state, proposal)
    if verdict.stale:
        raise PlanningError(verdict.message())
    after = result_of(state, proposal)
    if verdict.unchanged and after.digest() != proposal.result_digest:
        raise PlanningError("applying the proposal would not give the state it describes; nothing was applied")
    if footprint_digest(after, proposal.footprint) != proposal.result_footprint_digest:
        raise PlanningError("applying the proposal would not give the footprint it describes; nothing was applied")
    return after
