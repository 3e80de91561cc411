"""Message drafts that belong to a plan: to the customer, the machine operator and each supplier.

They are part of what the human approves (and of the proposal hash). A recipient without an address gets
no draft: a plain-text request without a sender has no customer to write to.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..shop.model import Order, ShopState, runs
from .proposal import AtRisk, CommunicationDraft, ProcurementAction, ScheduleChange


def _customer(target: Order, finish: str, buying: bool, late: bool, partly: bool = False) -> CommunicationDraft:
    note = " We are bringing in extra material for it and will confirm once it has arrived." if buying else ""
    if partly:
        when = (
            f"We cannot make {target.due}: we can make part of it by {finish} and will plan the rest "
            "as soon as machine time frees up."
        )
    elif late:
        when = f"We cannot make {target.due}: we expect to finish it on {finish}."
    else:
        when = f"It is planned to be finished on {finish}, in time for {target.due}."
    return CommunicationDraft(
        audience="customer",
        to=target.customer_email,
        subject=f"Your order {target.id} is {'partly ' if partly else ''}planned for {finish}",
        body=(
            f"Hello {target.customer}, thank you for your order {target.id} of {target.quantity} x {target.product}. "
            f"{when}{note}"
        ),
    )


def draft_messages(
    state: ShopState,
    target: Order,
    changes: Sequence[ScheduleChange],
    procurement: Sequence[ProcurementAction],
    at_risk: Sequence[AtRisk],
) -> tuple[CommunicationDraft, ...]:
    """Drafts for the customer, the operator and each supplier (in that order). Never sent by the planner."""
    new = next(c.after for c in changes if c.order_id == target.id)
    finish = new[-1].day
    drafts = []
    if target.customer_email:
        risk = next((r for r in at_risk if r.order_id == target.id), None)
        partly = bool(risk and risk.unplaced_minutes)
        drafts.append(_customer(target, finish, bool(procurement), risk is not None, partly))
    if state.operator_email:
        lines = [f"Run {target.id} ({target.quantity} x {target.product}): {runs(new)}."]
        lines += [
            f"Move {c.order_id}: from {runs(c.before)} to {runs(c.after)}." for c in changes if c.order_id != target.id
        ]
        lines += [
            f"At risk: {r.order_id} (due {r.due}, {'partly planned, up to' if r.unplaced_minutes else 'finishes'} "
            f"{r.finish}): {r.detail}."
            for r in at_risk
        ]
        drafts.append(
            CommunicationDraft(
                audience="operator",
                to=state.operator_email,
                subject=f"Schedule change for {target.id} on {', '.join(sorted({a.machine for a in new}))}",
                body=" ".join(lines),
            )
        )
    for supplier in sorted({p.supplier_email for p in procurement}):
        mine = [p for p in procurement if p.supplier_email == supplier]
        drafts.append(
            CommunicationDraft(
                audience="supplier",
                to=supplier,
                subject="Purchase request: " + ", ".join(f"{p.quantity} {p.material_id}" for p in mine),
                body=" ".join(f"Please deliver {p.quantity} units of {p.material_id} by {p.needed_by}." for p in mine),
            )
        )
    return tuple(drafts)
