"""The runs' list reads done on a list in memory, for a store that holds no index of its own (the fakes; a
store's fallback when its index cannot be written): the same answers as the indexed reads, at the cost of
reading every item."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from ..domain.records import AuditEvent


def created_at(raw: str) -> str:
    """The creation time a stored checkpoint claims ("" when it cannot be read)."""
    try:
        return str(json.loads(raw).get("created_at", ""))
    except (ValueError, AttributeError):
        return ""


def recent(raws: Sequence[str], limit: int | None, since: str | None) -> tuple[list[str], int]:
    """The latest ``limit`` of ``raws`` (oldest first; None or 0: all) created on or after ``since``, and how many
    there are."""
    picked = [raw for raw in raws if since is None or created_at(raw) >= since]
    return (picked[-limit:] if limit else picked), len(raws)


def events_of(
    events: Sequence[AuditEvent],
    event_types: Collection[str],
    checkpoint_id: str | None,
    limit: int | None,
    since: str | None,
) -> tuple[list[AuditEvent], int]:
    """The latest ``limit`` of ``events`` (oldest first) of ``event_types`` (of one checkpoint, at or after
    ``since``), and how many match."""
    found = [
        e
        for e in events
        if e.event_type in event_types and checkpoint_id in (None, e.checkpoint_id) and (since is None or e.at >= since)
    ]
    return (found[-limit:] if limit else found), len(found)
