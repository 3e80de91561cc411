"""The reader on a garment printer's mail (a shop of our own, written for these tests): "hoodie" and "hoodies"
are one word, packs count their units, "Friday the 19th" is a date only when the 19th is a Friday, the product
counted beats one named in passing, and a word most products share ("logo") tells none apart."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.dates import resolve_due
from production_orchestrator.domain.intake.facts import read_facts, resolve_request
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Order, ShopState

DAY = "2027-03-01"  # a Monday


def _product(code: str, description: str, *aliases: str) -> dict[str, object]:
    return {"code": code, "description": description, "machines": ["PRESS-1"], "minutes_per_unit": 1,
            "aliases": list(aliases)}  # fmt: skip


SHOP: ShopState = read_shop(
    {
        "name": "print-room",
        "timezone": "Europe/Amsterdam",
        "machines": [{"id": "PRESS-1", "minutes_per_day": 900}],
        "materials": [],
        "products": [
            _product("HOOD-PRINT", "hooded top with a printed logo", "printed hoodie"),
            _product("HOOD-STITCH", "hooded top with a stitched logo", "stitched hoodie", "hoodie with embroidery"),
            _product("CAP-STITCH", "cap with a stitched logo", "cap", "stitched cap"),
            _product("BAG-RED", "red shopping bag with a printed logo", "red tote"),
            _product("BAG-BLUE", "blue shopping bag with a printed logo", "blue tote"),
        ],
        "orders": [],
    }
)


def take_in(body: str) -> Order:
    text = f"From: Buyer <buyer@club.example>\nDate: Mon, 1 Mar 2027 09:00:00 +0100\nSubject: request\n\n{body}"
    message = read_message(text)
    return resolve_request(message, read_facts(message, SHOP.products, date.fromisoformat(DAY)), SHOP, DAY)


def facts_of(order: Order) -> tuple[str, int, str]:
    return order.product, order.quantity, order.due


def test_a_plural_in_ies_meets_its_singular_in_ie() -> None:
    assert facts_of(take_in("Please make 40 printed hoodies by 2027-03-19.")) == ("HOOD-PRINT", 40, "2027-03-19")


def test_packs_count_their_units() -> None:
    assert facts_of(take_in("Could we have 3 boxes of 50 red totes by 2027-03-19?")) == ("BAG-RED", 150, "2027-03-19")


def test_a_weekday_with_a_day_of_the_month_is_that_day_when_they_agree() -> None:
    anchor = date.fromisoformat(DAY)
    assert resolve_due("Friday the 19th", anchor) == date(2027, 3, 19)
    assert resolve_due("Thursday the 19th", anchor) is None  # the 19th is a Friday: asked, not guessed
    assert resolve_due("the 3rd", anchor) is None  # "for the 3rd time": a day alone is no date
    assert facts_of(take_in("We need 40 printed hoodies by Friday the 19th.")) == ("HOOD-PRINT", 40, "2027-03-19")
    with pytest.raises(IntakeError, match="due date"):
        take_in("We need 40 printed hoodies by Thursday the 19th.")


def test_the_product_counted_beats_one_named_in_passing() -> None:
    order = take_in("We'd like 45 stitched hoodies, the same emblem as on our caps, by 2027-03-19.")
    assert facts_of(order) == ("HOOD-STITCH", 45, "2027-03-19")


def test_two_products_each_counted_are_asked_about() -> None:
    with pytest.raises(IntakeError, match="product"):
        take_in("We'd like 50 stitched caps and 50 stitched hoodies by 2027-03-19.")


def test_a_word_most_products_share_tells_none_apart() -> None:
    with pytest.raises(IntakeError, match="HOOD-PRINT, HOOD-STITCH"):
        take_in("Our club would like 60 hoodies with our logo by 2027-03-19.")


@pytest.mark.parametrize(
    ("body", "quantity"),
    [
        ("Could you make two\nhundred red totes by 2027-03-19?", 200),
        ("We'd love one hundred and fifty red totes by 2027-03-19.", 150),
        ("Bitte zweihundert red totes bis 19.03.2027.", 200),
        ("Nous voudrions trois cents red totes pour le 19 mars.", 300),
        ("Necesitamos ciento cincuenta red totes para el 19 de marzo.", 150),
        ("Graag driehonderdvijftig red totes uiterlijk 19 maart.", 350),
    ],
)
def test_hundreds_spelled_out_are_the_quantity(body: str, quantity: int) -> None:
    assert facts_of(take_in(body)) == ("BAG-RED", quantity, "2027-03-19")


def test_a_count_this_reader_cannot_spell_and_a_share_are_no_quantity() -> None:
    with pytest.raises(IntakeError, match="quantity"):
        take_in("We need twelve hundred red totes by 2027-03-19.")  # not read as 100
    assert facts_of(take_in("40 red totes by 2027-03-19, 10 per cent off?")) == ("BAG-RED", 40, "2027-03-19")


def test_before_the_weekend_is_this_weeks_friday_and_a_second_date_is_asked_about() -> None:
    assert facts_of(take_in("40 red totes before the weekend please.")) == ("BAG-RED", 40, "2027-03-05")
    assert facts_of(take_in("40 red totes, graag nog voor het weekend.")) == ("BAG-RED", 40, "2027-03-05")
    with pytest.raises(IntakeError, match="due date"):
        take_in("40 red totes before the weekend, or by Saturday at the latest.")


def test_a_year_after_a_name_is_no_quantity_and_need_them_leads_a_date() -> None:
    body = "We would like 1,200 red totes with the Harbour Jazz 2027 poster.\nWe need them Friday the 19th."
    assert facts_of(take_in(body)) == ("BAG-RED", 1200, "2027-03-19")
    with pytest.raises(IntakeError, match="quantity"):
        take_in("We'd like 2027 red totes, or was it 40 red totes? By 2027-03-19.")  # a year alone is still a count
