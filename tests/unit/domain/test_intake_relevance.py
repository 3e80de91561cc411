"""Several products named, one ordered (domain/intake/relevance.py): the one what is counted is about wins when
the words say so clearly; two things counted, names that fit equally, or a label or code disagreeing still make
the reader ask. The shop and the e-mails are invented for these tests (a small galvanizing and coating yard)."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.facts import read_facts
from production_orchestrator.domain.intake.relevance import counted_words, most_relevant
from production_orchestrator.domain.intake.vocabulary import match_products
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Product

SENT = date(2027, 3, 1)


def _products() -> tuple[Product, ...]:
    line = {"machines": ["LINE-1"], "minutes_per_unit": 3}
    return read_shop(
        {
            "name": "yard",
            "timezone": "Europe/Vienna",
            "machines": [{"id": "LINE-1", "minutes_per_day": 480}],
            "materials": [],
            "products": [
                {"code": "GAL-GATE", "description": "hot-dip galvanizing of a steel garden gate", **line},
                {
                    "code": "GAL-POST",
                    "description": "hot-dip galvanizing of fence posts",
                    "aliases": ["post dip"],
                    **line,
                },
                {"code": "PC-GATE", "description": "steel garden gate powder coating", **line},
                {"code": "PC-RAIL", "description": "stair rail powder coating, per metre", **line},
                {"code": "BLAST", "description": "shot blasting of steel parts", "aliases": ["blasting only"], **line},
                {"code": "PC-BIN", "description": "wheelie bin housing powder coating", **line},
            ],
            "orders": [],
        }
    ).products


def _read(subject: str, body: str) -> tuple[str | None, list[str]]:
    message = read_message(f"From: buyer@client.example\nSubject: {subject}\n\n{body}")
    facts = read_facts(message, _products(), SENT)
    matched = match_products(facts.product, _products()) if facts.product else []
    return (matched[0].code if len(matched) == 1 else facts.product), list(facts.unclear)


@pytest.mark.parametrize(
    ("subject", "body", "product"),
    [
        # The gates are counted; the posts are what they go with.
        (
            "gates",
            "Please powder coat 6 steel garden gates in RAL 6005, to match the fence posts you dipped, "
            "by 12 March 2027.",
            "PC-GATE",
        ),
        # What is done to them is said after what is counted.
        (
            "rails",
            "14 stair rails coming over for powder coating, needed back by 12 March 2027. The bin housings can wait.",
            "PC-RAIL",
        ),
        (
            "posts",
            "We have 40 fence posts for galvanizing, hot-dip please, by 12 March 2027; the gate comes later.",
            "GAL-POST",
        ),
    ],
)
def test_the_product_what_is_counted_is_about_is_read(subject: str, body: str, product: str) -> None:
    assert _read(subject, body) == (product, [])


@pytest.mark.parametrize(
    ("subject", "body"),
    [
        # Two things counted: two orders, not one.
        ("order", "Please coat 6 garden gates and 20 stair rails by 12 March 2027."),
        # "gates" fits the galvanized and the coated gate alike.
        ("gates", "We need 6 steel garden gates done by 12 March 2027."),
        # A label disagreeing with the sentences is never settled by weighing words.
        ("order", "We need 6 garden gates powder coated by 12 March 2027.\nProduct: GAL-POST"),
    ],
)
def test_what_the_words_do_not_settle_is_asked(subject: str, body: str) -> None:
    product, unclear = _read(subject, body)
    assert product not in {p.code for p in _products()} or unclear, (product, unclear)


def test_what_a_number_counts_ends_at_its_clause_and_sizes_count_nothing() -> None:
    assert counted_words("6 steel garden gates for the school, 40 cm wide") == [
        ({"steel", "garden", "gate"}, {"school"})
    ]
    assert counted_words("RAL 6005 on 2027-03-12") == [] or all(
        "6005" not in head for head, _ in counted_words("RAL 6005 on 2027-03-12")
    )


def test_no_number_or_one_candidate_is_no_choice() -> None:
    products = _products()
    gates = [p for p in products if p.code in {"GAL-GATE", "PC-GATE"}]
    assert most_relevant("garden gates powder coated", "gates", gates, products) is None  # nothing counted
    assert most_relevant("6 garden gates powder coated", "gates", gates[:1], products) is None
    assert most_relevant("6 garden gates powder coated", "gates", gates, products) == gates[1]
