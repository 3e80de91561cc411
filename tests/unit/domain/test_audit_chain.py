"""The audit hash chain: an edited, deleted or reordered event is found and named."""

from __future__ import annotations

from production_orchestrator.domain.approval.audit_chain import GENESIS, chained, event_hash, verify_chain
from production_orchestrator.domain.records import AuditEvent


def _trail(count: int = 5) -> tuple[list[AuditEvent | None], tuple[int, str]]:
    events: list[AuditEvent | None] = []
    head = None
    for index in range(count):
        event = chained(AuditEvent(event_type=f"step_{index}", at="2026-08-12T08:00:00Z"), head)
        events.append(event)
        head = (event.seq, event_hash(event))
    assert head is not None
    return events, head


def test_an_intact_chain_verifies() -> None:
    events, head = _trail()
    assert events[0] is not None and events[0].prev_hash == GENESIS
    report = verify_chain(events, head)
    assert report.intact and report.events == 5


def test_an_edited_event_breaks_the_next_link() -> None:
    events, head = _trail()
    assert events[2] is not None
    events[2] = events[2].model_copy(update={"detail": {"reason": "rewritten"}})
    report = verify_chain(events, head)
    assert report.broken_at == 4 and "seq 3 was edited" in report.problem


def test_an_edited_last_event_disagrees_with_the_head() -> None:
    events, head = _trail()
    assert events[4] is not None
    events[4] = events[4].model_copy(update={"event_type": "plan_rejected"})
    assert verify_chain(events, head).broken_at == 5


def test_a_deleted_event_leaves_a_gap() -> None:
    events, head = _trail()
    del events[1]
    report = verify_chain(events, head)
    assert report.broken_at == 2 and "missing or reordered between seq 1 and 3" in report.problem


def test_reordered_events_are_found() -> None:
    events, head = _trail()
    events[1], events[2] = events[2], events[1]
    assert verify_chain(events, head).broken_at == 2


def test_a_removed_tail_disagrees_with_the_head() -> None:
    events, head = _trail()
    report = verify_chain(events[:-1], head)
    assert report.broken_at == 5 and "removed or edited" in report.problem


def test_an_unreadable_event_is_named() -> None:
    events, head = _trail()
    events[3] = None
    assert verify_chain(events, head).broken_at == 4
