"""The customer's message is written in the language the request was: greeting, quantity and product, the
day as that language writes it, on time or late, and the sign-off with the shop's name. The operator's and
the supplier's stay in the shop's English. The language is part of the proposal (hashed and reviewed)."""

from __future__ import annotations

from email import message_from_bytes
from email.policy import default
from typing import Any

import pytest

from production_orchestrator.domain.messages.outbox import OutboxMessage, render_email
from production_orchestrator.domain.planning.proposal import CommunicationDraft, ProposalContent, load_proposal
from production_orchestrator.domain.planning.propose import Requested, build_proposal
from production_orchestrator.domain.presentation import describe_messages
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import Order
from tests.support.provider_runs import EXAMPLE_DAY
from tests.unit.domain.test_email_corpus import SHOP, corpus_text, take_in


def planned(name: str) -> tuple[Order, ProposalContent]:
    """The corpus e-mail ``name`` taken in and planned on the example shop, as a start plans it."""
    text = corpus_text(name)
    order = take_in(text)
    return order, build_proposal(SHOP, order.id, EXAMPLE_DAY, Requested(text, pending=order))


def customer_draft(proposal: ProposalContent) -> CommunicationDraft:
    [draft] = [d for d in proposal.communication_drafts if d.audience == "customer"]
    return draft


def test_german_request_gets_a_german_message() -> None:
    order, proposal = planned("de-01-stueck.eml")  # 60 Stück TOTE-NAVY bis 15.12.2026, from Marco
    draft = customer_draft(proposal)
    assert draft.language == "de" == order.language
    assert draft.subject == "Ihre Bestellung 60 Stück navy tote bag ist für den 1. Dezember 2026 geplant"
    assert draft.body == (
        "Guten Tag Marco, Pizzeria Roma,\n\n"
        "vielen Dank für Ihre Bestellung: 60 Stück navy tote bag. Sie wird voraussichtlich am "
        "1. Dezember 2026 fertig, rechtzeitig zum 15. Dezember 2026.\n\n"
        "Falls sich an der Bestellung etwas geändert hat, antworten Sie bitte auf diese Nachricht.\n\n"
        "Mit freundlichen Grüßen\nHarbour Print & Stitch"
    )


def test_german_thousands_and_bought_material() -> None:
    _, proposal = planned("num-03-dot-de.eml")  # 1.200 Stück TOTE-NAVY bis 18.12.2026
    body = customer_draft(proposal).body
    assert "1.200 Stück navy tote bag" in body and "1200" not in body
    assert "rechtzeitig zum 18. Dezember 2026" in body
    assert "Wir beschaffen dafür zusätzliches Material und melden uns, sobald es eingetroffen ist." in body


def test_french_request_gets_a_french_message() -> None:
    _, proposal = planned("fr-01-decembre.eml")
    draft = customer_draft(proposal)
    assert draft.language == "fr"
    assert draft.subject == "Votre commande 300 pièces «\u00a0red tote bag\u00a0» est prévue pour le 1er décembre 2026"
    assert draft.body.startswith("Bonjour Claire Martin,\n\n")
    assert "merci pour votre commande : 300 pièces «\u00a0red tote bag\u00a0»." in draft.body
    assert "Elle sera terminée le 1er décembre 2026, à temps pour le 4 décembre 2026." in draft.body
    assert draft.body.endswith("Cordialement,\nHarbour Print & Stitch")


def test_spanish_request_gets_a_spanish_message() -> None:
    _, proposal = planned("es-01-diciembre.eml")
    draft = customer_draft(proposal)
    assert draft.language == "es"
    assert draft.subject == (
        "Su pedido 120 unidades de embroidered cap with club logo está previsto para el 5 de diciembre de 2026"
    )
    assert draft.body.startswith("Hola Ana López:\n\n")
    assert "gracias por su pedido: 120 unidades de embroidered cap with club logo." in draft.body
    assert "Está previsto terminarlo el 5 de diciembre de 2026, a tiempo para el 10 de diciembre de 2026." in (
        draft.body
    )
    assert "Estamos pidiendo material adicional" in draft.body
    assert draft.body.endswith("Saludos cordiales,\nHarbour Print & Stitch")


def test_dutch_request_gets_a_dutch_message() -> None:
    _, proposal = planned("nl-02-december.eml")
    draft = customer_draft(proposal)
    assert draft.language == "nl"
    assert draft.subject == "Uw bestelling 250 stuks embroidered cap with club logo is gepland voor 8 december 2026"
    assert draft.body.startswith("Beste Lena Vogt,\n\n")
    assert "hartelijk dank voor uw bestelling: 250 stuks embroidered cap with club logo." in draft.body
    assert "Deze is naar verwachting op 8 december 2026 klaar, op tijd voor 17 december 2026." in draft.body
    assert draft.body.endswith("Met vriendelijke groet,\nHarbour Print & Stitch")


def test_english_request_keeps_the_english_message() -> None:
    order, proposal = planned("en-01-plain.eml")
    draft = customer_draft(proposal)
    assert draft.language == "en"
    assert draft.subject == "Your order 400 x navy tote bag is planned for 2026-12-04"
    assert draft.body.startswith("Hello Lena Vogt,\n\nthank you for your order: 400 x navy tote bag.")
    assert order.id not in draft.subject + draft.body  # an id the customer never gave is never quoted to them
    assert "It is planned to be finished on 2026-12-04, in time for 2026-12-04." in draft.body
    assert draft.body.endswith("Kind regards,\nHarbour Print & Stitch")


