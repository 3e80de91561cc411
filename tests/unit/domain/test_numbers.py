"""Numbers as people write them, and the one bare number that says how many."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.facts import read_facts
from production_orchestrator.domain.intake.number_forms import whole_number
from production_orchestrator.domain.intake.numbers import bare_quantities
from tests.unit.domain.test_email_corpus import SHOP

# The subject's number is never read with the body's product words or code ("Order 4411" / "1 200 TOTE-NAVY").
HEAD = "From: Sam Lee <sam@x.example>\nDate: Tue, 1 Dec 2026 09:12:00 +0100\nSubject: Order 4411\n\n"


@pytest.mark.parametrize(
    ("written", "value"),
    [("1200", 1200), ("1,200", 1200), ("1.200", 1200), ("1 200", 1200), ("1\u00a0200", 1200),
     ("1\u202f200", 1200), ("1'200", 1200), ("12 500 000", 12_500_000), ("1.2", None), ("1,20", None),
     ("1 20", None), ("1,200.5", None), ("1.200,000", None)],
)  # fmt: skip
def test_a_whole_number_as_written(written: str, value: int | None) -> None:
    assert whole_number(written) == value


def quantity_of(body: str) -> tuple[int | None, list[str]]:
    message = read_message(HEAD + body)
    facts = read_facts(message, SHOP.products, date(2026, 12, 1))
    return facts.quantity, facts.unclear


@pytest.mark.parametrize(
    ("body", "quantity"),
    [
        ("We need 1 200 navy tote bags by 2026-12-18.", 1200),
        ("Wir brauchen 1 200 Stück TOTE-NAVY bis 18.12.2026.", 1200),
        ("Wir brauchen 1.200 Stück TOTE-NAVY bis 18.12.2026.", 1200),
        ("Necesitamos 1.200 unidades de TOTE-NAVY para el 16 de diciembre.", 1200),
        ("Wij hebben 1.500 stuks TOTE-RED nodig, uiterlijk 17 december.", 1500),
        ("Nous avons besoin de 1\u202f500 TOTE-RED pour le 18 décembre.", 1500),
        ("Could you print 1,200 red tote bags by December 18?", 1200),
        ("Wir benötigen 1'200 Stück TOTE-RED bis zum 18.12.2026.", 1200),
        ("Can you do 300 by Friday?\n\nProduct: caps", 300),
        ("Can you do 300 by Friday? Budget EUR 900, 20 % paid, call at 10:30 or 3 pm.\nProduct: caps", 300),
        ("Können Sie bis Freitag 300 machen? Wir sind 25 Personen, Rechnung 77 ist bezahlt.\nProdukt: TOTE-RED", 300),
        ("Can you do 300 by Friday? Our order #4411, ref is 12.\nProduct: caps", 300),  # the subject's 4411 too
        ("Can you do 300 within 2 weeks?\nProduct: caps", 300),
    ],
)
def test_the_quantity_is_read(body: str, quantity: int) -> None:
    assert quantity_of(body) == (quantity, [])


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("Can you do 300 or 400 by Friday?\nProduct: caps", "(300; 400)"),
        ("Can you do 300 by Friday? Call 555 0100 if not.\nProduct: caps", "(300; 555; 100)"),
        ("Can you do 300 by Friday? We are a team of 25.\nProduct: caps", "(300; 25)"),
    ],
)
def test_several_bare_numbers_are_named_and_none_is_taken(body: str, named: str) -> None:
    quantity, unclear = quantity_of(body)
    assert quantity is None and unclear == [f"quantity: the e-mail gives several {named}; say which one"]


def test_a_number_next_to_the_product_wins_over_bare_ones() -> None:
    assert quantity_of("We are 25 and need 40 navy tote bags by Friday, call 555 0100.") == (40, [])


def test_no_bare_number_is_none() -> None:
    assert quantity_of("Can you do some by Friday?\nProduct: caps") == (None, [])
    assert bare_quantities("by 2026-12-18, EUR 40, 10:30, 0 left") == []
