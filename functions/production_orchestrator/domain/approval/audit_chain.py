"""The audit trail as a keyed hash chain: each event carries its sequence number, the hash of the one before
and a MAC; the stored head (seq, hash of the last event) carries a MAC too.

    event 1 (prev = GENESIS, mac) <- event 2 (prev = hash(event 1), mac) <- ... <- head (seq, hash, mac)

Stores stamp ``seq``, ``prev_hash`` and the MACs inside the transaction that appends the event, so
concurrent writers cannot fork the chain. The hash alone finds an edit, a gap or a reordering; the MACs
(the receipt key: a 0600 file locally, a KMS HMAC key in AWS) make a rewrite that recomputes every hash
detectable too, and the head's MAC a removed tail. :func:`verify_chain` names the first link that does
not hold, by position and sequence number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..canonical import canonical_bytes, content_hash
from ..records import AuditEvent

if TYPE_CHECKING:
    from .mac import MacKey

GENESIS = "0" * 64
_LINK = b"production-orchestrator audit link\n"
_HEAD = b"production-orchestrator audit head\n"
Head = tuple[int, str] | tuple[int, str, str]  # seq, hash of the last event[, MAC of the head]


def _content(event: AuditEvent) -> dict[str, object]:
    return event.model_dump(mode="json", exclude={"mac"})


def event_hash(event: AuditEvent) -> str:
    """``sha256(canonical(event))``, ``seq`` and ``prev_hash`` included, the MAC not."""
    return content_hash(_content(event))


def chained(event: AuditEvent, head: Head | None, key: MacKey | None = None) -> AuditEvent:
    """``event`` stamped as the successor of ``head`` (None: the first event), MACed with ``key`` if given."""
    seq, prev = (head[0], head[1]) if head is not None else (0, GENESIS)
    linked = event.model_copy(update={"seq": seq + 1, "prev_hash": prev, "mac": ""})
    return (
        linked
        if key is None
        else linked.model_copy(update={"mac": key.sign(_LINK + canonical_bytes(_content(linked)))})
    )


def head_of(event: AuditEvent, key: MacKey | None = None) -> tuple[int, str, str]:
    """The chain head after ``event``: its seq, its hash and (with ``key``) the head's MAC."""
    digest = event_hash(event)
    return event.seq, digest, "" if key is None else key.sign(_head_message(event.seq, digest))


def _head_message(seq: int, digest: str) -> bytes:
    return _HEAD + canonical_bytes({"seq": seq, "hash": digest})


@dataclass(frozen=True)
class ChainReport:
    """The verdict: how many events were checked and, when broken, the first broken link."""

    events: int
    broken_at: int | None = None  # 1-based position in the stored order
    problem: str = ""
    seq: int | None = None  # the sequence number of the first bad event, when it has one

    @property
    def intact(self) -> bool:
        """True when every link holds."""
        return self.broken_at is None


def verify_chain(events: list[AuditEvent | None], head: Head | None, key: MacKey | None = None) -> ChainReport:
    """Check every link of ``events`` (stored order; None = unreadable) against each other and ``head``; with
    ``key`` also every event's MAC and the head's."""
    prev_seq, prev_hash = 0, GENESIS
    hashes: dict[int, str] = {}
    for position, event in enumerate(events, start=1):
        problem = _link_problem(position, event, prev_seq, prev_hash, key)
        if problem is not None:
            seq = None if event is None else event.seq
            return ChainReport(len(events), position, problem, seq)
        assert event is not None
        prev_seq, prev_hash = event.seq, event_hash(event)
        hashes[prev_seq] = prev_hash
    return _head_report(len(events), head, hashes, prev_seq, key)


def _link_problem(
    position: int, event: AuditEvent | None, prev_seq: int, prev_hash: str, key: MacKey | None
) -> str | None:
    where = f"event #{position}"
    if event is None:
        return f"{where} is unreadable (edited in storage)"
    label = f"{where} (seq {event.seq}, {event.event_type} at {event.at})"
    if event.seq != prev_seq + 1:
        missing = "missing or reordered" if event.seq > prev_seq + 1 else "repeated or reordered"
        return f"{label} follows seq {prev_seq}: events are {missing} between seq {prev_seq} and {event.seq}"
    if event.prev_hash != prev_hash:
        return (
            f"{label} names previous hash {event.prev_hash[:12]}... but event seq {prev_seq} hashes to "
            f"{prev_hash[:12]}...: seq {prev_seq} was edited, or the link was rewritten"
        )
    if key is not None and not (event.mac and key.verify(_LINK + canonical_bytes(_content(event)), event.mac)):
        why = "carries no MAC" if not event.mac else "has a MAC that does not verify under the receipt key"
        return f"{label} {why}: it was written or rewritten without the key"
    return None


def _head_report(
    count: int, head: Head | None, hashes: dict[int, str], last_seq: int, key: MacKey | None
) -> ChainReport:
    if head is None:
        return ChainReport(count, 1, "the chain head is missing", 1) if count else ChainReport(0)
    # The head may trail the events read after it (a concurrent append), never lead them.
    head_seq, head_hash = head[0], head[1]
    if head_seq > last_seq or hashes.get(head_seq) != head_hash:
        found = hashes.get(head_seq, "nothing")
        return ChainReport(
            count,
            min(head_seq, count + 1),
            f"the chain head says seq {head_seq} hashes to {head_hash[:12]}... but the trail has "
            f"{found[:12]}{'...' if head_seq in hashes else ''} there (it ends at seq {last_seq}): "
            "the last event(s) were removed or edited",
            head_seq,
        )
    mac = head[2] if len(head) > 2 else ""  # type: ignore[misc]
    if key is not None and not (mac and key.verify(_head_message(head_seq, head_hash), mac)):
        return ChainReport(
            count,
            min(head_seq, count),
            f"the chain head (seq {head_seq}) {'carries no MAC' if not mac else 'has a MAC that does not verify'}: "
            "the head was rewritten without the key (a removed tail, or a recomputed chain)",
            head_seq,
        )
    return ChainReport(count)
