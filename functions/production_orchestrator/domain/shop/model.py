"""The shop: machines with their calendars, materials, products, orders with their schedules, a revision.

Time is integer machine-minutes and ISO days, so hashed content never holds a float. Every list is sorted by its
id (schedules by day and machine): shop files that differ only in their arrays' order build equal states, one digest."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from itertools import pairwise
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from ..canonical import content_hash, without_empty
from ..limits import MAX_QUANTITY
from .days import add_days as add_days
from .days import check_day as check_day
from .days import day_range as day_range
from .days import parse_day as parse_day
from .days import plan_from
from .indexes import indexed, lookup, material_index, slot_index
from .overtime import Overtimed

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
EMAIL_PATTERN = re.compile(r"^[A-Za-z0-9._%+'-]{1,64}@[A-Za-z0-9.-]{1,190}\.[A-Za-z]{2,24}\Z")
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_MINUTES_PER_DAY = 24 * 60
DEFAULT_MIN_SPLIT_MINUTES = 60


def check_id(value: str) -> str:
    """``value`` if it is a valid id (``^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$``), else ``ValueError``."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise ValueError(f"{value!r} is not a valid id (1 to 64 letters, digits, '.', '_', '-'; starting alphanumeric)")
    return value


def _check_email(value: str) -> str:
    if not EMAIL_PATTERN.fullmatch(value):
        raise ValueError(f"{value!r} is not an e-mail address")
    return value


