"""resume_approval: resume with the decision an approval records (page votes, receipts verified, the policy
asked again); a retry after it finished reads the outcome back."""

from __future__ import annotations

from typing import Any

import pytest

from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.services.deciding import resume_approval
from production_orchestrator.services.deciding.decide import Decide, decide
from production_orchestrator.services.deciding.resume_approval import ResumeDecided, resume_decided
from production_orchestrator.services.runs.start import StartResult
from tests.support.fakes import InMemoryMacKey
from tests.support.memory_world import MemoryWorld, Requested

ANA, BEN = "ana@example.com", "ben@example.com"


def _page_decision(world: MemoryWorld, approve: bool) -> tuple[StartResult, Requested]:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN))
    command = Decide(
        approval_id=made.approval_id,
        secret=made.secrets[BEN],
        approve=approve,
        reviewed_hash=started.checkpoint.proposal_hash,
        reason="" if approve else "the price went up",
    )
    result = decide(world.ports(), command)
    assert result.status == "recorded"
    return started, made


def _resume(world: MemoryWorld, started: StartResult, made: Requested, **kw: Any) -> Any:
    return resume_decided(
        world.runtime(receipt_key=kw.pop("mac_key", world.mac_key)),
        ResumeDecided(started.checkpoint.checkpoint_id, made.approval_id, world.binding, **kw),
    )


def test_the_page_decision_is_applied_once_and_a_retry_reads_it_back(world: MemoryWorld) -> None:
    started, made = _page_decision(world, approve=True)
    done = _resume(world, started, made)
    assert (done.outcome, done.revision, done.plan_applied_count) == ("applied", 2, 1)
    assert done.decision.approver == BEN
    before = world.snapshot()
    again = _resume(world, started, made)
    assert again.replayed and again.outcome == "applied"
    assert world.snapshot() == before


def test_a_page_rejection_resumes_with_its_reason(world: MemoryWorld) -> None:
    started, made = _page_decision(world, approve=False)
    done = _resume(world, started, made)
    assert done.outcome == "rejected" and done.decision.reason == "the price went up"
    assert world.store.audit_events()[-1].detail["reason"] == "the price went up"


def test_an_undecided_or_wrongly_keyed_approval_writes_nothing(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    made = world.request(started, (ANA, BEN))
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as undecided:
        _resume(world, started, made)
    assert undecided.value.code is RefusalCode.UNAUTHORIZED_APPROVER and "no decision yet" in str(undecided.value)
    assert world.snapshot() == before
    decided_world = world
    started2, made2 = _page_decision(decided_world, approve=True)
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as keyed:
        _resume(world, started2, made2, mac_key=InMemoryMacKey())
    assert keyed.value.code is RefusalCode.RECEIPT_INVALID
    assert world.snapshot() == before


def test_a_removed_approver_s_decision_no_longer_resumes(world: MemoryWorld) -> None:
    started, made = _page_decision(world, approve=True)  # BEN decided
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as removed:
        _resume(world, started, made, allowed=[ANA])
    assert removed.value.code is RefusalCode.UNAUTHORIZED_APPROVER and world.snapshot() == before


def test_before_claim_is_passed_through(world: MemoryWorld) -> None:
    started, made = _page_decision(world, approve=True)
    calls: list[str] = []
    _resume(world, started, made, before_claim=lambda: calls.append("checked"))
    assert calls == ["checked"]


@pytest.mark.parametrize("late", ["stale_reasons", "verify"])
def test_a_cli_resume_that_lost_the_race_is_already_decided_not_stale(
    world: MemoryWorld, monkeypatch: pytest.MonkeyPatch, late: str
) -> None:
    """Two `resume --approver` at once: the one that read the approval open, and then found the shop changed by
    the other's apply, is told what happened (ALREADY_DECIDED), not that the shop moved on."""
    started = world.start()
    real = getattr(resume_approval, late)

    def the_other_wins_first(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(resume_approval, late, real)
        assert world.resume(started, True).outcome == "applied"  # another process decided and applied meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(resume_approval, late, the_other_wins_first)
    before = world.snapshot()
    with pytest.raises(ResumeRefusedError) as refused:
        world.resume(started, True)
    assert refused.value.code is RefusalCode.ALREADY_DECIDED
    after = world.snapshot()
    assert world.store.application_count() == 1 and after != before  # the other's apply, nothing of ours
