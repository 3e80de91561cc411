"""Blocker analysis, plan construction and communication drafts: the tools compute the plan, not the model.

Everything here is a pure function of the shop state, so the same scenario on a fresh shop always yields
the same proposal and the same proposal hash.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .canonical import canonical_bytes, content_hash
from .errors import IntegrityError, PlanningError
from .shop import Order, ProcurementTask, ShopState, hours

PLANNER_VERSION = "planner-1"
OPERATOR_ADDRESS = "floor-lead@shop.example"
SUPPLIER_ADDRESS = "orders@threadworks-supply.example"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class InventoryShortage(_Frozen):
    kind: Literal["inventory_shortage"] = "inventory_shortage"
    material_id: str
    required: int
    available: int
    shortfall: int


class CapacityConflict(_Frozen):
    kind: Literal["capacity_conflict"] = "capacity_conflict"
    machine_id: str
    day: str
    required_minutes: int
    available_minutes: int
    related_orders: tuple[str, ...]


Blocker = InventoryShortage | CapacityConflict


class ScheduleChange(_Frozen):
    order_id: str
    machine_id: str
    from_day: str | None
    to_day: str


class ProcurementAction(_Frozen):
    material_id: str
    quantity: int
    needed_by: str


class CommunicationDraft(_Frozen):
    audience: Literal["customer", "operator", "supplier"]
    to: str
    subject: str
    body: str


class ProposalContent(_Frozen):
    """The immutable content a human reviews; its canonical hash is the proposal's address."""

    planner_version: str
    base_revision: int
    target_order: Order
    evidence: tuple[InventoryShortage | CapacityConflict, ...]
    schedule_changes: tuple[ScheduleChange, ...]
    procurement_actions: tuple[ProcurementAction, ...]
    communication_drafts: tuple[CommunicationDraft, ...]

    def to_canonical(self) -> dict[str, Any]:
        """Plain JSON data; list order is fixed by construction."""
        return self.model_dump(mode="json")

    def proposal_hash(self) -> str:
        """``sha256(canonical(content))``."""
        return content_hash(self.to_canonical())

    def to_bytes(self) -> bytes:
        """The exact bytes stored under the proposal hash."""
        return canonical_bytes(self.to_canonical())

    def summary(self) -> str:
        """One paragraph a shop owner can read."""
        moves = [c for c in self.schedule_changes if c.from_day is not None]
        parts = [f"Schedule {self.target_order.order_id} on {self.target_order.requested_day}"]
        parts += [f"move {c.order_id} from {c.from_day} to {c.to_day}" for c in moves]
        parts += [f"procure {a.quantity} {a.material_id}" for a in self.procurement_actions]
        return "; ".join(parts) + "."


def load_proposal(data: bytes, expected_hash: str) -> ProposalContent:
    """Parse stored proposal bytes, refusing unless they re-hash to ``expected_hash``."""
    from .canonical import sha256_hex

    if sha256_hex(data) != expected_hash:
        raise IntegrityError(f"stored proposal does not re-hash to {expected_hash}")
    try:
        return ProposalContent.model_validate_json(data)
    except ValueError as exc:
        raise IntegrityError(f"stored proposal {expected_hash} is not a valid proposal: {exc}") from None


def _target(state: ShopState, order_id: str) -> Order:
    order = state.order(order_id)
    if order is None:
        raise PlanningError(f"order {order_id} is not in the shop; take the customer request in first")
    if order.scheduled_day is not None:
        raise PlanningError(f"order {order_id} is already scheduled for {order.scheduled_day}; nothing to plan")
    return order


def analyze_blockers(state: ShopState, order_id: str) -> tuple[Blocker, ...]:
    """What stops ``order_id`` from being produced on its requested day: shortages, then capacity."""
    target = _target(state, order_id)
    blockers: list[Blocker] = []
    for use in sorted(target.materials, key=lambda u: u.material_id):
        committed = sum(
            o.uses(use.material_id)
            for o in state.orders
            if o.scheduled_day is not None and o.order_id != target.order_id
        )
        incoming = sum(p.quantity for p in state.procurement if p.material_id == use.material_id)
        available = max(0, state.inventory.get(use.material_id, 0) - committed + incoming)
        if available < use.quantity:
            blockers.append(
                InventoryShortage(
                    material_id=use.material_id,
                    required=use.quantity,
                    available=available,
                    shortfall=use.quantity - available,
                )
            )
    machine = state.machine(target.machine_id)
    if machine is None:
        raise PlanningError(f"machine {target.machine_id} of order {order_id} does not exist")
    booked = state.booked_minutes(machine.machine_id, target.requested_day, excluding=target.order_id)
    if booked + target.machine_minutes > machine.minutes_per_day:
        related = tuple(
            sorted(
                o.order_id
                for o in state.orders
                if o.machine_id == machine.machine_id
                and o.scheduled_day == target.requested_day
                and o.order_id != target.order_id
            )
        )
        blockers.append(
            CapacityConflict(
                machine_id=machine.machine_id,
                day=target.requested_day,
                required_minutes=booked + target.machine_minutes,
                available_minutes=machine.minutes_per_day,
                related_orders=related,
            )
        )
    return tuple(blockers)


