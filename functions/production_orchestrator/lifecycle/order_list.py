"""``order list``: every order of the shop with its status, and the requests whose plan waits beside it.

open orders -> scheduled | at risk (not scheduled, finishing after the due date, short of a material)
closed orders -> complete | cancelled (with the day and the reason)
pending checkpoints -> the request's order, its checkpoint and the approval's status. Reads only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..domain.planning.materials import ShopShortage
from ..domain.ports import ShopStore
from ..domain.records import Checkpoint
from ..domain.shop.model import ShopState
from .shop_life import existing_shortages, pending_checkpoints


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


_CLOSED = frozenset({"superseded", "rejected", "expired", "invalid", "no_approval"})


def pending_requests(store: ShopStore, now: datetime, status_of: Callable[[Checkpoint], str]) -> list[OrderRow]:
    """Each request whose plan waits for a decision, beside the shop (not one of its orders)."""
    from .evidence import review

    rows = []
    for checkpoint in pending_checkpoints(store, now):
        status = status_of(checkpoint)
        if status in _CLOSED:
            continue  # replaced by "propose again", or rejected on the page and not yet resumed
        _, proposal = review(store, checkpoint.checkpoint_id)
        target = proposal.target_order
        rows.append(
            OrderRow(
                order=target.id,
                customer=target.customer,
                product=target.product,
                quantity=target.quantity,
                due=target.due,
                status=status,
                detail=f"waits for the decision on checkpoint {checkpoint.checkpoint_id}",
                checkpoint=checkpoint.checkpoint_id,
            )
        )
    return rows


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