def test_operator_and_supplier_stay_in_the_shops_english() -> None:
    _, proposal = planned("num-03-dot-de.eml")
    others = [d for d in proposal.communication_drafts if d.audience != "customer"]
    assert {d.audience for d in others} == {"operator", "supplier"}
    for draft in others:
        assert draft.language is None
        assert draft.body.startswith("Hello,") and draft.body.endswith("Kind regards,\nHarbour Print & Stitch")


def late_shop(language: str | None) -> ProposalContent:
    doc: dict[str, Any] = {
        "name": "Print Co",
        "timezone": "UTC",
        "machines": [{"id": "PRESS-A", "minutes_per_day": 480}],
        "materials": [],
        "products": [{"code": "TOTE", "description": "tote", "machines": ["PRESS-A"], "minutes_per_unit": 2}],
        "orders": [
            {"id": "HIGH", "customer": "H", "product": "TOTE", "quantity": 240, "due": "2026-12-31", "priority": 99,
             "schedule": [{"machine": "PRESS-A", "day": "2026-12-21", "minutes": 480}]},
            {"id": "NEW", "customer": "Nora", "customer_email": "n@n.example", "product": "TOTE",
             "quantity": 300, "due": "2026-12-21", "priority": 60, **({"language": language} if language else {})},
        ],
    }  # fmt: skip
    return build_proposal(read_shop(doc), "NEW", "2026-12-21", "From: n@n.example\n\n300 totes")


@pytest.mark.parametrize(
    ("language", "sentence", "subject"),
    [
        ("de", "Es tut uns leid: Den 21. Dezember 2026 können wir nicht halten. Wir rechnen mit der "
         "Fertigstellung am 23. Dezember 2026.", "Ihre Bestellung NEW: neuer Fertigstellungstermin 23. Dezember 2026"),
        ("fr", "Nous sommes désolés : nous ne pourrons pas tenir le 21 décembre 2026. Nous prévoyons de la terminer "
         "le 23 décembre 2026.", "Votre commande NEW : nouvelle date de fin le 23 décembre 2026"),
        ("es", "Lo sentimos: no podemos cumplir con el 21 de diciembre de 2026. Prevemos terminarlo el 23 de "
         "diciembre de 2026.", "Su pedido NEW: nueva fecha de entrega 23 de diciembre de 2026"),
        ("nl", "Het spijt ons: 21 december 2026 halen we niet. We verwachten de bestelling op 23 december 2026 klaar "
         "te hebben.", "Uw bestelling NEW: nieuwe opleverdatum 23 december 2026"),
        (None, "We are sorry: we cannot make 2026-12-21. We expect to finish it on 2026-12-23.",
         "Your order NEW: new finishing date 2026-12-23"),
    ],
)  # fmt: skip
def test_a_late_order_is_told_so_in_its_language(language: str | None, sentence: str, subject: str) -> None:
    proposal = late_shop(language)
    assert [r.order_id for r in proposal.at_risk] == ["NEW"]
    draft = customer_draft(proposal)
    assert sentence in draft.body and draft.subject == subject
    assert draft.language == (language or "en")  # no language recorded: English, and recorded as such


def test_the_recorded_language_is_the_drafts_and_is_part_of_the_hash() -> None:
    german, french = late_shop("de"), late_shop("fr")
    assert german.target_order.language == customer_draft(german).language == "de"
    assert german.proposal_hash() != french.proposal_hash()
    stored = german.to_bytes()
    assert b'"language":"de"' in stored  # in what is hashed, for the order and for the draft
    again = load_proposal(stored, german.proposal_hash())
    assert customer_draft(again).language == "de" and customer_draft(again).body == customer_draft(german).body
    # The approver is told which language the customer's message is in.
    line = f"To the customer (n@n.example): {customer_draft(german).subject} (written in German)"
    assert line in describe_messages(german)
    # A stored draft from before languages were recorded reads and hashes as it did.
    old = CommunicationDraft(audience="operator", to="a@b.example", subject="s", body="b")
    assert "language" not in old.model_dump(mode="json")


@pytest.mark.parametrize("name", ["de-01-stueck.eml", "fr-01-decembre.eml", "es-01-diciembre.eml"])
def test_the_message_sent_is_the_draft_word_for_word(name: str) -> None:
    _, proposal = planned(name)
    draft = customer_draft(proposal)
    queued = OutboxMessage(
        proposal_hash=proposal.proposal_hash(), index=0, checkpoint_id="ckpt-" + "0" * 32, kind="customer",
        to=draft.to, subject=draft.subject, body=draft.body, queued_at="2026-12-01T08:00:00Z",
    )  # fmt: skip
    sent = message_from_bytes(render_email(queued, "orders@harbour-print.example"), policy=default)
    assert sent["Subject"] == draft.subject
    body = sent.get_body()
    assert body is not None and body.get_content().replace("\r\n", "\n").rstrip("\n") == draft.body
