"""revise: an approver's guidance makes version 2 of the same request's plan; version 1 is closed in the same
transaction and refused after it (SUPERSEDED, naming version 2); version 2 goes through the whole policy and
applies exactly once; every refusal writes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from production_orchestrator.domain.errors import GuidanceRefusedError, IntakeError, RefusalCode, ResumeRefusedError
from production_orchestrator.domain.planning.guidance import Guidance, Overtime
from production_orchestrator.domain.planning.proposal import load_proposal
from production_orchestrator.domain.records import audit_event
from production_orchestrator.domain.scenarios import TODAY, TOMORROW
from production_orchestrator.domain.shop.model import ClosedOrder
from production_orchestrator.services.asking.request_approval import LOCAL_TASK_TOKEN, LinkPlan
from production_orchestrator.services.runs.revise import Revise, revise
from production_orchestrator.services.runs.start import StartResult
from tests.support.memory_world import MemoryWorld

ANA, BEN = "ana@example.com", "ben@example.com"
KEEP = Guidance(keep=("STANDARD-100",))


def _revise(world: MemoryWorld, started: StartResult, guidance: Guidance = KEEP, actor: str = ANA) -> StartResult:
    return revise(world.runtime(), Revise(started.checkpoint.checkpoint_id, actor, guidance, world.binding))


def _standard(world: MemoryWorld) -> list[tuple[str, str, int]]:
    state = world.store.load_state()
    assert state is not None
    order = state.order("STANDARD-100")
    assert order is not None
    return [(a.machine, a.day, a.minutes) for a in order.schedule]


def test_a_kept_order_is_not_moved_and_version_2_replaces_version_1(world: MemoryWorld) -> None:
    started = world.start()
    assert any(c.order_id == "STANDARD-100" for c in started.proposal.schedule_changes)  # version 1 moves it
    v2 = _revise(world, started)
    assert v2.proposal.version == 2 and v2.proposal.revision is not None
    assert v2.proposal.revision.supersedes == started.checkpoint.proposal_hash
    assert v2.proposal.revision.given_by == ANA and v2.proposal.revision.guidance == KEEP
    assert [c.order_id for c in v2.proposal.schedule_changes] == ["RUSH-200"]
    risk = {r.order_id: r for r in v2.proposal.at_risk}["RUSH-200"]  # honest: the keep costs the due date
    assert "STANDARD-100 kept where it is" in risk.detail
    old, new = world.approval(started.approval.approval_id), v2.approval  # type: ignore[union-attr]
    assert new is not None and new.version == 2 and new.votes == () and new.supersedes == old.approval_id
    assert new.policy == old.policy and new.links == old.links
    assert (old.status, old.successor_version, old.successor_hash) == ("superseded", 2, v2.checkpoint.proposal_hash)
    event = world.store.audit_events()[-1]
    assert event.event_type == "plan_revised" and event.checkpoint_id == v2.checkpoint.checkpoint_id
    assert event.detail["version"] == 2 and event.detail["supersedes_proposal"] == started.checkpoint.proposal_hash
    assert "STANDARD-100 is no longer moved" in event.detail["changes"]
    assert world.store.application_count() == 0 and _standard(world) == [("EMB-01", TODAY, 360)]


def test_version_1_is_refused_after_it_and_version_2_applies_once(world: MemoryWorld) -> None:
    started = world.start()
    v2 = _revise(world, started)
    assert v2.approval is not None
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(started, approve=True)
    assert refused.value.code is RefusalCode.SUPERSEDED
    assert "version 2" in refused.value.human_message and v2.approval.approval_id in refused.value.human_message
    assert world.snapshot() == before
    done = world.resume(v2, approve=True)
    assert done.outcome == "applied" and world.store.application_count() == 1
    assert world.store.application_count(v2.checkpoint.proposal_hash) == 1
    assert _standard(world) == [("EMB-01", TODAY, 360)]  # the kept order stayed where it was
    for replay in (v2, started):  # approvable once: neither version applies again
        with pytest.raises(ResumeRefusedError):
            world.resume(replay, approve=True)
    assert world.store.application_count() == 1


def test_overtime_is_a_calendar_change_applied_only_with_the_plan(world: MemoryWorld) -> None:
    started = world.start()
    extra = Overtime(machine="EMB-01", day=TODAY, minutes=120)
    v2 = _revise(world, started, Guidance(keep=("STANDARD-100",), overtime=(extra,)))
    assert v2.proposal.calendar_changes == (extra,) and v2.proposal.at_risk == ()  # on time with the overtime
    state = world.store.load_state()
    assert state is not None and state.machine("EMB-01").overtime == ()  # type: ignore[union-attr]
    assert world.resume(v2, approve=True).outcome == "applied"
    after = world.store.load_state()
    assert after is not None and after.machine("EMB-01").minutes_on(TODAY) == 480 + 120  # type: ignore[union-attr]
    assert after.machine("EMB-01").minutes_on(TOMORROW) == 480  # type: ignore[union-attr]
    assert after.booked_minutes("EMB-01", TODAY) == 600


def test_given_facts_replace_what_the_email_said(world: MemoryWorld) -> None:
    started = world.start()
    v2 = _revise(world, started, Guidance(quantity=5, note="the customer called"))
    assert v2.proposal.target_order.quantity == 5 and v2.proposal.given is not None
    assert v2.proposal.given.given_by == ANA and v2.proposal.given.quantity == 5
    assert v2.proposal.revision is not None and v2.proposal.revision.guidance.note == "the customer called"


@pytest.mark.parametrize(
    ("guidance", "code"),
    [
        (Guidance(), "NO_GUIDANCE"),
        (Guidance(keep=("NOPE-1",)), "UNKNOWN_ORDER"),
        (Guidance(keep=("RUSH-200",)), "KEEP_NEW_ORDER"),
        (Guidance(overtime=(Overtime(machine="EMB-99", day=TODAY, minutes=60),)), "UNKNOWN_MACHINE"),
        (Guidance(overtime=(Overtime(machine="EMB-01", day="2026-01-01", minutes=60),)), "UNKNOWN_DAY"),
        (Guidance(overtime=(Overtime(machine="EMB-01", day=TODAY, minutes=1000),)), "MINUTES_OVER_DAY"),
    ],
)
def test_guidance_the_shop_cannot_honour_is_refused_with_nothing_written(
    world: MemoryWorld, guidance: Guidance, code: str
) -> None:
    started = world.start()
    before = world.snapshot()
    with pytest.raises(GuidanceRefusedError) as refused:
        _revise(world, started, guidance)
    assert refused.value.code.value == code and world.snapshot() == before


def test_only_someone_who_may_vote_may_revise(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    world.request(started, (ANA, BEN), requester=BEN, separation_of_duties=True)
    before = world.snapshot()
    for outsider in ("mallory@example.com", BEN):  # not asked; the requester under separation of duties
        with pytest.raises(ResumeRefusedError) as refused:
            _revise(world, started, actor=outsider)
        assert refused.value.code is RefusalCode.UNAUTHORIZED_APPROVER and world.snapshot() == before
    assert _revise(world, started, actor=ANA.upper()).proposal.version == 2  # one identity form


def test_a_decided_or_expired_plan_is_not_revised(world: MemoryWorld) -> None:
    started = world.start(window=timedelta(hours=1))
    world.clock.advance(days=2)
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as expired:
        _revise(world, started)
    assert expired.value.code is RefusalCode.EXPIRED and world.snapshot() == before
    world = MemoryWorld()
    decided = world.start()
    assert world.resume(decided, approve=True).outcome == "applied"
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as closed:
        _revise(world, decided, Guidance(note="too late"))
    assert closed.value.code is RefusalCode.ALREADY_DECIDED and world.snapshot() == before


def test_two_revisions_at_once_give_one_version_2(world: MemoryWorld) -> None:
    started = world.start()
    won: list[StartResult] = []

    def the_other_one_first() -> None:  # both passed the checks; the other writes first
        won.append(_revise(world, started, Guidance(note="first")))

    late = Revise(started.checkpoint.checkpoint_id, ANA, KEEP, world.binding, before_agent=the_other_one_first)
    with pytest.raises(ResumeRefusedError) as lost:
        revise(world.runtime(), late)
    checkpoints = world.store.list_checkpoints()
    assert lost.value.code is RefusalCode.SUPERSEDED and won[0].approval is not None
    assert won[0].approval.approval_id in lost.value.human_message
    assert len(checkpoints) == 2  # version 1 and the one version 2
    versions = [a for a in world.approvals.list_approvals() if a.version == 2]
    assert [a.approval_id for a in versions] == [won[0].approval.approval_id]
    with pytest.raises(ResumeRefusedError) as after:  # and a revision of version 1 afterwards: the same answer
        _revise(world, started)
    assert after.value.code is RefusalCode.SUPERSEDED


def test_version_2_can_be_revised_into_version_3(world: MemoryWorld) -> None:
    started = world.start()
    v2 = _revise(world, started)
    v3 = _revise(world, v2, Guidance(overtime=(Overtime(machine="EMB-01", day=TODAY, minutes=120),)))
    assert v3.proposal.version == 3 and v3.proposal.revision is not None
    assert v3.proposal.revision.supersedes == v2.checkpoint.proposal_hash
    stored = world.store.get_proposal(v3.checkpoint.proposal_hash)
    assert stored is not None and load_proposal(stored, v3.checkpoint.proposal_hash) == v3.proposal


def _bounded(world: MemoryWorld, versions: int) -> StartResult:
    """A local run whose plan may have ``versions`` versions (``start --max-versions``)."""
    return world.start(approval=LinkPlan.fresh(MemoryWorld.policy((ANA,), max_versions=versions), LOCAL_TASK_TOKEN))


def test_the_last_version_is_not_revised_and_nothing_is_written(world: MemoryWorld) -> None:
    v2 = _revise(world, _bounded(world, 2))
    assert v2.approval is not None and v2.approval.policy.max_versions == 2  # the successor keeps the bound
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        _revise(world, v2, Guidance(note="once more"))
    assert refused.value.code is RefusalCode.VERSION_LIMIT
    assert "version 2 is the last version this plan may have" in refused.value.human_message
    assert world.snapshot() == before and world.approval(v2.approval.approval_id).status == "pending"
    assert world.resume(v2, approve=True, approver=ANA).outcome == "applied"  # the last version still decides


def test_one_version_means_no_revision_and_only_who_may_vote_learns_of_the_bound(world: MemoryWorld) -> None:
    started = _bounded(world, 1)
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as outsider:
        _revise(world, started, actor="mallory@example.com")
    assert outsider.value.code is RefusalCode.UNAUTHORIZED_APPROVER
    with pytest.raises(ResumeRefusedError) as refused:
        _revise(world, started)
    assert refused.value.code is RefusalCode.VERSION_LIMIT and world.snapshot() == before


def test_a_revision_a_day_later_books_no_day_that_has_passed(world: MemoryWorld) -> None:
    started = world.start(window=timedelta(days=3))  # made on TODAY, booking RUSH-200 on TODAY
    world.clock.advance(days=1)  # TODAY has passed: the shop's day is TOMORROW
    before = world.snapshot()
    past = Guidance(keep=("STANDARD-100",), overtime=(Overtime(machine="EMB-01", day=TODAY, minutes=120),))
    with pytest.raises(GuidanceRefusedError) as refused:  # overtime on a day gone by is no day of the new plan
        _revise(world, started, past)
    assert refused.value.code.value == "UNKNOWN_DAY" and "has passed" in refused.value.human_message
    assert world.snapshot() == before
    with pytest.raises(IntakeError) as late:  # the order was due on the day that passed: say so, plan nothing
        _revise(world, started, Guidance(note="plan it from today"))
    assert "before the planning day" in str(late.value) and world.snapshot() == before
    v2 = _revise(world, started, Guidance(due=TOMORROW, note="the customer takes it a day later"))
    assert v2.proposal.planning_day == TOMORROW and v2.proposal.target_order.due == TOMORROW
    booked = {a.day for c in v2.proposal.schedule_changes for a in c.after}
    assert booked and min(booked) >= TOMORROW, booked


def test_a_stale_version_1_is_revised_on_the_shop_as_it_is_now(world: MemoryWorld) -> None:
    started = world.start()
    world.store.set_inventory("THREAD-RED-40", 0, audit_event("inventory_set", world.clock()))  # the shop moved on
    with pytest.raises(ResumeRefusedError) as stale:
        world.resume(started, approve=True)
    assert stale.value.code is RefusalCode.STALE_DOMAIN_STATE
    v2 = _revise(world, started)  # "yes, but not like that" of a stale plan: planned again on the current shop
    bought = {p.material_id: p.quantity for p in v2.proposal.procurement_actions}
    assert bought == {"THREAD-RED-40": 1200} and [c.order_id for c in v2.proposal.schedule_changes] == ["RUSH-200"]
    assert world.resume(v2, approve=True).outcome == "applied" and world.store.application_count() == 1
    assert _standard(world) == [("EMB-01", TODAY, 360)]


def test_overtime_on_a_closed_day_is_refused_with_nothing_written(world: MemoryWorld) -> None:
    started = world.start()
    shop = world.store.load_state()
    assert shop is not None
    saturday = "2026-08-15"
    closed = shop.model_copy(
        update={"machines": tuple(m.model_copy(update={"closed_days": (saturday,)}) for m in shop.machines)}
    )
    world.store.replace_shop(closed, (shop.revision, shop.digest()), audit_event("shop_imported", world.clock()))
    before = world.snapshot()
    with pytest.raises(GuidanceRefusedError) as refused:
        _revise(world, started, Guidance(overtime=(Overtime(machine="EMB-01", day=saturday, minutes=60),)))
    assert refused.value.code.value == "CLOSED_DAY" and "does not work on 2026-08-15" in refused.value.human_message
    assert world.snapshot() == before


def test_version_2_needs_what_its_own_plan_needs_under_the_stored_policy(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN), quorum=2, quorum_above_quantity=1000)
    assert world.approval(made.approval_id).required == 1  # version 1 buys 600
    world.clock.advance(hours=1)
    v2 = _revise(world, started, Guidance(quantity=300, due="2026-08-20"))  # the customer called: 300, not 120
    assert v2.approval is not None and sum(p.quantity for p in v2.proposal.procurement_actions) > 1000
    assert v2.approval.required == 2 and v2.approval.votes == ()  # the quorum applies again, from no votes
    assert v2.approval.expires_at == v2.checkpoint.expires_at > started.checkpoint.expires_at  # counted from now


def test_the_note_and_the_guidance_reach_the_models_first_turn(world: MemoryWorld) -> None:
    started = world.start()
    note = "run the lathe on Saturday; Acme is our biggest customer"
    v2 = _revise(world, started, Guidance(keep=("STANDARD-100",), note=note))
    session, agent = v2.checkpoint.session_id, v2.checkpoint.agent_id
    first = world.sessions.repository.read_message(session, agent, 0)  # what any model (Bedrock, Ollama) is sent first
    assert first is not None
    text = "".join(part.get("text", "") for part in first.message["content"])
    guided = text.split("<approver-guidance>", 1)[1].split("</approver-guidance>", 1)[0]
    assert "- keep STANDARD-100 where it is" in guided and f"- note: {note}" in guided
    assert v2.proposal.revision is not None and v2.proposal.revision.guidance.note == note  # and recorded


def test_keeping_an_order_that_was_cancelled_or_completed_is_refused_saying_so(world: MemoryWorld) -> None:
    started = world.start()
    shop = world.store.load_state()
    assert shop is not None
    standard = shop.order("STANDARD-100")
    assert standard is not None
    gone = ClosedOrder(order=standard, status="cancelled", closed_on=TODAY, reason="customer withdrew")
    closed = shop.model_copy(update={"orders": tuple(o for o in shop.orders if o.id != "STANDARD-100"),
                                     "closed_orders": (gone,)})  # fmt: skip
    world.store.replace_shop(closed, (shop.revision, shop.digest()), audit_event("order_cancelled", world.clock()))
    before = world.snapshot()
    with pytest.raises(GuidanceRefusedError) as refused:
        _revise(world, started)
    assert refused.value.code.value == "UNKNOWN_ORDER" and world.snapshot() == before
    assert "STANDARD-100 was cancelled on 2026-08-12 (customer withdrew)" in refused.value.human_message
