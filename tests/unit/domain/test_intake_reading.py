"""The reader on the ways customers write that are not labels of the shop's own vocabulary: labelled dates in
any phrasing, dates referred to, weekday-and-date, "end of next week", sizes, phone numbers, totals, aliases,
a subject's ``Order:`` label, table rows, and a customer's own priority (a wish, unless the shop trusts them)."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.errors import IntakeError, ShopFileError
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.facts import read_facts, resolve_request
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Order, ShopState

DAY = "2027-03-01"  # a Monday


def _shop(**extra: object) -> ShopState:
    doc = {
        "name": "turnery",
        "timezone": "Europe/Berlin",
        "machines": [{"id": "LATHE-1", "minutes_per_day": 480}],
        "materials": [],
        "products": [
            {
                "code": "PIN-5X20",
                "description": "Hardened steel pin 5 x 20 mm",
                "machines": ["LATHE-1"],
                "minutes_per_unit": 1,
                "aliases": ["Stift 5x20", "goupille 5x20", "pasador 5x20", "pen 5x20"],
            },
            {
                "code": "PIN-8X50",
                "description": "Hardened steel pin 8 x 50 mm",
                "machines": ["LATHE-1"],
                "minutes_per_unit": 1,
            },
            {
                "code": "RING-AL",
                "description": "Aluminium clamping ring",
                "machines": ["LATHE-1"],
                "minutes_per_unit": 2,
                "aliases": ["Klemmring", "bague de serrage", "anillo de sujecion", "klemring"],
            },
        ],
        "orders": [
            {"id": "TR-0100", "customer": "Old", "product": "RING-AL", "quantity": 1, "due": DAY, "priority": 10}
        ],
        **extra,
    }
    return read_shop(doc)


SHOP = _shop()


def take_in(body: str, subject: str = "request", shop: ShopState = SHOP, sender: str = "buyer@client.example") -> Order:
    text = f"From: Buyer <{sender}>\nDate: Mon, 1 Mar 2027 09:00:00 +0100\nSubject: {subject}\n\n{body}"
    message = read_message(text)
    facts = read_facts(message, shop.products, date.fromisoformat(DAY))
    return resolve_request(message, facts, shop, DAY)


def facts_of(order: Order) -> tuple[str, int, str]:
    return order.product, order.quantity, order.due


@pytest.mark.parametrize(
    "line",
    [
        "Requested delivery date: 2027-03-12",
        "Desired delivery: 12.03.2027",
        "Gewünschter Liefertermin: 12.03.2027",
        "Date de livraison souhaitée : 12.03.2027",
        "Fecha de entrega deseada: 12-03-2027",
        "Gewenste leverdatum: 12-03-2027",
        "Delivery date: Friday 12 March",
        "Needed by: 2027-03-12 at the latest",
    ],
)
def test_a_labelled_date_in_any_phrasing_is_the_due_date(line: str) -> None:
    assert facts_of(take_in(f"Please make 300 pcs of PIN-5X20.\n{line}\n")) == ("PIN-5X20", 300, "2027-03-12")


@pytest.mark.parametrize(
    ("sentence", "due"),
    [
        ("Our line restarts on 15 March, so we need 40 clamping rings by then.", "2027-03-15"),
        ("Die Montage beginnt am 15.03., daher brauchen wir 40 Klemmringe bis dahin.", "2027-03-15"),
        ("We need 40 clamping rings, needed 2027-03-09.", "2027-03-09"),
        ("40 clamping rings please, delivered by Thursday 11 March.", "2027-03-11"),
        ("40 clamping rings by the end of next week.", "2027-03-12"),
        ("Wir brauchen 40 Klemmringe, Lieferung Ende nächster Woche.", "2027-03-12"),
        ("We hebben 40 klemringen eind volgende week nodig.", "2027-03-12"),
        ("Could you do 40 clamping rings for delivery on Wednesday next week?", "2027-03-10"),
    ],
)
def test_dates_referred_to_and_said_without_a_lead_word(sentence: str, due: str) -> None:
    assert facts_of(take_in(sentence)) == ("RING-AL", 40, due)


def test_a_day_month_order_that_could_be_either_and_a_wrong_weekday_are_asked_about_not_guessed() -> None:
    with pytest.raises(IntakeError, match="due date"):
        take_in("40 clamping rings.\nDelivery date: 12/03/2027")
    with pytest.raises(IntakeError, match="due date"):
        take_in("40 clamping rings by Tuesday 11 March please.")  # the 11th is a Thursday


@pytest.mark.parametrize(
    ("body", "quantity"),
    [
        ("We need 1,200 pcs of the 5 x 20 steel pins (PIN-5X20) by 2027-03-12.", 1200),
        ("Bitte 500 Stück Stift 5x20 bis 12.03.2027.", 500),
        ("Necesitamos 2.000 unidades pasador 5x20 para el 12 de marzo.", 2000),
        ("2 boxes of 600 PIN-5X20 - 1,200 pcs total - by 2027-03-12.", 1200),
        ("300 off PIN-5X20, due 2027-03-12. Call me on +44 24 7655 0192 or 0171 442 19 08.", 300),
        ("Re our quote 4471: we take 300 PIN-5X20 by 2027-03-12.", 300),
        ("Pos. 10  PIN-5X20\nMenge: 300 Stück\nLiefertermin: 12.03.2027", 300),
    ],
)
def test_quantities_as_written_and_numbers_that_are_no_quantity(body: str, quantity: int) -> None:
    assert facts_of(take_in(body)) == ("PIN-5X20", quantity, "2027-03-12")


@pytest.mark.parametrize(
    "body",
    [
        "Nous avons besoin de 250 goupilles 5x20 pour le 12 mars.",
        "Wij hebben 250 stuks pen 5x20 nodig, uiterlijk 12 maart.",
        "We need 250 hardened pins 5x20 by 12 March.",
    ],
)
def test_aliases_and_sizes_name_the_product_in_the_customers_words(body: str) -> None:
    assert facts_of(take_in(body)) == ("PIN-5X20", 250, "2027-03-12")


def test_a_vaguer_mention_agrees_with_a_precise_one_and_two_products_are_asked_about() -> None:
    assert facts_of(take_in("300 steel pins, i.e. PIN-8X50, by 2027-03-12.")) == ("PIN-8X50", 300, "2027-03-12")
    with pytest.raises(IntakeError, match="product"):
        take_in("300 steel pins by 2027-03-12.")
    with pytest.raises(IntakeError, match="product"):
        take_in("300 Klemmringe und 50 Stift 5x20 bis 12.03.2027.")


def test_a_subjects_order_label_names_the_product_and_only_the_shops_id_form_is_an_order_id() -> None:
    order = take_in("We need 300 by 2027-03-12.", subject="Order: clamping rings")
    assert facts_of(order) == ("RING-AL", 300, "2027-03-12") and order.id.startswith("REQ-")
    order = take_in("Order: TR-0101\nProduct: RING-AL\nQuantity: 300\nDue: 2027-03-12")
    assert order.id == "TR-0101"
    order = take_in("PO number: 4500-77\nProduct: RING-AL\nQuantity: 300\nDue: 2027-03-12")
    assert order.id.startswith("REQ-") and order.reference == "4500-77"


def test_a_table_under_a_header_row_reads_as_labels() -> None:
    html = (
        "MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n<table><tr><th>Item</th><th>Qty</th>"
        "<th>Required by</th></tr><tr><td>Clamping ring RING-AL</td><td>75</td><td>2027-03-12</td></tr></table>"
    )
    text = f"From: Buyer <buyer@client.example>\nDate: Mon, 1 Mar 2027 09:00:00 +0100\nSubject: order\n{html}"
    message = read_message(text)
    order = resolve_request(message, read_facts(message, SHOP.products, date.fromisoformat(DAY)), SHOP, DAY)
    assert facts_of(order) == ("RING-AL", 75, "2027-03-12")


def test_a_customers_own_priority_is_their_wish_unless_the_shop_trusts_the_sender() -> None:
    body = "Priority: 100\n300 PIN-5X20 by 2027-03-12."
    order = take_in(body)
    assert (order.priority, order.asked_priority) == (50, "100")
    assert take_in("Priority: urgent\n300 PIN-5X20 by 2027-03-12.").asked_priority == "urgent"
    trusting = _shop(priority_from=["@client.example"])
    assert take_in(body, shop=trusting).priority == 100
    assert take_in(body, shop=trusting, sender="x@other.example").priority == 50


def test_an_alias_that_names_two_products_is_refused_at_import() -> None:
    doc = SHOP.to_canonical()
    doc["products"][1]["aliases"] = ["stift 5x20"]  # PIN-5X20's alias, differently cased
    with pytest.raises(ShopFileError, match="also names PIN-5X20"):
        read_shop(doc)
    doc["products"][1]["aliases"] = ["Aluminium clamping ring"]  # another product's description
    with pytest.raises(ShopFileError, match="also names RING-AL"):
        read_shop(doc)


def test_a_shop_without_aliases_keeps_its_digest() -> None:
    doc = SHOP.to_canonical()
    assert "aliases" in doc["products"][0] and "aliases" not in doc["products"][1]
    assert "priority_from" not in doc
