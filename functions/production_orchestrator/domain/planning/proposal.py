"""The plan a human approves, as content: blockers, schedule changes, procurement, orders at risk and
message drafts. Immutable and content-addressed: its canonical hash is the proposal's address, and every
read re-hashes (:func:`load_proposal`). Building one is :mod:`.propose`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..canonical import canonical_bytes, content_hash, sha256_hex
from ..errors import IntegrityError
from ..shop.model import Allocation, Order


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class InventoryShortage(_Frozen):
    """The new order needs more of a material than the scheduled orders leave; more can be in by ``arrives``."""

    kind: Literal["inventory_shortage"] = "inventory_shortage"
    material_id: str
    required: int
    available: int
    shortfall: int
    arrives: str


class CapacityConflict(_Frozen):
    """The machines the product allows are too booked between the earliest start and the due date.

    ``machine_days`` working machine-days from ``first_day`` to ``last_day`` have ``available_minutes``;
    the new order's ``order_minutes`` and what ``related_orders`` booked there add up to ``required_minutes``.
    """

    kind: Literal["capacity_conflict"] = "capacity_conflict"
    machines: tuple[str, ...]
    first_day: str
    last_day: str
    machine_days: int
    order_minutes: int
    required_minutes: int
    available_minutes: int
    related_orders: tuple[str, ...]


Blocker = InventoryShortage | CapacityConflict


class ScheduleChange(_Frozen):
    """An order's schedule before and after the plan (``before`` is empty for the new order)."""

    order_id: str
    before: tuple[Allocation, ...]
    after: tuple[Allocation, ...]


class ProcurementAction(_Frozen):
    """Buy ``quantity`` of a material from its supplier, needed by the first day an order uses it."""

    material_id: str
    quantity: int
    needed_by: str
    supplier_email: str


class AtRisk(_Frozen):
    """An order the plan cannot finish by its due date, or whose material cannot arrive in time.

    ``unplaced_minutes`` of the new order found no room in the planning horizon: ``finish`` is then the
    last day of what is placed, and the rest needs a later plan.
    """

    order_id: str
    due: str
    finish: str
    reason: Literal["capacity", "material"]
    detail: str
    blocking_orders: tuple[str, ...] = ()
    unplaced_minutes: int = 0


class CommunicationDraft(_Frozen):
    """One message to write: who it is for, where it goes, what it says."""

    audience: Literal["customer", "operator", "supplier"]
    to: str
    subject: str
    body: str


class ProposalContent(_Frozen):
    """The immutable content a human reviews; its canonical hash is the proposal's address."""

    planner_version: str
    planned_by: Literal["solver", "greedy"] = "greedy"  # which planner produced the schedule changes
    base_revision: int
    base_digest: str
    planning_day: str
    horizon_days: int
    request_text: str
    target_order: Order
    evidence: tuple[InventoryShortage | CapacityConflict, ...]
    schedule_changes: tuple[ScheduleChange, ...]
    procurement_actions: tuple[ProcurementAction, ...]
    at_risk: tuple[AtRisk, ...]
    communication_drafts: tuple[CommunicationDraft, ...]
    result_digest: str

    def to_canonical(self) -> dict[str, Any]:
        """Plain JSON data; list order is fixed by construction."""
        return self.model_dump(mode="json")

    def proposal_hash(self) -> str:
        """``sha256(canonical(content))``."""
        return content_hash(self.to_canonical())

    def to_bytes(self) -> bytes:
        """The exact bytes stored under the proposal hash."""
        return canonical_bytes(self.to_canonical())

    def new_schedule(self) -> tuple[Allocation, ...]:
        """Where the new order runs."""
        change = next((c for c in self.schedule_changes if c.order_id == self.target_order.id), None)
        return change.after if change else ()

    def summary(self) -> str:
        """One paragraph a shop owner can read."""
        runs = ", ".join(f"{a.machine} {a.day} {a.minutes} min" for a in self.new_schedule())
        parts = [f"Schedule {self.target_order.id} ({runs})"]
        moved = [c.order_id for c in self.schedule_changes if c.order_id != self.target_order.id]
        if moved:
            parts.append(f"move {', '.join(moved)}")
        parts += [f"procure {a.quantity} {a.material_id} by {a.needed_by}" for a in self.procurement_actions]
        parts += [f"{r.order_id} at risk ({r.reason})" for r in self.at_risk]
        return "; ".join(parts) + "."


def load_proposal(data: bytes, expected_hash: str) -> ProposalContent:
    """Parse stored proposal bytes, refusing unless they re-hash to ``expected_hash``."""
    if sha256_hex(data) != expected_hash:
        raise IntegrityError(f"stored proposal does not re-hash to {expected_hash}")
    try:
        return ProposalContent.model_validate_json(data)
    except ValueError as exc:
        raise IntegrityError(f"stored proposal {expected_hash} is not a valid proposal: {exc}") from None
