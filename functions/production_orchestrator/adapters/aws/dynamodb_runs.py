"""The content-addressed proposals and the request claims of :class:`DynamoShopStore` (which provides ``_table``
and the per-process ``_proposals`` cache)."""

from __future__ import annotations

from ...domain.errors import IntegrityError
from .dynamo_table import ConditionFailed, DynamoTable, b, key
from .read_cache import Immutable
from .table_schema import PARTITION_KEY, PROPOSAL_PK_PREFIX, PROPOSAL_SK, REQUEST_CLAIM_SK_PREFIX, SHOP_PK

_ABSENT = f"attribute_not_exists({PARTITION_KEY})"


class DynamoRunItems:
    """``PROPOSAL#<hash>`` items (immutable, read once per process) and ``SHOP / REQUEST#<claim>`` counts."""

    _table: DynamoTable
    _proposals: Immutable

    def put_proposal(self, proposal_hash: str, data: bytes) -> None:
        """Create the immutable proposal; identical bytes are a no-op, different bytes ``IntegrityError``."""
        if self._proposals.get(proposal_hash) == data:
            return
        item = {**key(PROPOSAL_PK_PREFIX + proposal_hash, PROPOSAL_SK), "data": b(data)}
        try:
            self._table.put(item, condition=_ABSENT)
        except ConditionFailed as failed:
            found = failed.found(0) or self._table.get(PROPOSAL_PK_PREFIX + proposal_hash, PROPOSAL_SK) or {}
            if bytes(found.get("data", {}).get("B", b"")) != data:
                raise IntegrityError(f"proposal {proposal_hash} exists with different bytes") from None
        self._proposals.keep(proposal_hash, data)

    def get_proposal(self, proposal_hash: str) -> bytes | None:
        """The stored proposal bytes (callers re-hash them)."""
        cached = self._proposals.get(proposal_hash)
        if cached is not None:
            return bytes(cached)
        item = self._table.get(PROPOSAL_PK_PREFIX + proposal_hash, PROPOSAL_SK)
        return None if item is None else self._proposals.keep(proposal_hash, bytes(item["data"]["B"]))

    def request_claim_count(self, stored_key: str) -> int:
        """How many runs claimed ``stored_key`` (one consistent Query counting its claims; the claims themselves
        are written with their checkpoints, in DynamoShopStore.put_checkpoint)."""
        _, count = self._table.query(SHOP_PK, f"{REQUEST_CLAIM_SK_PREFIX}{stored_key}#", count_only=True)
        return count
