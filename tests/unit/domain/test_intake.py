"""Intake from a customer e-mail is fail-closed: each bad field is a clear error."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.intake import parse_customer_email
from production_orchestrator.domain.scenarios import CATALOG, DAYS, SCENARIOS

EMAIL = SCENARIOS["rush-order"].customer_email


def parse(text: str):  # type: ignore[no-untyped-def]
    return parse_customer_email(text, CATALOG, DAYS)


def test_reference_email_parses_to_the_reference_order() -> None:
    order = parse(EMAIL)
    assert (order.order_id, order.quantity, order.priority, order.requested_day) == ("RUSH-200", 120, 100, DAYS[0])
    assert order.machine_minutes == 240
    assert [(m.material_id, m.quantity) for m in order.materials] == [("THREAD-RED-40", 1200)]
    assert order.scheduled_day is None


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("Product: CREST-PATCH-RED", "Product: CREST-PATCH-PURPLE", "not in the catalog"),
        ("Quantity: 120", "Quantity: 0", "positive"),
        ("Quantity: 120", "Quantity: -5", "positive"),
        ("Quantity: 120", "Quantity: 1.5", "whole number"),
        ("Quantity: 120", "Quantity: 999999", "catalog limit"),
        ("Needed by: 2026-08-12", "Needed by: 2026-08-14", "outside the planning window"),
        ("Priority: 100", "Priority: 0", "between 1 and 100"),
        ("Priority: 100", "Priority: 101", "between 1 and 100"),
        ("Order: RUSH-200", "Order: rush 200; DROP TABLE", "malformed"),
        ("Order: RUSH-200", "Order: ../../etc-1", "malformed"),
        ("From: coach@northside-fc.example", "From: not-an-address", "not an e-mail"),
    ],
)
def test_bad_field_is_refused(old: str, new: str, message: str) -> None:
    assert old in EMAIL
    with pytest.raises(IntakeError, match=message):
        parse(EMAIL.replace(old, new))


def test_missing_field_is_named() -> None:
    with pytest.raises(IntakeError, match="priority"):
        parse(EMAIL.replace("Priority: 100\n", ""))


def test_duplicate_field_is_refused() -> None:
    with pytest.raises(IntakeError, match="more than once"):
        parse(EMAIL + "Quantity: 5000\n")


@pytest.mark.parametrize("text", ["", "   ", "x" * 20_001])
def test_empty_or_huge_is_refused(text: str) -> None:
    with pytest.raises(IntakeError):
        parse(text)
