"""The page of a version a revision replaced (AWS: the old link keeps opening version 1): it says who revised it
and names the version that replaces it (or is being planned), never that the shop changed."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from production_orchestrator.approval_web.endpoint import DecisionEndpoint
from production_orchestrator.approval_web.revision_form import WorkflowRevise
from production_orchestrator.domain.errors import GuidanceRefusedError
from production_orchestrator.services.runs.revise import PlanRevision, plan_revision
from tests.support.memory_world import MemoryWorld
from tests.unit.services.deciding.test_ask_revision import ANA, BEN, _pending


def _words(body: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body.split("<main>", 1)[1]))


def test_the_old_link_says_version_1_was_revised_and_names_version_2() -> None:
    world = MemoryWorld()
    started, made, _ = _pending(world)
    rt = world.ports()
    endpoint = DecisionEndpoint(rt=rt, reviser=WorkflowRevise(rt))
    link = {"a": made.approval_id, "s": made.secrets[ANA]}
    asked = endpoint.post(
        link, {"decision": "revise", "reviewed_hash": started.checkpoint.proposal_hash, "keep": "STANDARD-100"}
    )
    assert asked.status == 200 and asked.label == "revised"
    before = world.snapshot()
    shown = endpoint.show({"a": made.approval_id, "s": made.secrets[BEN]})
    words = _words(shown.body)
    assert shown.status == 200 and world.snapshot() == before
    assert "The shop changed" not in words and "Plan revised" in words
    assert f"revised by {ANA}" in words and "version 2 is being planned" in words


def test_a_revision_the_workflow_could_not_plan_is_said_on_the_old_link() -> None:
    world = MemoryWorld()
    started, made, _ = _pending(world)
    rt = world.ports()
    endpoint = DecisionEndpoint(rt=rt, reviser=WorkflowRevise(rt))
    today = started.proposal.planning_day
    form = {"decision": "revise", "reviewed_hash": started.checkpoint.proposal_hash, "overtime": f"EMB-01:{today}:60"}
    assert endpoint.post({"a": made.approval_id, "s": made.secrets[ANA]}, form).label == "revised"
    world.clock.advance(hours=15)  # planned after midnight: the overtime's day has passed
    command = PlanRevision(started.checkpoint.checkpoint_id, made.approval_id, world.binding, timedelta(hours=1))
    with pytest.raises(GuidanceRefusedError):
        plan_revision(world.runtime(), command)
    words = _words(endpoint.show({"a": made.approval_id, "s": made.secrets[BEN]}).body)
    assert "Plan revised: version 2 could not be planned" in words and "being planned" not in words
    assert "UNKNOWN_DAY" in words and "start the request again" in words
