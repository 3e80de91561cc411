"""Content-addressed shop states in the table, split into items far below DynamoDB's 400 KB limit.

    SNAPSHOT#<digest> / CHUNK#0000 .. CHUNK#nnnn   the canonical state bytes whose SHA-256 is <digest>,
                                                   CHUNK_BYTES each, every chunk carrying the count

A 5,000-order shop is about 1.5 MB of canonical JSON: eight items. The current state item (``STATE /
STATE``) holds only revision and digest, so the conditional apply still writes one small item; the chunks
are written before it and never change (same digest, same bytes), so a crash between the two leaves
only unreferenced chunks, and a retry writes the same ones again.
"""

from __future__ import annotations

import contextlib

from .dynamo_table import ConditionFailed, DynamoTable, b, key, n
from .table_schema import PARTITION_KEY, SNAPSHOT_CHUNK_SK_PREFIX, SNAPSHOT_PK_PREFIX, SNAPSHOT_SK

CHUNK_BYTES = 200_000


def _chunk_key(index: int) -> str:
    return f"{SNAPSHOT_CHUNK_SK_PREFIX}{index:04d}"


def put_blob(table: DynamoTable, digest: str, data: bytes) -> int:
    """Store ``data`` under ``digest`` (idempotent: existing chunks are kept); returns the chunk count."""
    chunks = [data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES)] or [b""]
    for index, chunk in enumerate(chunks):
        item = {
            **key(SNAPSHOT_PK_PREFIX + digest, _chunk_key(index)),
            "data": b(chunk),
            "chunks": n(len(chunks)),
        }
        with contextlib.suppress(ConditionFailed):  # content-addressed: already there means the same bytes
            table.put(item, condition=f"attribute_not_exists({PARTITION_KEY})")
    return len(chunks)


def get_blob(table: DynamoTable, digest: str) -> bytes | None:
    """The bytes stored under ``digest`` (None when absent or incomplete); callers re-hash them.

    Read by key, chunk by chunk (the first names the count): a role that may read snapshots by GetItem
    needs no Query on their partitions.
    """
    pk = SNAPSHOT_PK_PREFIX + digest
    first = table.get(pk, _chunk_key(0))
    if first is None:
        legacy = table.get(pk, SNAPSHOT_SK)  # one-item snapshots of earlier versions
        return None if legacy is None else bytes(legacy["data"]["B"])
    parts = [bytes(first["data"]["B"])]
    for index in range(1, int(first["chunks"]["N"])):
        item = table.get(pk, _chunk_key(index))
        if item is None:
            return None
        parts.append(bytes(item["data"]["B"]))
    return b"".join(parts)
