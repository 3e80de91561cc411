"""A product's name is said only when its words are said together (domain/intake/vocabulary.py ``named_in``), and
what a number counts after "pairs of" is read (domain/intake/mentions.py): a word further off in the sentence
("for our stage") or a second product counted next to the number never makes the reader pick one product. The
shop and the e-mails are invented for these tests."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.facts import read_facts
from production_orchestrator.domain.intake.vocabulary import match_products, named_in
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import ShopState

SENT = date(2027, 3, 1)


def _shop() -> ShopState:
    product = {"machines": ["STITCH-1"], "minutes_per_unit": 2}
    return read_shop(
        {
            "name": "saddlery",
            "timezone": "Europe/Vienna",
            "machines": [{"id": "STITCH-1", "minutes_per_day": 480}],
            "materials": [],
            "products": [
                {
                    "code": "STRAP-WATCH",
                    "description": "leather watch strap 20 mm",
                    "aliases": ["brown leather strap"],
                    **product,
                },
                {
                    "code": "STRAP-GUITAR",
                    "description": "padded leather guitar strap",
                    "aliases": ["stage guitar strap"],
                    **product,
                },
                {"code": "SOCK-MERINO", "description": "merino hiking socks", "aliases": ["trail socks"], **product},
                {"code": "LACE-WAX", "description": "waxed boot laces, brown", **product},
            ],
            "orders": [],
        }
    )


def _read(subject: str, body: str) -> tuple[list[str], int | None, list[str]]:
    """The codes the product read fits (several: the reader asks), the quantity and what is unclear."""
    message = read_message(f"From: buyer@client.example\nSubject: {subject}\n\n{body}")
    products = _shop().products
    facts = read_facts(message, products, SENT)
    matched = match_products(facts.product, products) if facts.product else []
    return sorted(p.code for p in matched), facts.quantity, list(facts.unclear)


@pytest.mark.parametrize(
    "body",
    [
        # The words of "stage guitar strap" are all in the sentence, but "stage" is what the straps are for.
        "We'd like 50 leather straps for our stage and the guitar shop window, by 12 March 2027.",
        # "straps in ... brown leather": both straps are leather, and "brown leather strap" is not said together.
        "Could you make 30 straps in soft brown leather for us by 12 March 2027?",
    ],
)
def test_a_name_whose_words_are_scattered_is_no_choice_between_products(body: str) -> None:
    codes, _, unclear = _read("straps", body)
    assert len(codes) != 1 or unclear, (codes, unclear)
    assert [p.code for p in named_in(body, _shop().products)] == []


@pytest.mark.parametrize(
    ("body", "product"),
    [
        ("Please make 50 stage guitar straps by 12 March 2027.", "STRAP-GUITAR"),
        ("Please make 50 guitar straps, padded leather, by 12 March 2027.", "STRAP-GUITAR"),
        ("We need 200 leather watch straps (20 mm) by 12 March 2027.", "STRAP-WATCH"),
    ],
)
def test_a_name_said_together_is_still_read(body: str, product: str) -> None:
    assert _read("order", body) == ([product], 50 if "50" in body else 200, [])


def test_a_second_product_counted_in_pairs_is_never_a_guess() -> None:
    # The subject names the socks in full; the body counts laces: which is ordered is not plain.
    codes, _, unclear = _read(
        "Re: trail socks", "Forgot to say: we'll need 40 pairs of boot laces to go with the socks, same date."
    )
    assert codes == [] and any(u.startswith("product:") for u in unclear), (codes, unclear)


def test_pairs_of_a_product_are_counted() -> None:
    assert _read("order", "Please send 40 pairs of merino hiking socks by 12 March 2027.") == (["SOCK-MERINO"], 40, [])
