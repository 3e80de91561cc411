"""What a request's labels say beyond product, quantity and due date: which order it is (only a value in the
shop's order-id form), the customer's own reference, and the priority (the customer's wish, unless the shop
trusts that sender).
"""

from __future__ import annotations

import re

from ..shop.model import ID_PATTERN, ShopState

DEFAULT_PRIORITY = 50


def distinct(values: list[str], fact: str, problems: list[str]) -> str | None:
    unique = list(dict.fromkeys(" ".join(v.split()) for v in values))
    if len(unique) > 1:
        problems.append(f"{fact}: the e-mail gives several ({'; '.join(unique)}); say which one")
        return None
    return unique[0] if unique else None


def labelled(found: dict[str, list[str]], fact: str, problems: list[str]) -> str | None:
    return distinct(found.get(fact, []), fact, problems)


def trusts_priority(shop: ShopState, sender: str) -> bool:
    """True when ``shop`` takes ``sender``'s own ``Priority:`` line as the order's priority (``priority_from``)."""
    address = sender.strip().lower()
    if not address:
        return False
    trusted = {entry.strip().lower() for entry in shop.priority_from}
    return address in trusted or ("@" + address.rpartition("@")[2]) in trusted


def priority_of(found: dict[str, list[str]], trusted: bool, problems: list[str]) -> tuple[int, str]:
    """The order's priority and what the customer asked (kept when the priority is not theirs to set)."""
    asked = list(dict.fromkeys(" ".join(v.split()) for v in found.get("priority", [])))
    if not trusted:
        # A customer's own "Priority: 100" (or "urgent") is their wish, never the shop's priority.
        return DEFAULT_PRIORITY, re.sub(r"[^\w %+!.,:/-]", "?", "; ".join(asked))[:40]
    raw = distinct(asked, "priority", problems)
    if raw is None:
        return DEFAULT_PRIORITY, ""
    if not re.search(r"\d", raw):  # "Priority: High" from a trusted sender: their wish, the shop's scale is numbers
        return DEFAULT_PRIORITY, re.sub(r"[^\w %+!.,:/-]", "?", raw)[:40]
    if not re.fullmatch(r"\d{1,3}", raw) or not 1 <= int(raw) <= 100:
        problems.append(f"priority: must be a whole number from 1 to 100, got {raw!r}")
        return DEFAULT_PRIORITY, ""
    return int(raw), ""


def _id_form(order_id: str) -> str:
    """The form of an order id: each run of letters an A, each digit a 9 (``KP-27-1001`` -> ``A-99-9999``)."""
    return re.sub(r"[A-Za-z]+", "A", re.sub(r"\d", "9", order_id))


def in_order_id_form(value: str, shop: ShopState) -> bool:
    """True when ``value`` is written as this shop writes its order ids (an order it holds, or the same form as
    one): only such a value names an order; anything else a customer labels "Order:" is their own words."""
    if not ID_PATTERN.fullmatch(value) or not re.search(r"\d", value):
        return False
    ids = [o.id for o in shop.orders] + [c.order.id for c in shop.closed_orders]
    return value in ids or _id_form(value) in {_id_form(i) for i in ids}


_REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9/#_.-]{0,39}\Z")


def customer_reference(value: str | None) -> str:
    """The customer's own order reference (a PO number such as ``4500-1187``), when ``value`` is one: short,
    with a digit, no spaces and no path; else empty (their words, read as the product if they name it)."""
    if not value or not _REFERENCE.fullmatch(value) or not re.search(r"\d", value) or ".." in value:
        return ""
    return value
