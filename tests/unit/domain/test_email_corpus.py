"""The e-mail corpus (tests/corpus/): every customer e-mail becomes the order its reader would expect, or a
refusal naming each fact that is missing or unclear, with nothing else read into it.

Each e-mail is read as ``start --request FILE`` reads it (bytes: UTF-8, else Latin-1), on the example shop,
planned on 2026-12-01. ``expected.json`` holds, per file, the product, quantity, due day, language (and the
customer, where it matters), or ``{"refused": [facts named]}``.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.cli.files import read_text
from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.facts import read_facts, resolve_request
from production_orchestrator.domain.shop.model import Order
from production_orchestrator.services.runs.plan_request import PlanRequest, plannable
from tests.support.provider_runs import EXAMPLE_DAY, example_shop

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
EXPECTED: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
SHOP = example_shop()


def corpus_text(name: str) -> str:
    """The e-mail ``name`` as the CLI reads a request file."""
    return read_text(str(CORPUS / name), "request")


def take_in(text: str) -> Order:
    """The order the deterministic reader makes of ``text`` on the example shop, checked plannable."""
    message = read_message(text)
    facts = read_facts(message, SHOP.products, message.sent_day or date.fromisoformat(EXAMPLE_DAY))
    order = resolve_request(message, facts, SHOP, EXAMPLE_DAY)
    plannable(SHOP, order, PlanRequest(text=text, planning_day=EXAMPLE_DAY), message.text)
    return order


def test_the_corpus_is_large_and_every_file_has_an_expectation() -> None:
    files = sorted(p.name for p in CORPUS.iterdir() if p.name != "expected.json")
    assert files == sorted(EXPECTED)
    assert len(files) >= 60
    prefixes = {name.split("-")[0] for name in files}
    assert {"en", "de", "fr", "es", "nl", "th", "html", "cs", "att", "ho", "lab"} <= prefixes


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_email_gives_its_expected_facts_or_refusal(name: str) -> None:
    expected = EXPECTED[name]
    text = corpus_text(name)
    if "refused" in expected:
        with pytest.raises(IntakeError) as caught:
            take_in(text)
        named = sorted({p.split(":", 1)[0] for p in caught.value.problems})
        assert named == sorted(expected["refused"]), caught.value.problems
        return
    order = take_in(text)
    found = {"product": order.product, "quantity": order.quantity, "due": order.due, "language": order.language}
    if "customer" in expected:
        found["customer"] = order.customer
    assert found == expected


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if "refused" not in e))
def test_the_canonical_text_reads_back_to_the_same_message(name: str) -> None:
    # The model, the proposal and a re-run read message.text, not the raw e-mail: it must say the same.
    message = read_message(corpus_text(name))
    assert read_message(message.text) == message
    assert take_in(message.text) == take_in(corpus_text(name))
