"""Intake of a customer request from an e-mail, validated fail-closed against the catalog."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .errors import IntakeError
from .scenarios import CatalogItem
from .shop import ORDER_ID_PATTERN, MaterialUse, Order

_FIELDS = {
    "from": "sender",
    "customer": "customer",
    "order": "order_id",
    "product": "product_code",
    "quantity": "quantity",
    "needed by": "requested_day",
    "priority": "priority",
}
_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z ]{0,20}?)\s*:\s*(.*?)\s*$")
_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,190}\.[A-Za-z]{2,24}$")
_INT = re.compile(r"^[+-]?\d{1,9}$")
MAX_EMAIL_CHARS = 20_000


def parse_customer_email(text: str, catalog: Mapping[str, CatalogItem], days: Sequence[str]) -> Order:
    """Turn a customer e-mail into an unscheduled :class:`Order`, or raise :class:`IntakeError`.

    Every field must be present exactly once and valid; nothing is guessed or defaulted.
    """
    found = _fields(text)
    sender = found["sender"].strip("<>")
    if not _EMAIL.match(sender):
        raise IntakeError(f"sender {sender!r} is not an e-mail address")
    customer = found["customer"]
    if not 1 <= len(customer) <= 80 or not customer.isprintable():
        raise IntakeError("customer name must be 1 to 80 printable characters")
    order_id = found["order_id"]
    if not ORDER_ID_PATTERN.match(order_id):
        raise IntakeError(f"order id {order_id!r} is malformed (expected like RUSH-200)")
    item = catalog.get(found["product_code"])
    if item is None:
        raise IntakeError(f"product {found['product_code']!r} is not in the catalog")
    quantity = _quantity(found["quantity"], item.max_quantity)
    day = found["requested_day"]
    if day not in days:
        raise IntakeError(f"requested day {day!r} is outside the planning window {', '.join(days)}")
    priority = _integer(found["priority"], "priority")
    if not 1 <= priority <= 100:
        raise IntakeError(f"priority must be between 1 and 100, got {priority}")

    return Order(
        order_id=order_id,
        customer=customer,
        customer_email=sender,
        product_code=item.product_code,
        quantity=quantity,
        priority=priority,
        requested_day=day,
        machine_id=item.machine_id,
        machine_minutes=quantity * item.minutes_per_unit,
        materials=(MaterialUse(material_id=item.material_id, quantity=quantity * item.material_per_unit),),
    )


def _fields(text: str) -> dict[str, str]:
    """Each known ``Label: value`` line of the e-mail, every field present exactly once."""
    if not isinstance(text, str) or not text.strip():
        raise IntakeError("the customer request is empty")
    if len(text) > MAX_EMAIL_CHARS:
        raise IntakeError(f"the customer request is longer than {MAX_EMAIL_CHARS} characters")
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        key = _FIELDS.get(match.group(1).strip().lower()) if match else None
        if match is None or key is None:
            continue
        if key in found:
            raise IntakeError(f"the field {match.group(1).strip()!r} appears more than once")
        found[key] = match.group(2)
    missing = [label for label, key in _FIELDS.items() if key not in found]
    if missing:
        raise IntakeError(f"the customer request lacks: {', '.join(missing)}")
    return found


def _quantity(raw: str, limit: int) -> int:
    quantity = _integer(raw, "quantity")
    if quantity <= 0:
        raise IntakeError(f"quantity must be positive, got {quantity}")
    if quantity > limit:
        raise IntakeError(f"quantity {quantity} exceeds the catalog limit of {limit}")
    return quantity


def _integer(raw: str, label: str) -> int:
    if not _INT.match(raw):
        raise IntakeError(f"{label} must be a whole number, got {raw!r}")
    return int(raw)
