"""The lifecycle unit tests run on the in-memory fakes (tests/support/fakes.py): no SQLite, no disk."""

from __future__ import annotations

import pytest

from tests.support.memory_world import MemoryWorld


@pytest.fixture
def world() -> MemoryWorld:
    """A fresh shop with nothing in it yet."""
    return MemoryWorld()