def _free_capacity(state: ShopState, target: Order) -> tuple[ScheduleChange, ...]:
    """Move the lowest-priority work off the target's day, to the next day that fits, until it fits."""
    machine = state.machine(target.machine_id)
    assert machine is not None  # checked by analyze_blockers
    day = target.requested_day
    booked = {d: state.booked_minutes(machine.machine_id, d, excluding=target.order_id) for d in state.days}
    candidates = sorted(
        (
            o
            for o in state.orders
            if o.machine_id == machine.machine_id and o.scheduled_day == day and o.priority < target.priority
        ),
        key=lambda o: (o.priority, o.order_id),
    )
    later_days = [d for d in state.days if d > day]
    moves: list[ScheduleChange] = []
    for order in candidates:
        if booked[day] + target.machine_minutes <= machine.minutes_per_day:
            break
        to_day = next((d for d in later_days if booked[d] + order.machine_minutes <= machine.minutes_per_day), None)
        if to_day is None:
            continue
        booked[day] -= order.machine_minutes
        booked[to_day] += order.machine_minutes
        moves.append(
            ScheduleChange(order_id=order.order_id, machine_id=machine.machine_id, from_day=day, to_day=to_day)
        )
    if booked[day] + target.machine_minutes > machine.minutes_per_day:
        raise PlanningError(
            f"{machine.machine_id} cannot fit {target.order_id} on {day}: "
            "not enough lower-priority work can move to a later day in the window"
        )
    return tuple(sorted(moves, key=lambda c: c.order_id))


def draft_messages(
    target: Order, moves: tuple[ScheduleChange, ...], procurement: tuple[ProcurementAction, ...]
) -> tuple[CommunicationDraft, ...]:
    """Drafts for the customer, the machine operator and (when buying) the supplier. Never sent by us."""
    material_note = (
        " We are bringing in extra thread for it and will confirm once it has arrived." if procurement else ""
    )
    drafts = [
        CommunicationDraft(
            audience="customer",
            to=target.customer_email,
            subject=f"Your order {target.order_id} is planned for {target.requested_day}",
            body=(
                f"Hello {target.customer}, your {target.quantity} x {target.product_code} "
                f"(order {target.order_id}) is planned for production on {target.requested_day}."
                f"{material_note}"
            ),
        ),
        CommunicationDraft(
            audience="operator",
            to=OPERATOR_ADDRESS,
            subject=f"Schedule change on {target.machine_id} for {target.requested_day}",
            body=" ".join(
                [f"Run {target.order_id} ({hours(target.machine_minutes)}) on {target.requested_day}."]
                + [f"Move {m.order_id} from {m.from_day} to {m.to_day}." for m in moves]
            ),
        ),
    ]
    if procurement:
        drafts.append(
            CommunicationDraft(
                audience="supplier",
                to=SUPPLIER_ADDRESS,
                subject="Purchase request: " + ", ".join(f"{p.quantity} {p.material_id}" for p in procurement),
                body=" ".join(
                    f"Please deliver {p.quantity} units of {p.material_id} by {p.needed_by}." for p in procurement
                ),
            )
        )
    return tuple(drafts)


def build_proposal(state: ShopState, order_id: str) -> ProposalContent:
    """The complete plan for ``order_id`` against ``state``: deterministic, no times, no ids."""
    target = _target(state, order_id)
    blockers = analyze_blockers(state, order_id)
    moves = _free_capacity(state, target) if any(isinstance(b, CapacityConflict) for b in blockers) else ()
    procurement = tuple(
        ProcurementAction(material_id=b.material_id, quantity=b.shortfall, needed_by=target.requested_day)
        for b in blockers
        if isinstance(b, InventoryShortage)
    )
    changes = (
        *moves,
        ScheduleChange(
            order_id=target.order_id, machine_id=target.machine_id, from_day=None, to_day=target.requested_day
        ),
    )
    return ProposalContent(
        planner_version=PLANNER_VERSION,
        base_revision=state.revision,
        target_order=target,
        evidence=blockers,
        schedule_changes=changes,
        procurement_actions=procurement,
        communication_drafts=draft_messages(target, moves, procurement),
    )


def apply_proposal(state: ShopState, proposal: ProposalContent, proposal_hash: str) -> ShopState:
    """The state after ``proposal`` applies: schedule updated, procurement committed, revision + 1."""
    if state.revision != proposal.base_revision:
        raise PlanningError(f"proposal was built on revision {proposal.base_revision}, the shop is at {state.revision}")
    orders = {o.order_id: o for o in state.orders}
    if orders.get(proposal.target_order.order_id) != proposal.target_order:
        raise PlanningError(f"order {proposal.target_order.order_id} changed since the proposal was built")
    for change in proposal.schedule_changes:
        order = orders.get(change.order_id)
        if order is None or order.scheduled_day != change.from_day:
            raise PlanningError(f"order {change.order_id} is no longer where the proposal expects it")
        orders[change.order_id] = order.model_copy(update={"scheduled_day": change.to_day})
    tasks = tuple(
        ProcurementTask(
            material_id=a.material_id, quantity=a.quantity, needed_by=a.needed_by, proposal_hash=proposal_hash
        )
        for a in proposal.procurement_actions
    )
    return state.model_copy(
        update={
            "orders": tuple(sorted(orders.values(), key=lambda o: o.order_id)),
            "procurement": state.procurement + tasks,
            "revision": state.revision + 1,
        }
    )
