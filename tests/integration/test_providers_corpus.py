"""The e-mail corpus read by each backend's real client: the same facts (the same order) or the same refusal.

The scripted model reads with the rule-based reader; Bedrock and Ollama clients talk to loopback servers
running the same script, so what differs is only the wire: the structured-output tool call through
Converse (streaming) and through Ollama's NDJSON chat. ``make test`` reads a sample of the corpus (one of
each kind); ``make corpus-providers`` (``PO_FULL_CORPUS=1``) reads all of it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from production_orchestrator.agent.extraction import read_request
from production_orchestrator.domain.errors import IntakeError
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.services.runs.plan_request import PlanRequest, plannable
from tests.support.provider_runs import BACKENDS, DUMMY_AWS_ENV, EXAMPLE_DAY, Backend, backend, example_shop
from tests.unit.domain.test_email_corpus import EXPECTED, corpus_text

SHOP = example_shop()
FULL = os.environ.get("PO_FULL_CORPUS") == "1"
# One e-mail of each kind: a language, a reply, a forward, HTML with hidden parts, a mislabelled charset, an
# attachment, a disagreeing label, a hostile one.
SAMPLE = (
    "de-01-stueck.eml",
    "fr-01-decembre.eml",
    "th-02-forward.eml",
    "html-02-hidden-variants.eml",
    "cs-02-utf8-declared-latin1.eml",
    "att-01-pdf-and-text.eml",
    "lab-01-label-disagrees.eml",
    "ho-01-escape-sequences.eml",
    "ho-03-huge-quantity.eml",
)


@pytest.fixture(scope="module")
def backends() -> Iterator[dict[str, Backend]]:
    with pytest.MonkeyPatch.context() as patch, ExitStack() as stack:
        for key, value in DUMMY_AWS_ENV.items():
            patch.setenv(key, value)
        yield {name: stack.enter_context(backend(name)) for name in BACKENDS}


def _reading(be: Backend, text: str) -> str:
    message = read_message(text)
    try:
        order, _ = read_request(be.binding, be.settings, message, SHOP, EXAMPLE_DAY)
        plannable(SHOP, order, PlanRequest(text=text, planning_day=EXAMPLE_DAY), message.text)
    except IntakeError as exc:
        return "refused: " + "; ".join(exc.problems)
    return order.model_dump_json()


@pytest.mark.parametrize("name", sorted(EXPECTED) if FULL else SAMPLE)
def test_every_backend_reads_the_same_facts(backends: dict[str, Backend], name: str) -> None:
    text = corpus_text(name)
    readings = {be_name: _reading(be, text) for be_name, be in backends.items()}
    assert len(set(readings.values())) == 1, readings
    assert readings["deterministic"].startswith("refused: ") == ("refused" in EXPECTED[name])
