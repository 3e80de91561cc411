"""What the DynamoDB store keeps in memory to save round trips, and why each is safe.

Immutable  proposals, snapshots (content-addressed), checkpoints (never overwritten), an application once
           seen (never removed), the decision this process claimed: what was read or written is what is
           stored, so serving it again is serving the same bytes. Kept per process, bounded.
ReadAhead  items read along with another in the same round trip, each served to the next read of it,
           once, within a couple of seconds: a read served from here is the same read made that much
           earlier. Writes stay conditioned on what they expect, so none is weaker for it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

CACHED_ITEMS = 256  # per kind
READ_AHEAD_SECONDS = 2.0


class Immutable:
    """Items that never change once written, by name."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        """The kept value, or None."""
        return self._items.get(name)

    def keep(self, name: str, value: Any) -> Any:
        """Keep ``value`` (dropping everything when full) and return it."""
        if len(self._items) >= CACHED_ITEMS:
            self._items.clear()
        self._items[name] = value
        return value


class ReadAhead:
    """Values read along with another item, each used at most once and only while fresh."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self._deadline = 0.0

    def hold(self, values: Mapping[str, Any]) -> None:
        """Replace what is held with ``values``, fresh from now."""
        self._values = dict(values)
        self._deadline = time.monotonic() + READ_AHEAD_SECONDS

    def take(self, name: str) -> Any:
        """The value held under ``name`` (then dropped), or None when absent or stale."""
        value = self._values.pop(name, None)
        return value if time.monotonic() < self._deadline else None
