"""The shop: orders, inventory, machines, schedule, procurement tasks and a revision.

Capacity is kept in integer machine-minutes (8 h = 480 min) so hashed content never holds a float.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .canonical import content_hash

ORDER_ID_PATTERN = re.compile(r"^[A-Z][A-Z0-9]{1,15}-[0-9]{1,6}$")
MATERIAL_ID_PATTERN = re.compile(r"^THREAD-[A-Z]{2,12}-[0-9]{2,3}$")
DAY_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class MaterialUse(_Frozen):
    """How much of one material an order consumes."""

    material_id: str
    quantity: int = Field(gt=0)


class Order(_Frozen):
    """A customer order. ``scheduled_day`` is None until the order is on the schedule."""

    order_id: str
    customer: str
    customer_email: str
    product_code: str
    quantity: int = Field(gt=0)
    priority: int = Field(ge=1, le=100)
    requested_day: str
    machine_id: str
    machine_minutes: int = Field(gt=0)
    materials: tuple[MaterialUse, ...]
    scheduled_day: str | None = None

    @field_validator("order_id")
    @classmethod
    def _order_id(cls, value: str) -> str:
        if not ORDER_ID_PATTERN.match(value):
            raise ValueError(f"malformed order id {value!r}")
        return value

    def uses(self, material_id: str) -> int:
        """Units of ``material_id`` this order consumes."""
        return sum(use.quantity for use in self.materials if use.material_id == material_id)


class Machine(_Frozen):
    """A production machine and its daily capacity."""

    machine_id: str
    minutes_per_day: int = Field(gt=0)


class ProcurementTask(_Frozen):
    """A purchase the shop has committed to (created when a plan applies)."""

    material_id: str
    quantity: int = Field(gt=0)
    needed_by: str
    proposal_hash: str


class ShopState(_Frozen):
    """The whole domain state. Its canonical hash is the domain digest; audit events are not part of it."""

    scenario: str
    days: tuple[str, ...]
    revision: int = Field(ge=1)
    inventory: dict[str, int]
    machines: tuple[Machine, ...]
    orders: tuple[Order, ...]
    procurement: tuple[ProcurementTask, ...] = ()

    def to_canonical(self) -> dict[str, Any]:
        """The state as plain JSON data with every list in a defined order."""
        data = self.model_dump(mode="json")
        data["machines"] = sorted(data["machines"], key=lambda m: m["machine_id"])
        data["orders"] = sorted(data["orders"], key=lambda o: o["order_id"])
        data["procurement"] = sorted(
            data["procurement"], key=lambda p: (p["proposal_hash"], p["material_id"], p["needed_by"])
        )
        return data

    def digest(self) -> str:
        """``sha256(canonical(shop state))``."""
        return content_hash(self.to_canonical())

    def order(self, order_id: str) -> Order | None:
        """The order with ``order_id``, if any."""
        return next((o for o in self.orders if o.order_id == order_id), None)

    def machine(self, machine_id: str) -> Machine | None:
        """The machine with ``machine_id``, if any."""
        return next((m for m in self.machines if m.machine_id == machine_id), None)

    def booked_minutes(self, machine_id: str, day: str, *, excluding: str | None = None) -> int:
        """Machine-minutes already scheduled on ``machine_id`` for ``day``."""
        return sum(
            o.machine_minutes
            for o in self.orders
            if o.machine_id == machine_id and o.scheduled_day == day and o.order_id != excluding
        )

    def with_order(self, order: Order) -> ShopState:
        """A copy holding ``order`` (replacing one with the same id)."""
        others = tuple(o for o in self.orders if o.order_id != order.order_id)
        return self.model_copy(update={"orders": tuple(sorted((*others, order), key=lambda o: o.order_id))})

    def with_inventory(self, material_id: str, quantity: int) -> ShopState:
        """A copy with ``material_id`` counted at ``quantity`` (the operator's out-of-band change)."""
        if not MATERIAL_ID_PATTERN.match(material_id):
            raise ValueError(f"malformed material id {material_id!r} (expected THREAD-<COLOR>-<WEIGHT>)")
        if quantity < 0:
            raise ValueError("quantity must be zero or more")
        inventory = dict(self.inventory)
        inventory[material_id] = quantity
        return self.model_copy(update={"inventory": inventory})


def hours(minutes: int) -> str:
    """Minutes as a short hours string for people: 240 -> '4h', 90 -> '1.5h'."""
    whole, rest = divmod(minutes, 60)
    return f"{whole}h" if rest == 0 else f"{minutes / 60:.1f}h"
