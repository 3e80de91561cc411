"""The plan a human approves, as content: blockers, schedule changes, procurement, orders at risk and
message drafts. Immutable and content-addressed: its canonical hash is the proposal's address, and every
read re-hashes (:func:`load_proposal`). Building one is :mod:`.propose`.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..canonical import canonical_bytes, content_hash, sha256_hex
from ..errors import IntegrityError
from ..shop.footprint import Footprint
from ..shop.model import Allocation, Day, Id, Language, Order
from .guidance import Overtime, Revision

PLANNER_VERSION = "planner-4"
# Proposals these versions wrote have no footprint: they are refused with this explanation, never guessed at.
RETIRED_PLANNER_VERSIONS = ("planner-1", "planner-2", "planner-3")


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


class HeldCapacity(_Frozen):
    """``minutes`` of ``machine`` on ``day`` booked by the open pending plan for order ``by``."""

    by: Id
    machine: Id
    day: Day
    minutes: int = Field(ge=1)

    def words(self) -> str:
        """``120 minutes on PRESS-A 2027-02-03 held by pending plan REQ-1A2B``."""
        return f"{self.minutes} minutes on {self.machine} {self.day} held by pending plan {self.by}"


class HeldStock(_Frozen):
    """``quantity`` of ``material`` reserved by the open pending plan for order ``by`` (its new order's use)."""

    by: Id
    material: Id
    quantity: int = Field(ge=1)

    def words(self) -> str:
        """``400 STEEL-12 reserved by pending plan REQ-1A2B``."""
        return f"{self.quantity} {self.material} reserved by pending plan {self.by}"


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


class GivenFacts(_Frozen):
    """Facts the person who started the run gave themselves (``start --product --quantity --due --customer``):
    each fills or replaces what the e-mail says. The proposal keeps them, with who gave them, so the approver
    sees which facts came from a person rather than from the customer's e-mail."""

    given_by: str = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f\x7f]+$")
    product: Id | None = None
    quantity: int | None = Field(default=None, ge=1, le=10_000_000)
    due: Day | None = None
    customer: str | None = Field(default=None, min_length=1, max_length=120, pattern=r"^[^\x00-\x1f\x7f]+$")
    # What the customer's e-mail said of a given fact when it said something else ("quantity": "400"), as the
    # rules read it; a fact the e-mail did not state, or stated the same, has no entry.
    email_said: dict[Literal["product", "quantity", "due", "customer"], str] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _without_empty_email_said(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Facts given where the e-mail said nothing else serialize (and hash) as they did before this field.
        data: dict[str, Any] = handler(self)
        if not data.get("email_said"):
            data.pop("email_said", None)
        return data

    def named(self) -> list[str]:
        """``'quantity 60'``-style words for each fact given, in a fixed order."""
        return [f"{name} {value}" for name, value in self.facts().items()]

    def facts(self) -> dict[str, str | int]:
        """The facts given, by name."""
        values = {"product": self.product, "quantity": self.quantity, "due": self.due, "customer": self.customer}
        return {name: value for name, value in values.items() if value is not None}


class CommunicationDraft(_Frozen):
    """One message to write: who it is for, where it goes, what it says, and (the customer's) the language it
    is written in, so the approver sees which text, in which language, will be sent."""

    audience: Literal["customer", "operator", "supplier"]
    to: str
    subject: str
    body: str
    language: Language | None = None

    @model_serializer(mode="wrap")
    def _without_absent_language(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A draft without a recorded language serializes (and hashes) as drafts did before the field existed.
        data: dict[str, Any] = handler(self)
        if data.get("language") is None:
            data.pop("language", None)
        return data


class ProposalContent(_Frozen):
    """The immutable content a human reviews; its canonical hash is the proposal's address.

    ``base_digest`` is the whole shop it was made on, ``footprint`` the part of the shop it reads and writes
    and ``footprint_digest`` that part when it was made. ``result_footprint_digest`` is that part after the
    plan applies (the same on any shop whose footprint is unchanged); ``result_digest`` the whole shop after
    it applies on the shop it was made on.
    """

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
    footprint: Footprint
    footprint_digest: str
    result_footprint_digest: str
    result_digest: str
    given: GivenFacts | None = None
    # A revised version: which one, what it supersedes, who asked for what (None: the request's first plan).
    revision: Revision | None = None
    # Overtime the plan adds to machines' calendars: applied with the plan, in its one write, never alone.
    calendar_changes: tuple[Overtime, ...] = ()
    # What other open pending plans held when it was made (domain/planning/holds.py): it was planned around them.
    held_capacity: tuple[HeldCapacity, ...] = ()
    held_stock: tuple[HeldStock, ...] = ()

    def to_canonical(self) -> dict[str, Any]:
        """Plain JSON data; list order is fixed by construction. A proposal without facts given by a person,
        without a revision, calendar changes or holds of other pending plans hashes as it did before those could
        be recorded."""
        data = self.model_dump(mode="json")
        for name in ("given", "revision"):
            if data.get(name) is None:
                data.pop(name, None)
        for name in ("calendar_changes", "held_capacity", "held_stock"):
            if not data.get(name):
                data.pop(name, None)
        return data

    @property
    def version(self) -> int:
        """1 for a request's first plan, then 2, 3... for each revision."""
        return self.revision.version if self.revision is not None else 1

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
        parts += [f"overtime {o.words()}" for o in self.calendar_changes]
        parts += [f"{r.order_id} at risk ({r.reason})" for r in self.at_risk]
        return "; ".join(parts) + "." + self.held_words()

    def held_words(self) -> str:
        """What it was planned around, as a sentence ('' when no other pending plan held anything it could use)."""
        if not (self.held_capacity or self.held_stock):
            return ""
        minutes = sum(h.minutes for h in self.held_capacity)
        by = sorted({h.by for h in self.held_capacity} | {h.by for h in self.held_stock})
        named = [h.words() for h in self.held_capacity[:3]] + [h.words() for h in self.held_stock[:3]]
        more = len(self.held_capacity) + len(self.held_stock) - len(named)
        return (
            f" Planned around what {len(by)} other pending plan{'s' if len(by) > 1 else ''} hold"
            f"{'' if len(by) > 1 else 's'} ({minutes} machine-minutes): "
            + "; ".join(named)
            + (f"; and {more} more" if more > 0 else "")
            + "."
        )


def _planner_version(data: bytes) -> str:
    try:
        version = json.loads(data).get("planner_version")
    except (ValueError, AttributeError):
        return ""
    return version if isinstance(version, str) else ""


def load_proposal(data: bytes, expected_hash: str) -> ProposalContent:
    """Parse stored proposal bytes, refusing unless they re-hash to ``expected_hash``."""
    if sha256_hex(data) != expected_hash:
        raise IntegrityError(f"stored proposal does not re-hash to {expected_hash}")
    version = _planner_version(data)
    if version in RETIRED_PLANNER_VERSIONS:
        raise IntegrityError(
            f"proposal {expected_hash} was made by {version}, which recorded no footprint; this version reads "
            f"{PLANNER_VERSION} proposals only: reject it and propose again"
        )
    try:
        return ProposalContent.model_validate_json(data)
    except ValueError as exc:
        raise IntegrityError(f"stored proposal {expected_hash} is not a valid proposal: {exc}") from None
