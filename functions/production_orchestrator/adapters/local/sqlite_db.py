"""One SQLite connection per store, and the one way the local stores write: ``BEGIN IMMEDIATE``.

Taking the write lock at the start of the transaction makes every read-check-write inside it atomic
across processes sharing the data dir, which is what the conditional writes of the ports rely on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SqliteDatabase:
    """A connection in autocommit mode (WAL, synchronous FULL) with ``schema`` applied."""

    def __init__(self, path: Path, schema: str) -> None:
        self._path = path
        self._conn = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.executescript(schema)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")
