"""Requests written by people, read by each backend's real client: the same facts, the same plan, or a stop.

The reading is one structured-output call through a typed tool (``RequestFacts``); whatever a model reads
passes the same resolver, and a request that does not resolve stops the start after that one call, with
nothing written: no shop change, no session, no audit event.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.agent.scripted_model import READ_TOOL
from production_orchestrator.cli.root import local_runtime
from production_orchestrator.domain.errors import NeedsFactsError
from production_orchestrator.services.evidence import current_state
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.model_scripts import Turn, planner, reading
from tests.support.provider_runs import (
    DUMMY_AWS_ENV,
    EXAMPLE_REQUESTS,
    backend,
    example_request,
    example_shop,
    resume,
    start,
)


@pytest.fixture(autouse=True)
def _dummy_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(key, value)


def reads(facts: dict[str, Any]) -> Any:
    """A model that reads ``facts`` from the e-mail, then plans as the planner does."""

    def script(messages: list[dict[str, Any]]) -> Turn:
        return Turn(tool=(READ_TOOL, facts)) if reading(messages) else planner(messages)

    return script


@pytest.mark.parametrize("request_name", sorted(EXAMPLE_REQUESTS))
def test_every_backend_reads_an_email_to_the_same_plan(tmp_path: Path, request_name: str) -> None:
    hashes, orders = {}, {}
    for name in ("deterministic", "bedrock", "ollama"):
        with backend(name) as be:
            started = start(tmp_path / name, example_request(request_name), be, shop=example_shop())
            hashes[name] = started.checkpoint.proposal_hash
            orders[name] = started.proposal.target_order
            if name == "bedrock":
                done = resume(tmp_path / name, started, be, approve=True)
                assert (done.outcome, done.revision, done.plan_applied_count) == ("applied", 2, 1)
    assert len(set(hashes.values())) == 1, hashes
    assert len({o.model_dump_json() for o in orders.values()}) == 1


@pytest.mark.parametrize(
    ("facts", "named"),
    [
        ({"product": "navy tote bag", "quantity": None, "due": "by Friday"}, "quantity: missing"),
        ({"product": "tote bag", "quantity": 400, "due": "by Friday"}, "matches several products"),
        (
            {"product": "navy tote bag", "quantity": 400, "due": None, "unclear": ["due date: Friday or Monday"]},
            "due date: Friday or Monday",
        ),
        ({"product": "mug", "quantity": 400, "due": "by Friday"}, "not a product of this shop"),
    ],
)
def test_an_unresolved_reading_stops_after_one_call_and_waits_as_needs_facts(
    tmp_path: Path, facts: dict[str, Any], named: str
) -> None:
    data_dir = tmp_path / "shop"
    rt = local_runtime(data_dir, create=True)
    import_shop(rt, ImportShop(example_shop()))
    with backend("bedrock", reads(facts)) as be:
        digest = current_state(rt.store).digest()
        with pytest.raises(NeedsFactsError, match=named):
            start(data_dir, example_request("request-totes"), be)
        assert be.server is not None and len(be.server.model_calls()) == 1
    # Nothing planned, the shop unchanged; the request waits as needs facts, never lost.
    assert current_state(rt.store).digest() == digest
    assert [h.kind for h in rt.store.held_requests()] == ["needs_facts"]
