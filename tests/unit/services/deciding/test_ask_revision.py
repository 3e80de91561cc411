"""ask_revision (AWS): "Change the plan" on the page records the ask on version 1's approval (it closes) and wakes
the workflow with revise: true; the workflow's plan_revision plans version 2 with the guidance the approval holds;
request_approval gives it new links and links version 1's approval to it. Every refusal writes nothing."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from production_orchestrator.domain.approval.authority import Ask, authorize
from production_orchestrator.domain.approval.verification import Refusal
from production_orchestrator.domain.errors import GuidanceRefusedError, RefusalCode, ResumeRefusedError
from production_orchestrator.domain.planning.guidance import Guidance, Overtime
from production_orchestrator.domain.shop.model import add_days
from production_orchestrator.services.asking.request_approval import RequestApproval, request_approval
from production_orchestrator.services.deciding.ask_revision import AskRevision, ask_revision
from production_orchestrator.services.deciding.review import Link, LinkView, open_link
from production_orchestrator.services.history import history
from production_orchestrator.services.runs.revise import PlanRevision, plan_revision
from production_orchestrator.services.runs.start import StartResult
from production_orchestrator.services.status import status
from tests.support.memory_world import TOKEN, MemoryWorld, Requested

ANA, BEN = "ana@example.com", "ben@example.com"
KEEP = Guidance(keep=("STANDARD-100",))
WINDOW = timedelta(hours=1)  # the deployment's approval window, counted from the revision


def _pending(world: MemoryWorld) -> tuple[StartResult, Requested, LinkView]:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN))
    view = open_link(world.ports(), Link(made.approval_id, made.secrets[ANA]))
    assert view is not None
    return started, made, view


def test_refused_asks_write_nothing_and_wake_nothing(world: MemoryWorld) -> None:
    _, made, view = _pending(world)
    before = world.snapshot()
    with pytest.raises(GuidanceRefusedError) as unknown:
        ask_revision(world.ports(), AskRevision(view, Guidance(keep=("NOPE-1",))))
    assert unknown.value.code.value == "UNKNOWN_ORDER"
    with pytest.raises(ResumeRefusedError) as outsider:
        ask_revision(world.ports(), AskRevision(view, KEEP, allowed=frozenset({BEN})))
    assert outsider.value.code is RefusalCode.UNAUTHORIZED_APPROVER
    assert world.snapshot() == before and world.callback.calls == []
    assert world.approval(made.approval_id).status == "pending"


def test_an_ask_closes_version_1_wakes_the_workflow_once_and_a_second_ask_is_superseded(world: MemoryWorld) -> None:
    started, made, view = _pending(world)
    asked = ask_revision(world.ports(), AskRevision(view, KEEP))
    assert asked.wake == "woken"
    assert world.callback.calls == [
        (TOKEN, {"checkpoint_id": started.checkpoint.checkpoint_id, "approval_id": made.approval_id, "revise": True})
    ]
    stored = world.approval(made.approval_id)
    assert (stored.status, stored.successor_version, stored.superseded_by) == ("superseded", 2, "")
    assert stored.revision_asked is not None and stored.revision_asked.given_by == ANA
    events = [e for e in world.store.audit_events() if e.event_type == "revision_asked"]
    assert len(events) == 1 and events[0].detail["guidance"] == ["keep STANDARD-100 where it is"]
    # Ben's vote and a second ask (Ana's double click, or Ben) are refused, naming the version being planned.
    before = world.snapshot()
    ben = open_link(world.ports(), Link(made.approval_id, made.secrets[BEN]))
    assert ben is not None
    verdict = authorize(ben.approval, Ask("link", True, started.checkpoint.proposal_hash, actor=BEN), world.clock())
    assert isinstance(verdict, Refusal) and verdict.code is RefusalCode.SUPERSEDED
    assert "version 2 is being planned" in verdict.message
    with pytest.raises(ResumeRefusedError) as again:
        ask_revision(world.ports(), AskRevision(ben, KEEP))
    assert again.value.code is RefusalCode.SUPERSEDED
    assert world.snapshot() == before and len(world.callback.calls) == 1


def test_the_workflow_plans_version_2_with_new_links_and_links_version_1_to_it(world: MemoryWorld) -> None:
    started, made, view = _pending(world)
    ask_revision(world.ports(), AskRevision(view, KEEP))
    command = PlanRevision(started.checkpoint.checkpoint_id, made.approval_id, world.binding, WINDOW)
    v2, answered = plan_revision(world.runtime(), command)
    assert answered.approval_id == made.approval_id
    assert v2.proposal.version == 2 and v2.proposal.revision is not None
    assert v2.proposal.revision.supersedes == started.checkpoint.proposal_hash
    assert "STANDARD-100" not in {c.order_id for c in v2.proposal.schedule_changes}
    world.notifier.messages.clear()
    request = RequestApproval(
        checkpoint_id=v2.checkpoint.checkpoint_id,
        proposal_hash=v2.checkpoint.proposal_hash,
        task_token="token-2",
        policy=world.policy((ANA, BEN)),
        link_base_url="https://approvals.example.com/approve",
        supersedes=made.approval_id,
    )
    made_v2 = request_approval(world.ports(), request)
    secrets = {m.approver: parse_qs(urlsplit(m.link).query)["s"][0] for m in world.notifier.messages}
    assert secrets[ANA] != made.secrets[ANA]  # new links: the new version is decided afresh
    v1 = world.approval(made.approval_id)
    assert (v1.superseded_by, v1.successor_hash) == (made_v2.approval_id, v2.checkpoint.proposal_hash)
    assert world.approval(made_v2.approval_id).supersedes == made.approval_id
    # The old link still shows version 1, closed, naming version 2; the new link opens version 2.
    old = open_link(world.ports(), Link(made.approval_id, made.secrets[ANA]))
    assert old is not None and old.approval.approval_id == made.approval_id
    new = open_link(world.ports(), Link(made_v2.approval_id, secrets[ANA]))
    assert new is not None and new.checkpoint.checkpoint_id == v2.checkpoint.checkpoint_id
    # A replayed wake-up plans nothing twice.
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as replayed:
        plan_revision(world.runtime(), command)
    assert replayed.value.code is RefusalCode.ALREADY_DECIDED and world.snapshot() == before


def test_no_revision_is_planned_for_an_approval_that_holds_no_ask(world: MemoryWorld) -> None:
    started, made, _ = _pending(world)
    before = world.snapshot()
    command = PlanRevision(started.checkpoint.checkpoint_id, made.approval_id, world.binding, WINDOW)
    with pytest.raises(ResumeRefusedError) as refused:
        plan_revision(world.runtime(), command)
    assert refused.value.code is RefusalCode.CHECKPOINT_INVALID and world.snapshot() == before


def test_the_last_version_is_not_revised_through_the_workflow_either(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN), max_versions=1)
    view = open_link(world.ports(), Link(made.approval_id, made.secrets[ANA]))
    assert view is not None
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        ask_revision(world.ports(), AskRevision(view, KEEP))
    assert refused.value.code is RefusalCode.VERSION_LIMIT
    assert world.snapshot() == before and world.callback.calls == []  # no ask recorded, the workflow not woken
    assert world.approval(made.approval_id).status == "pending"


def test_a_day_that_passed_is_no_day_of_the_revision_on_asking_or_planning(world: MemoryWorld) -> None:
    started, made, view = _pending(world)
    today = started.proposal.planning_day
    overtime = Guidance(overtime=(Overtime(machine="EMB-01", day=today, minutes=120),), due=add_days(today, 2))
    ask_revision(world.ports(), AskRevision(view, overtime))  # asked on the day itself: a day of the plan
    world.clock.advance(hours=15)  # the workflow plans it after midnight in the shop's zone: that day has passed
    before = world.snapshot()
    command = PlanRevision(started.checkpoint.checkpoint_id, made.approval_id, world.binding, WINDOW)
    with pytest.raises(GuidanceRefusedError) as passed:
        plan_revision(world.runtime(), command)
    assert passed.value.code.value == "UNKNOWN_DAY" and "has passed" in passed.value.human_message
    # No version 2 (the workflow ends RevisionNotPlanned), and version 1's approval says why, not "being planned".
    assert len(world.store.list_checkpoints()) == 1
    said = world.approval(made.approval_id)
    assert said.status == "superseded" and said.revision_asked is not None and not said.superseded_by
    assert said.revision_asked.not_planned.startswith("UNKNOWN_DAY: --overtime EMB-01:")
    event = world.store.audit_events()[-1]
    assert event.event_type == "revision_not_planned" and event.detail["version"] == 2
    verdict = authorize(said, Ask("link", True, started.checkpoint.proposal_hash, actor=BEN), world.clock())
    assert isinstance(verdict, Refusal) and verdict.code is RefusalCode.SUPERSEDED
    assert (
        "version 2 could not be planned (UNKNOWN_DAY" in verdict.message
        and "start the request again" in verdict.message
    )
    told = [(e.event, e.approver) for e in history(world.runtime()) if e.event in ("asked", "not planned")]
    assert told == [("asked", ANA), ("not planned", "")]
    listed = status(world.runtime())["approvals"][0]["superseded_by"]
    assert (listed["approval_id"], listed["not_planned"]) == ("", said.revision_asked.not_planned)
    after = world.snapshot()
    with pytest.raises(GuidanceRefusedError):  # a replayed wake-up: refused the same way, said once
        plan_revision(world.runtime(), command)
    assert world.snapshot() == after and world.snapshot() != before

    world = MemoryWorld()
    _, made, view = _pending(world)
    world.clock.advance(hours=15)
    before = world.snapshot()
    with pytest.raises(GuidanceRefusedError) as asked:  # and asked after midnight: refused before it is recorded
        ask_revision(world.ports(), AskRevision(view, overtime))
    assert asked.value.code.value == "UNKNOWN_DAY" and world.snapshot() == before and world.callback.calls == []
