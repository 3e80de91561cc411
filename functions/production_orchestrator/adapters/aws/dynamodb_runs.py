"""The content-addressed proposals, the runs' request keys and the held requests of :class:`DynamoShopStore`
(which provides ``_table``, ``_audit_put`` and the per-process ``_proposals`` cache)."""

from __future__ import annotations

from typing import Any

from ...domain.errors import HeldRequestCode, HeldRequestError, IntegrityError
from ...domain.intake.held import PossibleDuplicate
from ...domain.intake.request_key import RunRequest
from ...domain.records import AuditEvent
from .chained_table import ChainedTable
from .dynamo_table import ConditionFailed, Item, b, key, s
from .read_cache import Immutable
from .table_schema import (
    HELD_PK,
    HELD_SK_PREFIX,
    PARTITION_KEY,
    PROPOSAL_PK_PREFIX,
    PROPOSAL_SK,
    RUN_MESSAGE_PK_PREFIX,
    RUN_REQUEST_PK_PREFIX,
)

_ABSENT = f"attribute_not_exists({PARTITION_KEY})"
_GENERATION, _RUN = "GEN#", "RUN#"
_HELD = f"attribute_exists({PARTITION_KEY}) AND #status = :held"


def request_key_puts(table: ChainedTable, request_key: RunRequest) -> list[Item]:
    """The transaction items of a run's request key: the (request hash, generation) item, created only if
    absent (the claim two identical starts race on; always the first item), and its Message-ID pointer."""
    raw = s(request_key.model_dump_json())
    claim = {
        **key(RUN_REQUEST_PK_PREFIX + request_key.request_hash, f"{_GENERATION}{request_key.generation:06d}"),
        "raw": raw,
    }
    puts = [table.put_op(claim, condition=_ABSENT)]
    if request_key.message_key:
        pointer = {**key(RUN_MESSAGE_PK_PREFIX + request_key.message_key, _RUN + request_key.checkpoint_id), "raw": raw}
        puts.append(table.put_op(pointer, condition=_ABSENT))
    return puts


def _held_item(record: PossibleDuplicate) -> Item:
    return {
        **key(HELD_PK, HELD_SK_PREFIX + record.held_id),
        "status": s(record.status),
        "raw": s(record.model_dump_json()),
    }


class DynamoRunItems:
    """``PROPOSAL#<hash>`` items (immutable, read once per process), ``RUNREQ#`` / ``RUNMSG#`` request keys and
    the ``HELD`` partition."""

    _table: ChainedTable
    _proposals: Immutable

    @staticmethod
    def _audit_put(event: AuditEvent) -> Item:  # provided by DynamoShopStore
        raise NotImplementedError

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

    def _keys(self, pk: str, prefix: str) -> list[RunRequest]:
        items, _ = self._table.query(pk, prefix)
        return [RunRequest.model_validate_json(str(i["raw"]["S"])) for i in items]

    def runs_of_request(self, request_hash: str) -> list[RunRequest]:
        """The request keys under ``request_hash``, by generation (one consistent Query of its partition)."""
        return self._keys(RUN_REQUEST_PK_PREFIX + request_hash, _GENERATION)

    def runs_of_message(self, message_key: str) -> list[RunRequest]:
        """The request keys of the runs whose envelope had the Message-ID ``message_key`` (one Query)."""
        if not message_key:
            return []
        found = self._keys(RUN_MESSAGE_PK_PREFIX + message_key, _RUN)
        return sorted(found, key=lambda r: (r.created_at, r.checkpoint_id))

    def hold_request(self, record: PossibleDuplicate, event: AuditEvent) -> PossibleDuplicate:
        """Create the held request with ``event`` unless its id exists (one transaction); what is stored."""
        try:
            self._table.transact([self._table.put_op(_held_item(record), condition=_ABSENT), self._audit_put(event)])
        except ConditionFailed as failed:
            if not failed.failed(0):
                raise
            stored = self.get_held_request(record.held_id)
            if stored is None:
                raise
            return stored
        return record

    def get_held_request(self, held_id: str) -> PossibleDuplicate | None:
        """The held request ``held_id``, read consistently, or None."""
        item = self._table.get(HELD_PK, HELD_SK_PREFIX + held_id)
        return None if item is None else PossibleDuplicate.model_validate_json(str(item["raw"]["S"]))

    def held_requests(self) -> list[PossibleDuplicate]:
        """Every held request, oldest first (one Query of the ``HELD`` partition)."""
        items, _ = self._table.query(HELD_PK, HELD_SK_PREFIX)
        found = [PossibleDuplicate.model_validate_json(str(i["raw"]["S"])) for i in items]
        return sorted(found, key=lambda r: (r.created_at, r.held_id))

    def close_held_request(self, record: PossibleDuplicate, event: AuditEvent) -> None:
        """Replace the hold by ``record`` with ``event`` while it is still held (conditioned on its status)."""
        values: dict[str, Any] = {":held": s("held")}
        put = self._table.put_op(_held_item(record), condition=_HELD, values=values, names={"#status": "status"})
        try:
            self._table.transact([put, self._audit_put(event)])
        except ConditionFailed as failed:
            if not failed.failed(0):
                raise
            stored = self.get_held_request(record.held_id)
            if stored is None:
                raise HeldRequestError(HeldRequestCode.NOT_FOUND, f"no held request {record.held_id}") from None
            raise HeldRequestError(
                HeldRequestCode.REQUEST_NOT_HELD, f"held request {record.held_id} was already {stored.status}"
            ) from None
