"""Products named by the words only they have (domain/intake/distinctive.py): a customer who leaves out a word of
the description, writes the size onto its unit or reorders the words is read; one who asks for another size or
colour than the shop makes, or whose e-mail also names another product by its own words, waits as needs facts.
The shop and the e-mails are invented for these tests."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.distinctive import colours, distinctively_named, measures
from production_orchestrator.domain.intake.facts import read_facts
from production_orchestrator.domain.intake.vocabulary import match_products
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import ShopState

SENT = date(2027, 3, 1)


def _shop() -> ShopState:
    product = {"machines": ["POUR-1"], "minutes_per_unit": 1}
    return read_shop(
        {
            "name": "chandlery",
            "timezone": "Europe/Berlin",
            "machines": [{"id": "POUR-1", "minutes_per_day": 480}],
            "materials": [],
            "products": [
                {"code": "PILLAR-R", "description": "pillar candle 7 x 15 cm, red wax", **product},
                {"code": "LANTERN-B", "description": "metal garden lantern, black", **product},
                {"code": "VASE-30", "description": "glass vase 30 cm, clear", **product},
                {
                    "code": "TEALIGHT",
                    "description": "unscented tealight in aluminium cup",
                    "aliases": ["Teelicht unparfümiert", "bougie chauffe-plat"],
                    **product,
                },
            ],
            "orders": [],
        }
    )


def _read(body: str) -> tuple[str | None, int | None, str | None, list[str]]:
    message = read_message(f"From: buyer@client.example\nSubject: order\n\n{body}")
    products = _shop().products
    facts = read_facts(message, products, SENT)
    matched = match_products(facts.product, products) if facts.product else []
    code = matched[0].code if len(matched) == 1 else facts.product
    return code, facts.quantity, facts.due, list(facts.unclear)


@pytest.mark.parametrize(
    ("body", "product", "quantity"),
    [
        # A word of the description left out ("wax"), the words in another order.
        ("We'd like 40 red pillar candles, 15 cm tall, by 12 March 2027.", "PILLAR-R", 40),
        # The colour and the noun, without "metal".
        ("Please make 120 black garden lanterns for us, needed by 12 March 2027.", "LANTERN-B", 120),
        # The size written onto its unit ("30cm").
        ("Could we have 200 of the clear 30cm glass vases by 12 March 2027?", "VASE-30", 200),
        # Another product said only as what the order goes with: the one counted is ordered.
        (
            "We'd like 40 red pillar candles to go with the garden lanterns from last year, by 12 March 2027.",
            "PILLAR-R",
            40,
        ),
        # An alias, inflected and shortened (German plural).
        ("Bitte 5000 Teelichter bis 12. März 2027.", "TEALIGHT", 5000),
    ],
)
def test_a_product_named_by_its_own_words_is_read(body: str, product: str, quantity: int) -> None:
    found, count, due, unclear = _read(body)
    assert (found, count, due, unclear) == (product, quantity, "2027-03-12", [])


@pytest.mark.parametrize(
    "body",
    [
        "Please make 120 garden lanterns in white this time, by 12 March 2027.",  # the shop's is black
        "Could we have 200 glass vases of 20 cm by 12 March 2027?",  # the shop's is 30 cm
        "We need 400 pieces of 30 cm by 12 March 2027.",  # a size is no product's name
    ],
)
def test_another_variant_or_a_second_product_is_never_a_guess(body: str) -> None:
    found, _, _, unclear = _read(body)
    assert found is None or unclear, (found, unclear)
    assert found not in {"LANTERN-B", "VASE-30"} or unclear


def test_sizes_and_colours_are_read_in_their_forms() -> None:
    assert measures("30 Liter, 40cm and 2,5 kg") == {("l", "30"), ("cm", "40"), ("kg", "2.5")}
    assert colours("in Anthrazit, blanc et rojo") == {"grey", "white", "red"}
    assert [p.code for p in distinctively_named("lanterns", _shop().products)] == []  # one word is not half a name
