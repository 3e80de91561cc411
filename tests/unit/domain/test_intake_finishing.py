"""The reader on what a finishing shop's customers write (stranger batches 12 and 13, rewritten for a coating shop
invented here): colour codes beside counts, labelled counts that name what they count, a vague word ("frames")
settled by the words beside it, "ready on" dates and dates pointing at other dates, counts spelled out, and the
numbers of a signature or a product's own size."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Order, ShopState

from .test_intake_reading import facts_of
from .test_intake_reading import take_in as _take_in


def _product(code: str, description: str, *aliases: str) -> dict[str, object]:
    return {
        "code": code,
        "description": description,
        "aliases": list(aliases),
        "machines": ["LINE-1"],
        "minutes_per_unit": 1,
    }


SHOP: ShopState = read_shop(
    {
        "name": "coating",
        "timezone": "Europe/Vienna",
        "priority_from": ["@trusted.example"],
        "machines": [{"id": "LINE-1", "minutes_per_day": 480}],
        "materials": [],
        "products": [
            _product("FRAME-ONE", "bicycle frame and fork, powder coating in one colour", "single colour frame"),
            _product(
                "FRAME-TWO",
                "bicycle frame and fork, two-tone powder coating with masked colour split",
                "tweekleurig frame",
            ),
            _product("FRAME-STRIP", "bicycle frame stripping and blasting to bare metal", "frame stripping"),
            _product("CHAIR", "steel chair frame powder coating, furniture finish", "chair base"),
            _product("TABLE", "steel table base powder coating", "table legs"),
            _product("SMALL", "small steel parts powder coating (brackets, hooks, clips), per piece up to 30 cm"),
            _product("RAILING", "steel balcony railing section, duplex coating: zinc primer and top coat"),
            _product("PROFILE", "aluminium extrusion powder coating, bars up to 6.5 m", "aluminium profile"),
            _product("HOPPER", "conical malt hopper 200 L for grain mill", "grist hopper", "tolva de malta 200 L"),
        ],
        "orders": [],
    }
)


def take_in(body: str, subject: str = "request", sender: str = "buyer@client.example") -> Order:
    return _take_in(body, subject, SHOP, sender)


@pytest.mark.parametrize(
    ("body", "facts"),
    [
        ("16 pcs balcony railing sections, RAL 7016 top coat, by 2027-03-19.", ("RAILING", 16, "2027-03-19")),
        ("Zes tweekleurige frames graag (RAL 3020 en RAL 9005), two-tone, klaar op 19 maart?", None),
        (
            "Please process:\nQuantity: 860 bars\nItem: aluminium profile\nDue: 2027-03-19",
            ("PROFILE", 860, "2027-03-19"),
        ),
        ("Quantity: 6 (six)\nItem: aluminium profile\nDue: 2027-03-19", ("PROFILE", 6, "2027-03-19")),
        (
            "PO #: HL-2291\nItem: 75 steel chair frames (side chair) - matte white\nNeeded by: March 19th",
            ("CHAIR", 75, "2027-03-19"),
        ),
        ("We hereby order 40 (forty) steel table bases. Delivery date: 19.03.2027", ("TABLE", 40, "2027-03-19")),
        ("Please produce one grist hopper 200 L for our mill, delivery by 19 March.", ("HOPPER", 1, "2027-03-19")),
        (
            "Os pido una tolva de malta de 200 L. La necesitamos para el viernes 19 de marzo.\n\nJordi\n"
            "Cervesera Garrotxa, Carrer de la Industria 9, 17800 Olot, 972 55 01 90",
            ("HOPPER", 1, "2027-03-19"),
        ),
        (
            "Please go ahead with 2 grist hoppers as per your offer from 2026, by 19 March.",
            ("HOPPER", 2, "2027-03-19"),
        ),
    ],
)
def test_counts_beside_colour_codes_labels_spellings_and_signatures(
    body: str, facts: tuple[str, int, str] | None
) -> None:
    if facts is None:  # "Zes ... frames": 6, the two-tone frame; the RAL numbers are colours
        assert facts_of(take_in(body)) == ("FRAME-TWO", 6, "2027-03-19")
    else:
        assert facts_of(take_in(body)) == facts


def test_a_labelled_count_of_packs_is_asked_about() -> None:
    with pytest.raises(IntakeError, match="quantity"):
        take_in("Quantity: 2 pallets of 500\nItem: aluminium profile\nDue: 2027-03-19")


@pytest.mark.parametrize(
    ("body", "product"),
    [
        ("18 frame & fork sets for single colour powder coating, by 19 March please.", "FRAME-ONE"),
        ("15 frames to be stripped and blasted, no coating, back by 19/03.", "FRAME-STRIP"),
        ("A pallet of 500 steel shelf brackets (approx. 20 cm) for powder coating, by 19 March.", "SMALL"),
        ("We confirm an order for 32 steel table bases, RAL 7022, required by 19 March.", "TABLE"),
    ],
)
def test_a_vague_word_is_settled_by_the_words_beside_it(body: str, product: str) -> None:
    assert take_in(body, sender="buyer@client.ie").product == product


@pytest.mark.parametrize(
    "body",
    [
        "10 frames in celeste green, maybe with a white panel, by 19/03.",  # which frame: asked
        "20 frames by 19 March. Last time the masked ones came out great.",  # a word further off decides nothing
    ],
)
def test_a_vague_word_nothing_beside_settles_is_asked_about(body: str) -> None:
    with pytest.raises(IntakeError, match="product"):
        take_in(body, sender="buyer@client.ie")


@pytest.mark.parametrize(
    ("body", "due"),
    [
        (
            "40 table legs. Can you have them ready on Friday 19 March? Transport is planned for the Monday after.",
            "2027-03-19",
        ),
        (
            "40 table legs for the kitchen. Installation is planned for week 12, so we need them by Monday 15 March.",
            "2027-03-15",
        ),
        ("40 table legs. Would Wednesday 17th March work for these to be ready?", "2027-03-17"),
        ("40 table legs please. Thursday the 18th of March works for us for collection.", "2027-03-18"),
        (
            "Item: table legs\nQuantity: 40\nDelivery: to our yard, see address below\nFinish date: 19/03/2027",
            "2027-03-19",
        ),
        (
            "Item: table legs\nQuantity: 40\nDelivery date: 19.03.2027\n"
            "Delivery to: Zentrallager, Landsberger Str. 301, 80687 Munich. Goods receipt Mon-Fri 6:00-13:00.",
            "2027-03-19",
        ),
        ("Bitte 40 Tischgestelle (table legs). Liefertermin ist Freitag, der 19.03.2027.", "2027-03-19"),
        ("Item: table legs\nQty: 40\nReq. date: March 19, 2027", "2027-03-19"),
        ("We'd like 40 table legs please. Can we have them two weeks today?", "2027-03-15"),
    ],
)
def test_due_dates_said_as_ready_or_asked_about_and_dates_that_point_elsewhere(body: str, due: str) -> None:
    assert take_in(body, sender="buyer@client.ie").due == due


def test_a_trusted_senders_word_priority_is_their_wish_not_a_refusal() -> None:
    order = take_in("Item: table legs\nQuantity: 40\nDue: 2027-03-19\nPriority: High", sender="ops@trusted.example")
    assert (order.priority, order.asked_priority) == (50, "High")
    with pytest.raises(IntakeError, match="priority"):  # a number the shop's scale cannot hold is still named
        take_in("Item: table legs\nQuantity: 40\nDue: 2027-03-19\nPriority: 150", sender="ops@trusted.example")


def test_a_replys_subject_holds_the_old_orders_count_and_brackets_hold_details() -> None:
    order = take_in(
        "Arrived fine. Please book another 2 grist hoppers for 19 March.", subject="Re: Delivery - 3 hoppers"
    )
    assert facts_of(order) == ("HOPPER", 2, "2027-03-19")
    order = take_in("We'd like 40 steel table bases (the dining base, 4 legs + apron), due 2027-03-19.")
    assert facts_of(order) == ("TABLE", 40, "2027-03-19")


@pytest.mark.parametrize(
    ("body", "facts"),
    [
        (
            "Purchase Order: HBC/2027/0412\nCost centre: 4410 - Events\nWe require fifty (50) steel table bases, "
            "as per your quotation Q-2027-102.\nDelivery by Friday 19 March 2027.",
            ("TABLE", 50, "2027-03-19"),
        ),
        ("Bitte 5 Tischgestelle, table legs.\nTermin: KW 11, spätestens Mittwoch, 17.03.2027 bei uns.", None),
        (
            "We need 8 table legs. Artwork will come through WeTransfer by Thursday at the latest.\n"
            "They need to be with us by Friday 19 March please.",
            ("TABLE", 8, "2027-03-19"),
        ),
        (
            "Go ahead with the 5 table legs as quoted. Delivery w/c 15 March, latest Friday 19th.",
            ("TABLE", 5, "2027-03-19"),
        ),
        (
            "We'd like 12 table legs for 19 March.\n\nBen Okafor\nHarbour Wines, Nieuwe Binnenweg 141, Rotterdam",
            ("TABLE", 12, "2027-03-19"),
        ),
    ],
)
def test_ids_cost_centres_house_numbers_and_dates_of_what_comes_in_are_no_facts(
    body: str, facts: tuple[str, int, str] | None
) -> None:
    assert facts_of(take_in(body, sender="buyer@client.ie")) == (facts or ("TABLE", 5, "2027-03-17"))
