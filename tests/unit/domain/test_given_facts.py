"""Facts a person gives at ``start`` are recorded with what the customer's e-mail said of them, when it said
something else, so the approver sees both."""

from __future__ import annotations

from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.given import given_against_email
from production_orchestrator.domain.planning.proposal import GivenFacts
from tests.support.provider_runs import EXAMPLE_DAY
from tests.unit.domain.test_email_corpus import SHOP, corpus_text

HEAD = "From: Lena Vogt <lena@harbour-books.example>\nDate: Tue, 1 Dec 2026 09:12:00 +0100\nSubject: Totes\n\n"


def said(text: str, **facts: object) -> dict[str, str]:
    given = given_against_email(read_message(text), SHOP, EXAMPLE_DAY, GivenFacts(given_by="dana", **facts))
    assert given is not None
    return {str(k): v for k, v in given.email_said.items()}


def test_what_the_email_said_instead_is_kept_and_what_it_agreed_on_is_not() -> None:
    text = HEAD + "We need 400 navy tote bags by Friday.\n"
    assert said(text, quantity=60, due="2026-12-15", product="TOTE-RED") == {
        "quantity": "400",
        "due": "2026-12-04",
        "product": "TOTE-NAVY",
    }
    assert said(text, quantity=400, due="2026-12-04", product="TOTE-NAVY") == {}  # the same: nothing to show
    assert said(text, customer="Harbour Books") == {"customer": "Lena Vogt"}


def test_an_email_that_said_nothing_of_a_fact_has_nothing_beside_it() -> None:
    assert said("From: x@y.example\n\nWe need navy tote bags.\n", quantity=60, due="2026-12-15") == {}


def test_an_unclear_fact_is_shown_as_the_email_gave_it() -> None:
    # lab-01: "400 navy tote bags by Friday" and "Quantity: 4000": the person settles it.
    assert said(corpus_text("lab-01-label-disagrees.eml"), quantity=400) == {
        "quantity": "several (4000 (labelled); 400)"
    }


def test_nothing_given_stays_nothing_and_what_the_email_said_never_carries_control_characters() -> None:
    assert given_against_email(read_message(HEAD + "x"), SHOP, EXAMPLE_DAY, None) is None
    hostile = 'From: "Evil\x1b[8m Corp" <e@x.example>\n\n60 navy tote bags by 2026-12-15\n'
    shown = said(hostile, customer="Someone")
    assert shown.keys() == {"customer"} and "\x1b" not in shown["customer"]
