"""Intake is fail-closed: a known product, a quantity and a due date, or an error naming what is missing."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.dates import resolve_due
from production_orchestrator.domain.intake.facts import RequestFacts, read_facts, resolve_request
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY
from production_orchestrator.domain.shop.model import Order

SHOP = SCENARIOS["team-jerseys"].state  # JERSEY-NAVY, CAP-WHITE, TOTE-NAVY
RUSH = SCENARIOS["rush-order"]


def take_in(text: str, planning_day: str = TODAY) -> Order:
    message = read_message(text)
    facts = read_facts(message, SHOP.products, message.sent_day or date.fromisoformat(planning_day))
    return resolve_request(message, facts, SHOP, planning_day)


def problems(text: str) -> tuple[str, ...]:
    with pytest.raises(IntakeError) as caught:
        take_in(text)
    return caught.value.problems


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_reference_emails_become_the_reference_orders(name: str) -> None:
    chosen = SCENARIOS[name]
    order = chosen.target_order()
    assert (order.id, order.due, order.schedule) == (chosen.target_order_id, TODAY, ())
    assert order.customer_email.endswith(".example")


def test_labelled_request() -> None:
    order = RUSH.target_order()
    assert (order.customer, order.product, order.quantity, order.priority) == (
        "Northside FC",
        "CREST-PATCH-RED",
        120,
        100,
    )


def test_free_text_with_a_description_and_a_weekday_counted_from_the_date_header() -> None:
    order = take_in(
        "From: Mia Berg <mia@club.example>\nDate: Mon, 10 Aug 2026 09:00:00 +0200\nSubject: caps\n\n"
        "Hi! Could you make 40 more of the gym caps with embroidered logo, white, by Friday? Thanks, Mia"
    )
    assert (order.product, order.quantity, order.due, order.customer) == ("CAP-WHITE", 40, "2026-08-14", "Mia Berg")
    assert order.customer_email == "mia@club.example" and order.priority == 50
    assert order.id.startswith("REQ-")


def test_a_shortened_description_after_the_number_names_the_one_product_it_fits() -> None:
    order = take_in("Date: Mon, 10 Aug 2026 09:00:00 +0200\n\nHi, please make 40 navy totes by Friday.")
    assert (order.product, order.quantity, order.due) == ("TOTE-NAVY", 40, "2026-08-14")
    assert take_in("Could you do 25 white caps by 2026-08-20?").product == "CAP-WHITE"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Please make 30 navy ones by Friday.", "several"),  # a navy jersey or a navy tote
        ("We have 2 stores; please make 50 pieces by Friday.", "missing"),  # no product word at all
    ],
)
def test_a_shortened_description_that_fits_several_or_none_is_refused(text: str, expected: str) -> None:
    found = [p for p in problems(text) if p.startswith("product")]
    assert found and expected in found[0], found


def test_plain_text_with_a_code_and_a_relative_date() -> None:
    order = take_in("We need 200 pcs TOTE-NAVY in 10 days.")
    assert (order.product, order.quantity, order.due, order.customer_email) == ("TOTE-NAVY", 200, "2026-08-22", "")


def test_same_email_same_order_id_and_a_different_one_differs() -> None:
    text = "From: a@b.example\n\nPlease make 20 x JERSEY-NAVY by 2026-08-20."
    assert take_in(text).id == take_in(text).id
    assert take_in(text).id != take_in(text.replace("20 x", "21 x")).id


def test_everything_missing_is_named() -> None:
    found = problems("Hello, please send something nice.")
    assert [p.split(":")[0] for p in found] == ["product", "quantity", "due date"]
    assert "CAP-WHITE, JERSEY-NAVY, TOTE-NAVY" in found[0]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("We need 35 x JERSEY-NAVY and 10 x CAP-WHITE by Friday.", "product"),
        ("Please make 35 x JERSEY-NAVY, or maybe 40 pcs, by Friday.", "quantity"),
        ("Please make 35 x JERSEY-NAVY by Friday, or before 2026-09-30.", "due date"),
        ("Product: navy\nQuantity: 5\nDue: 2026-09-01", "product"),  # navy jersey or navy tote?
    ],
)
def test_ambiguous_facts_are_refused(text: str, fact: str) -> None:
    found = problems(text)
    assert [p for p in found if p.startswith(fact)], found
    assert any(w in " ".join(found) for w in ("several", "matches several"))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("Product: CREST-PATCH-RED", "Product: CREST-PATCH-PURPLE", "not a product of this shop"),
        ("Quantity: 120", "Quantity: 0", "from 1 to"),
        ("Quantity: 120", "Quantity: 1.5", "not a whole number"),
        ("Needed by: 2026-08-12", "Needed by: 2026-08-11", "before the planning day"),
        ("Needed by: 2026-08-12", "Needed by: soonish", "not a date"),
        ("Priority: 100", "Priority: 0", "from 1 to 100"),
        ("Priority: 100", "Priority: 101", "from 1 to 100"),
    ],
)
def test_bad_field_is_refused(old: str, new: str, message: str) -> None:
    assert old in RUSH.customer_email
    text = RUSH.customer_email.replace(old, new)
    msg = read_message(text)
    facts = read_facts(msg, RUSH.state.products, date.fromisoformat(TODAY))
    with pytest.raises(IntakeError, match=message):
        resolve_request(msg, facts, RUSH.state, TODAY)


@pytest.mark.parametrize("value", ["rush 200; DROP TABLE", "../../etc", "crest patches, red", "PO 4711/23"])
def test_an_order_label_not_in_the_shops_order_id_form_is_no_order_id_and_refuses_nothing(value: str) -> None:
    text = RUSH.customer_email.replace("Order: RUSH-200", f"Order: {value}")
    msg = read_message(text)
    order = resolve_request(msg, read_facts(msg, RUSH.state.products, date.fromisoformat(TODAY)), RUSH.state, TODAY)
    assert order.id.startswith("REQ-") and (order.product, order.quantity) == ("CREST-PATCH-RED", 120)


def test_an_order_label_in_the_shops_form_is_the_order_id_and_another_reference_is_kept_as_the_customers() -> None:
    msg = read_message(RUSH.customer_email.replace("Order: RUSH-200", "Order: RUSH-201"))
    order = resolve_request(msg, read_facts(msg, RUSH.state.products, date.fromisoformat(TODAY)), RUSH.state, TODAY)
    assert (order.id, order.reference) == ("RUSH-201", "")
    msg = read_message(RUSH.customer_email.replace("Order: RUSH-200", "PO number: 4500-1187"))
    order = resolve_request(msg, read_facts(msg, RUSH.state.products, date.fromisoformat(TODAY)), RUSH.state, TODAY)
    assert order.id.startswith("REQ-") and order.reference == "4500-1187"


def test_an_order_id_already_in_the_shop_with_other_details_is_refused() -> None:
    state = RUSH.taken_in()
    text = RUSH.customer_email.replace("Quantity: 120", "Quantity: 121")
    msg = read_message(text)
    with pytest.raises(IntakeError, match="already in the shop with different details"):
        resolve_request(msg, read_facts(msg, state.products, date.fromisoformat(TODAY)), state, TODAY)
    same = read_message(RUSH.customer_email)
    assert (
        resolve_request(same, read_facts(same, state.products, date.fromisoformat(TODAY)), state, TODAY)
        == RUSH.target_order()
    )


def test_facts_from_a_model_pass_the_same_resolver() -> None:
    message = read_message("From: kit@club.example\n\nthirty-five navy jerseys please, by 2026-08-20")
    facts = RequestFacts(product="team jersey with embroidered number, navy", quantity=35, due="by 2026-08-20")
    order = resolve_request(message, facts, SHOP, TODAY)
    assert (order.product, order.quantity, order.due) == ("JERSEY-NAVY", 35, "2026-08-20")
    with pytest.raises(IntakeError, match="due date: the e-mail is unclear"):
        resolve_request(message, facts.model_copy(update={"unclear": ["due date: the e-mail is unclear"]}), SHOP, TODAY)
    with pytest.raises(IntakeError, match="quantity: missing"):
        resolve_request(message, facts.model_copy(update={"quantity": None}), SHOP, TODAY)


def test_mime_email_reads_the_text_part_and_ignores_attachments() -> None:
    raw = (
        "From: Kit <kit@club.example>\nDate: Wed, 12 Aug 2026 08:00:00 +0200\nSubject: order\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="b1"\n\n--b1\nContent-Type: text/plain; charset=utf-8\n'
        "Content-Transfer-Encoding: quoted-printable\n\nWe need 12 x CAP-WHITE within 2 weeks.=0AThanks\n--b1\n"
        'Content-Type: application/pdf\nContent-Disposition: attachment; filename="a.pdf"\n'
        "Content-Transfer-Encoding: base64\n\n" + "QUJD" * 20000 + "\n--b1--\n"
    )
    order = take_in(raw)
    assert (order.product, order.quantity, order.due) == ("CAP-WHITE", 12, "2026-08-26")
    assert read_message(read_message(raw).text) == read_message(raw)


@pytest.mark.parametrize("text", ["", "   ", "x" * 20_001])
def test_empty_or_huge_is_refused(text: str) -> None:
    with pytest.raises(IntakeError):
        read_message(text)


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("2026-12-04", "2026-12-04"),
        ("04.12.2026", "2026-12-04"),
        ("December 4", "2026-12-04"),
        ("4th of December 2027", "2027-12-04"),
        ("by Friday", "2026-08-14"),
        ("Wednesday", "2026-08-19"),  # a weekday is always after the anchor day
        ("tomorrow", "2026-08-13"),
        ("in 10 days", "2026-08-22"),
        ("within two weeks", "2026-08-26"),
        ("August 1", "2027-08-01"),  # already past this year
        ("2026-02-30", None),
        ("in 10 working days", None),
        ("soon", None),
    ],
)
def test_due_dates_as_people_write_them(phrase: str, expected: str | None) -> None:
    found = resolve_due(phrase, date(2026, 8, 12))
    assert (found.isoformat() if found else None) == expected
