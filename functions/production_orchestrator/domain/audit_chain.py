"""The audit trail as a hash chain: each event carries its sequence number and the hash of the one before.

    event 1 (prev = GENESIS) <- event 2 (prev = hash(event 1)) <- ... <- head (seq, hash of the last)

Stores stamp ``seq`` and ``prev_hash`` inside the transaction that appends the event, so concurrent
writers cannot fork the chain. :func:`verify_chain` names the first link that does not hold: an edited
event breaks the link after it, a deleted one leaves a gap, a reordered pair breaks where they meet, and
a truncated tail disagrees with the stored head.
"""

from __future__ import annotations

from dataclasses import dataclass

from .canonical import content_hash
from .records import AuditEvent

GENESIS = "0" * 64


def event_hash(event: AuditEvent) -> str:
    """``sha256(canonical(event))``, ``seq`` and ``prev_hash`` included."""
    return content_hash(event.model_dump(mode="json"))


def chained(event: AuditEvent, head: tuple[int, str] | None) -> AuditEvent:
    """``event`` stamped as the successor of ``head`` (None: the first event)."""
    seq, prev = head if head is not None else (0, GENESIS)
    return event.model_copy(update={"seq": seq + 1, "prev_hash": prev})


@dataclass(frozen=True)
class ChainReport:
    """The verdict: how many events were checked and, when broken, the first broken link."""

    events: int
    broken_at: int | None = None  # 1-based position in the stored order
    problem: str = ""

    @property
    def intact(self) -> bool:
        """True when every link holds."""
        return self.broken_at is None


def verify_chain(events: list[AuditEvent | None], head: tuple[int, str] | None) -> ChainReport:
    """Check every link of ``events`` (stored order; None = unreadable) against each other and ``head``."""
    prev_seq, prev_hash = 0, GENESIS
    hashes: dict[int, str] = {}
    for position, event in enumerate(events, start=1):
        where = f"event #{position}"
        if event is None:
            return ChainReport(len(events), position, f"{where} is unreadable (edited in storage)")
        label = f"{where} (seq {event.seq}, {event.event_type} at {event.at})"
        if event.seq != prev_seq + 1:
            missing = "missing or reordered" if event.seq > prev_seq + 1 else "repeated or reordered"
            return ChainReport(
                len(events),
                position,
                f"{label} follows seq {prev_seq}: events are {missing} between seq {prev_seq} and {event.seq}",
            )
        if event.prev_hash != prev_hash:
            return ChainReport(
                len(events),
                position,
                f"{label} names previous hash {event.prev_hash[:12]}... but event seq {prev_seq} hashes to "
                f"{prev_hash[:12]}...: seq {prev_seq} was edited, or the link was rewritten",
            )
        prev_seq, prev_hash = event.seq, event_hash(event)
        hashes[prev_seq] = prev_hash
    if head is None:
        if events:
            return ChainReport(len(events), 1, "the chain head is missing")
        return ChainReport(0)
    # The head may trail the events read after it (a concurrent append), never lead them.
    head_seq, head_hash = head
    if head_seq > prev_seq or hashes.get(head_seq) != head_hash:
        found = hashes.get(head_seq, "nothing")
        return ChainReport(
            len(events),
            min(head_seq, len(events) + 1),
            f"the chain head says seq {head_seq} hashes to {head_hash[:12]}... but the trail has "
            f"{found[:12]}{'...' if head_seq in hashes else ''} there (it ends at seq {prev_seq}): "
            "the last event(s) were removed or edited",
        )
    return ChainReport(len(events))