Id = Annotated[str, AfterValidator(check_id)]
Day = Annotated[str, AfterValidator(check_day)]
Email = Annotated[str, AfterValidator(_check_email)]
OptionalEmail = Annotated[str, AfterValidator(lambda value: value if value == "" else _check_email(value))]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def _unique_sorted(values: Iterable[Any], key: Any, what: str) -> tuple[Any, ...]:
    ordered = sorted(values, key=key)
    keys = [key(v) for v in ordered]
    for before, after in pairwise(keys):
        if before == after:
            raise ValueError(f"duplicate {what} {after!r}")
    return tuple(ordered)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Machine(_Frozen, Overtimed):
    """A machine: daily capacity, working days (all but ``closed_days`` unless ``weekdays``), ``overtime``."""

    id: Id
    minutes_per_day: int = Field(ge=1, le=MAX_MINUTES_PER_DAY)
    closed_days: tuple[Day, ...] = ()
    weekdays: tuple[Weekday, ...] | None = None

    @field_validator("closed_days")
    @classmethod
    def _closed(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(set(value)))

    @field_validator("weekdays")
    @classmethod
    def _weekdays(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if value is None else tuple(sorted(set(value), key=WEEKDAYS.index))

    def works_on(self, day: str) -> bool:
        """True when the machine runs on ``day`` (a working weekday that is not a closed day)."""
        if day in self.closed_days:
            return False
        return self.weekdays is None or WEEKDAYS[parse_day(day).weekday()] in self.weekdays


class Material(_Frozen):
    """A material: what is on hand, what is already ordered, and who supplies it how fast."""

    id: Id
    on_hand: int = Field(ge=0, le=2**53 - 1)  # kept exactly by every store (domain/shop/life.py MAX_AMOUNT)
    supplier_email: Email
    lead_time_days: int = Field(ge=0, le=365)
    on_order: int = Field(default=0, ge=0, le=2**53 - 1)


class MaterialPerUnit(_Frozen):
    """How much of one material a unit of a product uses."""

    id: Id
    per_unit: int = Field(ge=1)


class Product(_Frozen):
    """A product: the machines that can make it, minutes per unit and materials per unit."""

    code: Id
    description: str = Field(min_length=1, max_length=200)
    machines: tuple[Id, ...] = Field(min_length=1)
    minutes_per_unit: int = Field(ge=1, le=MAX_MINUTES_PER_DAY)
    materials: tuple[MaterialPerUnit, ...] = ()
    aliases: tuple[Annotated[str, Field(min_length=1, max_length=200)], ...] = Field(default=(), max_length=50)

    @model_serializer(mode="wrap")
    def _without_absent_aliases(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return without_empty(handler(self), "aliases")  # other names customers use; none: hashed as before

    @field_validator("machines")
    @classmethod
    def _machines(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _unique_sorted(value, lambda m: m, "machine")

    @field_validator("materials")
    @classmethod
    def _materials(cls, value: tuple[MaterialPerUnit, ...]) -> tuple[MaterialPerUnit, ...]:
        return _unique_sorted(value, lambda m: m.id, "material")


class Allocation(_Frozen):
    """Minutes of one order on one machine on one day."""

    machine: Id
    day: Day
    minutes: int = Field(ge=1, le=MAX_MINUTES_PER_DAY)


def sorted_schedule(allocations: Iterable[Allocation]) -> tuple[Allocation, ...]:
    """Allocations in their canonical order (day, then machine); one per machine and day."""
    return _unique_sorted(allocations, lambda a: (a.day, a.machine), "allocation (day, machine)")


Language = Literal["en", "de", "fr", "es", "nl"]
LANGUAGES: tuple[Language, ...] = ("en", "de", "fr", "es", "nl")


class Order(_Frozen):
    """A customer order. An empty ``schedule`` means not yet scheduled. ``language``: the language the customer
    wrote the request in (messages to them are written in it); absent for orders that did not come by e-mail."""

    id: Id
    customer: str = Field(min_length=1, max_length=120)
    customer_email: OptionalEmail = ""
    product: Id
    quantity: int = Field(ge=1, le=MAX_QUANTITY)
    due: Day
    priority: int = Field(ge=1, le=100)
    schedule: tuple[Allocation, ...] = ()
    language: Language | None = None
    asked_priority: str = Field(default="", max_length=40)  # the customer's own "Priority:", when not trusted
    reference: str = Field(default="", max_length=40, pattern=r"^(?:[A-Za-z0-9][A-Za-z0-9/#_.-]{0,39})?$")

    @model_serializer(mode="wrap")
    def _without_absent_language(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # An order without a recorded language (reference...) serializes and hashes as before the field existed.
        data: dict[str, Any] = without_empty(handler(self), "asked_priority", "reference")
        if data.get("language") is None:
            data.pop("language", None)
        return data

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, value: tuple[Allocation, ...]) -> tuple[Allocation, ...]:
        return sorted_schedule(value)

    @property
    def scheduled_minutes(self) -> int:
        """Machine-minutes on the schedule."""
        return sum(a.minutes for a in self.schedule)

    @property
    def first_day(self) -> str | None:
        """The first scheduled day (when its materials are used), or None when unscheduled."""
        return self.schedule[0].day if self.schedule else None

    @property
    def last_day(self) -> str | None:
        """The last scheduled day (when it is finished), or None when unscheduled."""
        return self.schedule[-1].day if self.schedule else None


class ClosedOrder(_Frozen):
    """An order that left the schedule: ``complete`` (made) or ``cancelled`` (with the reason), on ``closed_on``.

    Kept apart from ``ShopState.orders`` so nothing that plans or books capacity ever sees it again; the order
    is kept as it was when it closed (its schedule says what it had booked).
    """

    order: Order
    status: Literal["complete", "cancelled"]
    closed_on: Day
    reason: str = Field(default="", max_length=500)


class ProcurementTask(_Frozen):
    """A purchase the shop committed to when a plan applied: counted as incoming from then on."""

    material: Id
    quantity: int = Field(ge=1)
    needed_by: Day
    supplier_email: Email


class ShopState(_Frozen):
    """The whole domain state. Its canonical hash is the domain digest; audit events are not part of it."""

    name: str = Field(min_length=1, max_length=120)
    timezone: str = Field(min_length=1, max_length=64)
    operator_email: OptionalEmail = ""
    revision: int = Field(default=1, ge=1)
    machines: tuple[Machine, ...]
    materials: tuple[Material, ...] = ()
    products: tuple[Product, ...]
    orders: tuple[Order, ...] = ()
    procurement: tuple[ProcurementTask, ...] = ()
    # "footprint" (the default name of the re-validation rule) or "any-change" (the strict rule): staleness.md.
    staleness: Literal["footprint", "any-change"] = "footprint"
    planning_cutoff: str | None = Field(default=None, pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")  # days.py
    closed_orders: tuple[ClosedOrder, ...] = ()
    min_split_minutes: int = Field(default=DEFAULT_MIN_SPLIT_MINUTES, ge=1, le=MAX_MINUTES_PER_DAY)
    priority_from: tuple[Annotated[str, Field(min_length=2, max_length=254)], ...] = Field(default=(), max_length=200)

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        zone(value)
        return value

    @field_validator("machines")
    @classmethod
    def _machines(cls, value: tuple[Machine, ...]) -> tuple[Machine, ...]:
        return _unique_sorted(value, lambda m: m.id, "machine")

    @field_validator("materials")
    @classmethod
    def _materials(cls, value: tuple[Material, ...]) -> tuple[Material, ...]:
        return _unique_sorted(value, lambda m: m.id, "material")

    @field_validator("products")
    @classmethod
    def _products(cls, value: tuple[Product, ...]) -> tuple[Product, ...]:
        return _unique_sorted(value, lambda p: p.code, "product")

    @field_validator("orders")
    @classmethod
    def _orders(cls, value: tuple[Order, ...]) -> tuple[Order, ...]:
        return _unique_sorted(value, lambda o: o.id, "order")

    @field_validator("closed_orders")
    @classmethod
    def _closed_orders(cls, value: tuple[ClosedOrder, ...]) -> tuple[ClosedOrder, ...]:
        return _unique_sorted(value, lambda c: c.order.id, "closed order")

    @model_validator(mode="after")
    def _open_or_closed(self) -> ShopState:
        both = {o.id for o in self.orders} & {c.order.id for c in self.closed_orders}
        if both:
            raise ValueError(f"order {sorted(both)[0]!r} is both open and closed")
        return self

    @field_validator("procurement")
    @classmethod
    def _procurement(cls, value: tuple[ProcurementTask, ...]) -> tuple[ProcurementTask, ...]:
        return tuple(sorted(value, key=procurement_key))

    def min_part(self, order_minutes: int) -> int:
        """The least minutes a plan may put in one part of an order of ``order_minutes`` (rules.min_part)."""
        return max(1, min(self.min_split_minutes, order_minutes))

    def today(self, now: datetime) -> str:
        """The calendar day ``now`` falls on in the shop's time zone."""
        return now.astimezone(zone(self.timezone)).date().isoformat()

    def planning_day(self, now: datetime) -> str:
        """The default planning day at ``now``: today, or tomorrow from the shop's ``planning_cutoff`` on."""
        return plan_from(now.astimezone(zone(self.timezone)), self.planning_cutoff)

    def to_canonical(self) -> dict[str, Any]:
        """The state as plain JSON data; every list is already in its defined order.

        The default staleness rule and minimum split are left out, and ``closed_orders`` while empty, so a shop
        that never chose them keeps the digest it had before they existed (and every proposal made on it its
        hash)."""
        data = self.model_dump(mode="json")
        for name, default in (("staleness", "footprint"), ("min_split_minutes", DEFAULT_MIN_SPLIT_MINUTES)):
            if data[name] == default:
                del data[name]
        return without_empty(data, "closed_orders", "priority_from", "planning_cutoff")

    def digest(self) -> str:
        """``sha256(canonical(shop state))``."""
        return content_hash(self.to_canonical())

    def order(self, order_id: str) -> Order | None:
        """The order with ``order_id``, if any."""
        return lookup(self.orders, "order", lambda o: o.id).get(order_id)

    def closed_order(self, order_id: str) -> ClosedOrder | None:
        """The closed (complete or cancelled) order with ``order_id``, if any."""
        return lookup(self.closed_orders, "closed", lambda c: c.order.id).get(order_id)

    def machine(self, machine_id: str) -> Machine | None:
        """The machine with ``machine_id``, if any."""
        return lookup(self.machines, "machine", lambda m: m.id).get(machine_id)

    def material(self, material_id: str) -> Material | None:
        """The material with ``material_id``, if any."""
        return lookup(self.materials, "material", lambda m: m.id).get(material_id)

    def product(self, code: str) -> Product | None:
        """The product with ``code``, if any."""
        return lookup(self.products, "product", lambda p: p.code).get(code)

    def slot_bookings(self, machine_id: str, day: str) -> tuple[tuple[str, int], ...]:
        """(order id, minutes) of every open order booked on ``machine_id`` on ``day``, by order id."""
        index: dict[tuple[str, str], tuple[tuple[str, int], ...]] = indexed("slot", (self.orders,), slot_index)
        return index.get((machine_id, day), ())

    def material_uses(self, material_id: str) -> tuple[tuple[str, str, int], ...]:
        """(order id, first day, amount) of every scheduled open order whose product uses ``material_id``."""
        index: dict[str, tuple[tuple[str, str, int], ...]] = indexed(
            "uses", (self.orders, self.products), material_index
        )
        return index.get(material_id, ())

    def booked_minutes(self, machine_id: str, day: str) -> int:
        """Machine-minutes scheduled on ``machine_id`` for ``day``."""
        return sum(minutes for _, minutes in self.slot_bookings(machine_id, day))

    def with_orders(self, changed: Iterable[Order]) -> ShopState:
        """A copy holding ``changed`` orders (each replacing the one with its id, or added)."""
        by_id = dict(lookup(self.orders, "order", lambda o: o.id))
        by_id.update((o.id, o) for o in changed)
        return self.model_copy(update={"orders": tuple(by_id[k] for k in sorted(by_id))})

    def with_order(self, order: Order) -> ShopState:
        """A copy holding ``order`` (replacing one with the same id)."""
        return self.with_orders((order,))

    def with_inventory(self, material_id: str, quantity: int) -> ShopState:
        """A copy with ``material_id`` counted at ``quantity`` on hand (the operator's out-of-band change)."""
        check_id(material_id)
        if quantity < 0:
            raise ValueError("quantity must be zero or more")
        if self.material(material_id) is None:
            known = ", ".join(m.id for m in self.materials) or "none"
            raise ValueError(f"unknown material {material_id!r} (known: {known})")
        materials = tuple(
            m.model_copy(update={"on_hand": quantity}) if m.id == material_id else m for m in self.materials
        )
        return self.model_copy(update={"materials": materials})


def zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``Europe/Berlin``); ``ValueError`` for an unknown one."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{name!r} is not a known IANA time zone (like Europe/Berlin)") from None


def procurement_key(task: ProcurementTask) -> tuple[str, str, str, int]:
    """The canonical order of procurement tasks."""
    return (task.material, task.needed_by, task.supplier_email, task.quantity)


def hours(minutes: int) -> str:
    """Minutes as a short hours string for people: 240 -> '4h', 90 -> '1h30'."""
    whole, rest = divmod(minutes, 60)
    if rest == 0:
        return f"{whole}h"
    return f"{whole}h{rest:02d}" if whole else f"{rest}min"


def runs(allocations: Sequence[Allocation]) -> str:
    """``EMB-01 on 2026-08-12 (4h), EMB-02 on 2026-08-13 (1h30)``."""
    return ", ".join(f"{a.machine} on {a.day} ({hours(a.minutes)})" for a in allocations) or "nothing"
