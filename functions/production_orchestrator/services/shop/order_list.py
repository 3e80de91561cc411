"""``order list``: every order of the shop with its status, and the requests whose plan waits beside it.

open orders -> scheduled | at risk (not scheduled, finishing after the due date, short of a material)
closed orders -> complete | cancelled (with the day and the reason)
open runs -> the request's order, its checkpoint and its status (services/runs/requests). Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...domain.planning.materials import ShopShortage
from ...domain.shop.model import ShopState
from ..runs.requests import pending_requests
from ..runtime import Runtime
from .life import existing_shortages


@dataclass(frozen=True)
class OrderRow:
    """One line of ``order list``: an order of the shop, or a request waiting for its plan's decision."""

    order: str
    customer: str
    product: str
    quantity: int
    due: str
    status: str  # scheduled | at risk | complete | cancelled | pending (| decided: approved, not yet applied)
    detail: str
    checkpoint: str = ""


def _risk(state: ShopState, order_id: str, lines: list[ShopShortage]) -> str:
    order = state.order(order_id)
    assert order is not None
    if not order.schedule:
        return "not scheduled"
    reasons = []
    if order.last_day is not None and order.last_day > order.due:
        reasons.append(f"finishes {order.last_day}, after its due date {order.due}")
    for line in lines:
        if order.id in line.late:
            reasons.append(f"short of {line.material}, which can arrive by {line.arrives} at the earliest")
        elif order.id in line.orders:
            reasons.append(f"short of {line.material} (the shop lacks {line.quantity} from {line.needed_by})")
    return "; ".join(reasons)


def pending_rows(rt: Runtime) -> list[OrderRow]:
    """Each request whose plan waits for a decision, beside the shop: the same requests ``shop show`` lists
    (:func:`services.runs.requests.pending_requests`, the one reader of runs' requests)."""
    return [
        OrderRow(
            order=held.order.id,
            customer=held.customer,
            product=held.order.product,
            quantity=held.order.quantity,
            due=held.order.due,
            status=held.status,
            detail=f"waits for the decision on checkpoint {held.checkpoint_id}",
            checkpoint=held.checkpoint_id,
        )
        for held in pending_requests(rt)
    ]


def order_rows(state: ShopState, today: str, pending: list[OrderRow]) -> list[OrderRow]:
    """Every order with its status (scheduled, at risk, complete, cancelled), then the pending requests."""
    lines = existing_shortages(state, today)
    waiting = {row.order for row in pending}
    rows = []
    for order in state.orders:
        if order.id in waiting:
            continue  # a request's order taken in at start: it is listed as the pending request it is
        risk = _risk(state, order.id, lines)
        where = f"{order.first_day} to {order.last_day}" if order.schedule else ""
        rows.append(
            OrderRow(
                order=order.id,
                customer=order.customer,
                product=order.product,
                quantity=order.quantity,
                due=order.due,
                status="at risk" if risk else "scheduled",
                detail=risk or f"scheduled {where}",
            )
        )
    for closed in state.closed_orders:
        detail = f"{closed.status} on {closed.closed_on}" + (f": {closed.reason}" if closed.reason else "")
        o = closed.order
        rows.append(OrderRow(o.id, o.customer, o.product, o.quantity, o.due, closed.status, detail))
    return rows + pending
