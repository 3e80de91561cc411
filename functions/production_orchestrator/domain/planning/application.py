"""Applying an approved plan, and the one staleness rule every deciding path uses (DESIGN "Still holds").

    judge(current shop, proposal[, shop it was proposed on][, today]) -> Verdict
        a day it changes, or the last day to place a purchase, is before today      -> stale by time
        shop unchanged (digest = the proposal's base digest)                         -> fresh
        shop rule "any-change" and the shop changed                                  -> stale: the shop changed
        an order it moves is not where it found it, or completed or cancelled        -> stale: names the order
        its changes on the current shop break a rule (the independent checker,
          due dates, materials) or a promise its approvers saw                       -> stale: names each one
        else                                                                         -> fresh: it still holds
    apply_proposal(current shop, proposal[, today]) -> the shop after it: judge says fresh, and the result is
        the plan's changes applied to the current shop (``result_of``: a rebase of the plan onto whatever else
        changed meanwhile); on an unchanged shop it is exactly the shop the proposal describes
        (``result_digest``); anything else refuses and nothing applies.

A change that only frees capacity or stock never stales a plan: no check reads the shop the plan was made on
(:mod:`.still_holds`). The footprint digest stays in the proposal as what the plan was made on; it is the rule
no more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import PlanningError
from ..shop.changes import describe_changes
from ..shop.model import ProcurementTask, ShopState, procurement_key
from . import still_holds
from .guidance import with_calendar
from .proposal import ProposalContent


@dataclass(frozen=True)
class Verdict:
    """Whether a plan may still apply on the current shop, and if not, why (each reason a phrase).

    ``by_time``: stale because a day of it has passed (the shop may be unchanged). ``result`` is what the
    application and its ``plan_applied`` event record: ``unchanged``, ``still holds`` (applied on a changed
    shop after re-validation) or ``stale``."""

    stale: bool
    unchanged: bool
    reasons: tuple[str, ...] = ()
    by_time: bool = False

    @property
    def result(self) -> str:
        """``unchanged`` | ``still holds`` | ``stale``."""
        return "stale" if self.stale else "unchanged" if self.unchanged else "still holds"

    def message(self) -> str:
        """The refusal a person reads: the day that passed, or what no longer holds, each named."""
        if not self.stale:
            return "the plan still applies on the current shop"
        if self.by_time:
            return "the plan is stale by time: " + "; ".join(self.reasons) + ". Propose it again from today."
        return "the plan no longer holds on the current shop: " + "; ".join(self.reasons) + ". Propose again."


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
RULES: tuple[Rule, ...] = (due_dates, materials)


def rule_breaks(before: ShopState, after: ShopState, proposal: ProposalContent) -> list[str]:
    """Every rule the plan's changes break when they take ``before`` to ``after`` (empty: all kept): the
    independent checker's on ``before``, then due dates and materials."""
    found = still_holds.rules_kept(before, proposal)
    return found + [problem for rule in RULES for problem in rule(before, after, proposal)]


def judge(
    current: ShopState, proposal: ProposalContent, proposed_on: ShopState | None = None, today: str | None = None
) -> Verdict:
    """The one staleness rule: may ``proposal`` still apply on ``current`` on ``today`` (the shop's calendar
    day; None: time is not judged)? ``proposed_on`` (the shop it was made on, when on record) only serves to
    name what changed under the strict any-change rule."""
    unchanged = current.digest() == proposal.base_digest
    passed = still_holds.passed(current, proposal, today) if today is not None else []
    if passed:
        return Verdict(stale=True, unchanged=unchanged, reasons=tuple(passed), by_time=True)
    if unchanged:
        return Verdict(stale=False, unchanged=True)
    if current.staleness == "any-change":
        named = describe_changes(proposed_on, current) if proposed_on is not None else []
        return Verdict(stale=True, unchanged=False, reasons=("the shop's rule is any-change", *named))
    moved = still_holds.where_found(current, proposal)
    if moved:
        return Verdict(stale=True, unchanged=False, reasons=tuple(moved))
    try:
        after = result_of(current, proposal)
    except PlanningError as exc:
        return Verdict(stale=True, unchanged=False, reasons=(str(exc),))
    broken = rule_breaks(current, after, proposal) + still_holds.promises(current, proposal)
    return Verdict(stale=bool(broken), unchanged=False, reasons=tuple(dict.fromkeys(broken)))


def apply_proposal(state: ShopState, proposal: ProposalContent, today: str | None = None) -> ShopState:
    """The shop after ``proposal`` applies on ``state`` (its changes rebased onto ``state``), or
    ``PlanningError`` naming why it may not."""
    verdict = judge(state, proposal, today=today)
    if verdict.stale:
        raise PlanningError(verdict.message())
    after = result_of(state, proposal)
    if verdict.unchanged and after.digest() != proposal.result_digest:
        raise PlanningError("applying the proposal would not give the state it describes; nothing was applied")
    for change in proposal.schedule_changes:
        order = after.order(change.order_id)
        if order is None or order.schedule != change.after:
            raise PlanningError(f"applying the proposal would not place {change.order_id} as it describes")
    return after
