"""preview_plan: the proposal the agent would build for an e-mail, on a copy of the shop; refusals change nothing."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import IntakeError, ValidationError
from production_orchestrator.domain.planning.propose import Requested, build_proposal
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.services.runs.preview import preview_plan

RUSH = SCENARIOS["rush-order"]


def test_preview_is_the_proposal_of_the_request_waiting_beside_the_shop_and_leaves_the_shop_as_it_was() -> None:
    before = RUSH.state.digest()
    proposal = preview_plan(RUSH.state, RUSH.customer_email, RUSH.planning_day)
    order = RUSH.taken_in().order(RUSH.target_order_id)
    expected = build_proposal(
        RUSH.state, RUSH.target_order_id, RUSH.planning_day, Requested(proposal.request_text, pending=order)
    )
    assert proposal.proposal_hash() == expected.proposal_hash()
    assert proposal.planned_by == "solver" and RUSH.state.digest() == before
    greedy = preview_plan(RUSH.state, RUSH.customer_email, RUSH.planning_day, solver_nodes=0)
    assert greedy.planned_by == "greedy" and greedy.proposal_hash() != proposal.proposal_hash()


def test_a_request_without_its_facts_or_a_bad_day_is_refused() -> None:
    with pytest.raises(IntakeError, match="cannot be planned"):
        preview_plan(RUSH.state, "From: a@b.example\nSubject: hi\n\nSomething nice, please.\n", RUSH.planning_day)
    with pytest.raises(ValidationError, match="--as-of"):
        preview_plan(RUSH.state, RUSH.customer_email, "2026-13-40")
