"""The reader on what strangers' customers wrote (stranger batches 8-10, rewritten for the turnery shop of
test_intake_reading): month ends, calendar weeks, weekday-settled and sender-settled numeric dates, "at the
latest" after a date, spelled thousands and dozens, ranges, pack contents, working that gives a count, closings and
signatures without one, and e-mails that are no order at all (a cancellation, a change, a question, a quote)."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.facts import RequestFacts, resolve_request
from production_orchestrator.domain.intake.vocabulary import stem, words
from production_orchestrator.domain.planning.proposal import GivenFacts

from .test_intake_reading import DAY, SHOP, facts_of, take_in


@pytest.mark.parametrize(
    ("body", "due"),
    [
        ("40 clamping rings, needed by end of March please.", "2027-03-31"),
        ("40 clamping rings, due end of next month.", "2027-04-30"),
        ("Wir brauchen 40 Klemmringe, Lieferung bis Ende April.", "2027-04-30"),
        ("Il nous faut 40 bagues de serrage pour fin avril.", "2027-04-30"),
        ("40 clamping rings, needed by Fri 5/3.", "2027-03-05"),  # 5 March is a Friday, 3 May a Monday
        ("40 clamping rings by next Friday, the 12th.", "2027-03-12"),
        ("40 clamping rings for Friday week, the 12th.", "2027-03-12"),
        ("40 clamping rings for Friday week.", "2027-03-12"),
        ("Bitte 40 Klemmringe bis Freitag KW 11.", "2027-03-19"),
        ("40 clamping rings, so let's say Friday 12 March latest.", "2027-03-12"),
        ("40 clamping rings two weeks from today.", "2027-03-15"),
        ("Please register 40 clamping rings. Required delivery: 2027-03-12.", "2027-03-12"),
        (
            "Las necesitamos para el viernes 12 de marzo: 40 anillos de sujecion; el material llega el jueves.",
            "2027-03-12",
        ),
    ],
)
def test_due_dates_as_strangers_wrote_them(body: str, due: str) -> None:
    assert facts_of(take_in(body))[2] == due


def test_a_quotes_validity_date_in_the_quoted_text_is_no_due_date() -> None:
    body = (
        "Let's go ahead with 40 clamping rings, sometime soon would be ideal.\n\n"
        "On 22 Feb 2027, at 16:40, Shop <shop@turnery.example> wrote:\n> 40 clamping rings EUR 3.10\n"
        "> Valid until 31/03/2027.\n"
    )
    with pytest.raises(IntakeError, match="due date: missing"):  # asked about, never read as the 31st
        take_in(body)


_UK = "\n\nKind regards,\nPriya Shah\nPurchasing, Tallis Robotics\n+44 191 496 0700"
_US = "\n\nThanks!\nMarcus\n\nMarcus Reyes\nBrooklyn Loft Furniture\n214 Wythe Ave, Brooklyn, NY 11249\n(718) 555-0164"


@pytest.mark.parametrize(
    ("body", "due"),
    [
        ("Please book 40 clamping rings for delivery 04/03/2027." + _UK, "2027-03-04"),
        ("Please book 40 clamping rings for delivery 04/03/2027." + _US, "2027-04-03"),
        ("Bitte 40 Klemmringe, Liefertermin 04/03/2027.", "2027-03-04"),
    ],
)
def test_a_numeric_date_either_way_round_is_read_as_the_senders_country_writes_it(body: str, due: str) -> None:
    assert facts_of(take_in(body))[2] == due


def test_an_either_way_date_from_a_sender_who_says_nothing_of_their_country_is_asked_about() -> None:
    with pytest.raises(IntakeError, match="due date"):
        take_in("Please book 40 clamping rings for delivery 04/03/2027.")


@pytest.mark.parametrize(
    ("body", "quantity"),
    [
        ("We need two thousand of the 5 x 20 steel pins by 12 March.", 2000),
        ("Could you do 3 dozen clamping rings by 12 March?", 36),
        ("80 steel pins 8 x 50 (1000 pcs/carton) by 12 March.", 80),
        ("64 clamping rings for the new fixtures - 16 fixtures x 4 rings - by 12 March.", 64),
        ("Il nous faut cent cinquante bagues de serrage pour le 12 mars.", 150),
        (
            "40 clamping rings by 12 March please.\n\nMia\nMia Chen - Ops\n1450 NW Raleigh St, OR 97209\n503-555-0122",
            40,
        ),
        ("40 clamping rings by 12 March.\nThanks a bunch,\nDean\nUnit 381, 2800 Lyngby", 40),
    ],
)
def test_counts_as_strangers_wrote_them(body: str, quantity: int) -> None:
    assert facts_of(take_in(body))[1] == quantity


def test_a_range_is_no_count_yet() -> None:
    with pytest.raises(IntakeError, match="quantity"):
        take_in("Il nous faudra entre 150 et 200 bagues de serrage pour le 12 mars.")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("Please cancel our 40 clamping rings due 12 March.", "cancel"),
        ("Nous devons annuler notre commande de 40 bagues de serrage prévue pour le 12 mars.", "cancel"),
        ("Please change order TR-0100 to 60 clamping rings by 12 March.", "change order TR-0100"),
        ("Change on PO 4500-7902: increase the clamping rings from 40 to 60, due 12 March.", "change"),
        ("What is your lead time on clamping rings? If we ordered 40 today, when could we have them?", "question"),
        ("Bitte um ein Angebot für 40 Klemmringe bis 12.03.2027.", "quote"),
    ],
)
def test_an_email_that_is_no_new_order_waits_for_a_person_with_the_reason(body: str, why: str) -> None:
    with pytest.raises(IntakeError, match=why) as refused:
        take_in(body)
    assert any(p.startswith("request:") for p in refused.value.problems)


@pytest.mark.parametrize(
    "body",
    [
        "After last month's cancellation we need 40 clamping rings again by 12 March.",
        "Can you do 40 clamping rings for us by 12 March?",
        "Please make 40 clamping rings by 12 March. Please quote our PO number on all paperwork.",
    ],
)
def test_an_order_that_mentions_such_words_is_still_an_order(body: str) -> None:
    assert facts_of(take_in(body)) == ("RING-AL", 40, "2027-03-12")


def test_a_person_who_completes_the_request_has_decided_it_is_an_order() -> None:
    text = "From: Buyer <buyer@client.example>\nDate: Mon, 1 Mar 2027 09:00:00 +0100\nSubject: x\n\n"
    message = read_message(text + "Please cancel our 40 clamping rings due 12 March.")
    given = GivenFacts(given_by="dana", product="RING-AL", quantity=40, due="2027-03-12")
    order = resolve_request(message, RequestFacts(), SHOP, DAY, given)
    assert facts_of(order) == ("RING-AL", 40, "2027-03-12")


def test_plurals_and_materials_people_write_meet_the_catalogues() -> None:
    assert stem("muraux") == "mural" and stem("panneaux") == "panneau" and stem("teeth") == "tooth"
    assert words("28mm PP screw caps") == words("28 mm screw cap, polypropylene")
    assert words("inox") == words("stainless")
