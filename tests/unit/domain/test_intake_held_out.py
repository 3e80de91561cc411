"""The reader on what strangers' customers wrote (held-out batches 14-17, rewritten for a sign and print shop invented
here): due dates named as such or said "on" after a need word, a PO's line-item date, "Monday week", typo'd
weekdays, a reason's dates and goods on their way, "1k units", colour counts and "one of your", North American
phone numbers, a labelled date that cannot be settled, and a repeat whose facts only an old message holds.
Every e-mail is sent Monday 1 March 2027."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Order, ShopState

from .test_intake_reading import facts_of
from .test_intake_reading import take_in as _take_in


def _product(code: str, description: str, *aliases: str) -> dict[str, object]:
    return {"code": code, "description": description, "aliases": list(aliases), "machines": ["PRESS"],
            "minutes_per_unit": 1}  # fmt: skip


SHOP: ShopState = read_shop(
    {
        "name": "print",
        "timezone": "Europe/Dublin",
        "machines": [{"id": "PRESS", "minutes_per_day": 480}],
        "materials": [],
        "products": [
            _product("TEE", "screen printed cotton t-shirt", "printed tee"),
            _product("HOODIE", "screen printed hoodie", "printed hoodie"),
            _product("BOARD", "for sale board, double sided", "estate agent board"),
            _product("STICKER", "round vinyl sticker 80 mm", "logo sticker"),
            _product("BANNER-S", "pvc banner 1500x700 mm with eyelets", "banner 1500"),
            _product("BANNER-L", "pvc banner 2000x700 mm with eyelets", "banner 2000"),
        ],
        "orders": [],
    }
)
US = "Jenna Ortiz <jenna@trailkits.example>"


def take_in(body: str, subject: str = "order", sender: str = "buyer@client.ie") -> Order:
    return _take_in(body, subject, SHOP, sender)


@pytest.mark.parametrize(
    ("body", "due"),
    [
        ("Please print 120 for sale boards. We'd need them on 25/03/2027, the Easter rush.", "2027-03-25"),
        ("Order for 600 printed tees, need date 11/06/2027.", "2027-06-11"),
        ("We need 500 printed tees. Due date 18/06/2027.", "2027-06-18"),
        ("Please accept this order for 40 printed hoodies.\nIn-hands date: 04/06/2027.", "2027-06-04"),
        ("300 printed tees please, packed and ready for pick-up on March 12, 2027.", "2027-03-12"),
        ("Delivery of 24 printed hoodies to our warehouse on 04/06/2027 please.", "2027-06-04"),
        ("PO 4471\n\nPos  Qty   Unit  Item                           Date\n1    250   EA    printed tee, white   "
         "  14/05/2027\n", "2027-05-14"),
        ("Could ye print 250 printed tees for us? We'd want them for Monday week, the launch is that evening.",
         "2027-03-15"),
        ("85 printed hoodies with names on the back, can we get them for wenesday 14th april??", "2027-04-14"),
        ("25 printed tees, need them by thrusday the 8th of April", "2027-04-08"),
        ("We need 6 for sale boards in store by 12 March so the fitters can put them up before the weekend.",
         "2027-03-12"),
        ("12 for sale boards coming your way for a refresh, they'll be with you by Friday. We need them back "
         "by 19 March.", "2027-03-19"),
        ("We need 300 logo stickers by the end of the month (the market starts first weekend of April).",
         "2027-03-31"),
    ],
)  # fmt: skip
def test_due_dates_as_customers_name_them(body: str, due: str) -> None:
    assert take_in(body).due == due


@pytest.mark.parametrize(
    ("body", "sender", "facts"),
    [
        ("Summer camp season is coming, so we'd like to order 1k units of printed tees. We need them by May 3rd."
         "\n\nthx!\nJenna\n(503) 555-0164", US, ("TEE", 1000, "2027-05-03")),
        ("We'd like 200 printed tees, one color print on the front. Delivery by 9 April please.", US,
         ("TEE", 200, "2027-04-09")),
        ("One of our parents picked up one of your hoodies last summer. We would like to order 150 printed "
         "hoodies, delivered by April 30th, 2027.", US, ("HOODIE", 150, "2027-04-30")),
        ("Please go ahead with 1000 printed tees for the summer 10k. Delivery by 17 June.", US,
         ("TEE", 1000, "2027-06-17")),
        ("New one for you: two and a half thousand printed tees, by Wednesday 12 May please.", US,
         ("TEE", 2500, "2027-05-12")),
        ("We're down to about 300 printed tees. Please make 2000 printed tees by 16 April.", US,
         ("TEE", 2000, "2027-04-16")),
    ],
)  # fmt: skip
def test_counts_as_customers_write_them(body: str, sender: str, facts: tuple[str, int, str]) -> None:
    assert facts_of(take_in(body, sender=sender)) == facts


def test_a_size_without_its_unit_settles_which_and_another_n_is_the_count() -> None:
    assert facts_of(take_in("We need another 6 pvc banners, 1500 x 700 with eyelets, by Friday 12th March.")) == (
        "BANNER-S",
        6,
        "2027-03-12",
    )
    body = "The first ten printed hoodies were perfect. Please print another 15, same artwork, for delivery on 2 April."
    assert facts_of(take_in(body)) == ("HOODIE", 15, "2027-04-02")


def test_a_labelled_date_the_reader_cannot_settle_is_never_outvoted_by_another() -> None:
    # The sender's order of day and month is unknown: 04/09/2027 is asked about, not replaced by "Friday".
    body = "We'd like 200 printed tees.\nDelivery date: 04/09/2027 at the latest\nI'll email the artwork by Friday."
    with pytest.raises(IntakeError, match="due date"):
        take_in(body, sender="mike@race.example")


def test_a_repeat_whose_facts_only_an_old_message_holds_is_asked_about() -> None:
    body = (
        "The tees were a hit! We'd like the same again for the summer camp, could we have them by 18 June?\n\n"
        "On Thu, 8 Apr 2027 at 14:02, Print Shop <orders@print.example> wrote:\n"
        "> Your order (70 x printed tee) is ready for collection.\n"
    )
    with pytest.raises(IntakeError, match="same as an earlier order"):
        take_in(body, subject="Re: Your order is ready")
    # A repeat changed is settled by a person, though every fact is said.
    with pytest.raises(IntakeError, match="earlier order changed"):
        take_in("Graag 1.500 printed tees voor 28 mei, zelfde als vorige keer maar dan met een grotere print.")
    # Said again in the newest message, the repeat is plain.
    assert facts_of(take_in("Same again please: 70 printed tees by 18 June.")) == ("TEE", 70, "2027-06-18")
