"""Held requests: a possible duplicate waits beside the earlier run until a person starts or drops it.

    admit (requests.py) -> PossibleDuplicateError -> hold: PossibleDuplicate stored once, ``request_held`` event
    start --again of the same envelope -> its run written -> the hold closed as started (``request_started``)
    request drop HELD_ID               -> the hold closed as dropped (``request_dropped``); nothing planned
    start: the intake cannot read it   -> hold_unread: kind needs_facts (what was read, what is missing)
    request complete HELD_ID --product --quantity --due -> start with those given facts -> the hold started

Each close is one conditional write on the hold's status: of two people acting at once one wins, the other
is refused (``REQUEST_NOT_HELD``) with nothing written.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...domain.alerts import needs_facts_notice
from ...domain.errors import (
    BackendError,
    HeldRequestCode,
    HeldRequestError,
    IntakeError,
    NeedsFactsError,
    PossibleDuplicateError,
)
from ...domain.intake.held import PossibleDuplicate, held_id, require_held_id
from ...domain.intake.request_key import envelope_hash, request_hash, sender_of
from ...domain.records import audit_event, utc_iso
from ..runtime import Runtime

if TYPE_CHECKING:  # show and status read holds without the e-mail reader
    from ...domain.intake.customer_message import CustomerMessage

log = logging.getLogger(__name__)


def hold(rt: Runtime, message: CustomerMessage, possible: PossibleDuplicateError) -> PossibleDuplicate:
    """Store ``message`` as a possible duplicate of ``possible``'s run (once: the same envelope finds its hold)."""
    now = rt.clock()
    record = PossibleDuplicate(
        held_id=possible.held_id,
        request_hash=request_hash(message),
        sender=sender_of(message),
        message_id=message.message_id,
        subject=message.subject,
        text=message.text,
        duplicate_of=possible.checkpoint_id,
        duplicate_order=possible.order_id,
        created_at=utc_iso(now),
    )
    event = audit_event(
        "request_held",
        now,
        checkpoint_id=possible.checkpoint_id,
        held_id=record.held_id,
        kind=record.kind,
        sender=record.sender,
    )
    return rt.store.hold_request(record, event)


def hold_unread(rt: Runtime, message: CustomerMessage, refused: IntakeError, read: dict[str, str]) -> NeedsFactsError:
    """Store ``message``, which the intake could not read (``refused`` names each gap), as *needs facts* with what
    was ``read`` (once: the same envelope finds its hold); the error to raise, naming the hold."""
    now = rt.clock()
    record = PossibleDuplicate(
        held_id=held_id(request_hash(message), envelope_hash(message)),
        kind="needs_facts",
        request_hash=request_hash(message),
        sender=sender_of(message),
        message_id=message.message_id,
        subject=message.subject,
        text=message.text,
        created_at=utc_iso(now),
        read={k: v[:200] for k, v in read.items() if v},
        missing=tuple(p[:300] for p in refused.problems[:10]),
    )
    stored = rt.store.get_held_request(record.held_id)
    if stored is None or not stored.is_open:
        event = audit_event("request_held", now, held_id=record.held_id, kind=record.kind, sender=record.sender)
        stored = rt.store.hold_request(record, event)
        if stored == record:  # this call held it; a retried or racing delivery found the hold and tells no one again
            _tell_operator(rt, stored)
    return NeedsFactsError(
        f"the request cannot be planned yet, it waits as {stored.held_id} (needs facts): " + "; ".join(stored.missing),
        held_id=stored.held_id,
        problems=stored.missing,
    )


def _tell_operator(rt: Runtime, held: PossibleDuplicate) -> None:
    """Alert the operator, if this runtime can (AWS: the alarm topic). The hold is durable already and ``request
    list`` shows it, so an alert that cannot be handed over is logged, never raised: raising would re-deliver the
    request (a retried Lambda) for a hold that exists."""
    if rt.operator is None:
        return
    try:
        rt.operator.alert(needs_facts_notice(held))
    except BackendError as exc:
        log.warning("operator alert not sent held_id=%s reason=%s", held.held_id, exc)


def started_hold(rt: Runtime, message: CustomerMessage, checkpoint_id: str) -> PossibleDuplicate | None:
    """Close ``message``'s hold, if it has an open one, as started by the run ``checkpoint_id`` (``--again``)."""
    stored = rt.store.get_held_request(held_id(request_hash(message), envelope_hash(message)))
    if stored is None or not stored.is_open:
        return None
    now = rt.clock()
    closed = stored.model_copy(update={"status": "started", "closed_at": utc_iso(now), "started_as": checkpoint_id})
    event = audit_event("request_started", now, checkpoint_id=checkpoint_id, held_id=stored.held_id)
    try:
        rt.store.close_held_request(closed, event)
    except HeldRequestError:
        return None  # dropped or started meanwhile: the run stands, the hold says what the other person did
    return closed


def held_requests(rt: Runtime, *, open_only: bool = True) -> list[PossibleDuplicate]:
    """The held requests (the open ones, or all), oldest first: what ``request list`` and ``status`` show."""
    return [h for h in rt.store.held_requests() if h.is_open or not open_only]


def held_for(rt: Runtime, checkpoint_id: str) -> list[PossibleDuplicate]:
    """The open holds that may repeat the run ``checkpoint_id`` (``show`` lists them with it)."""
    return [h for h in held_requests(rt) if h.duplicate_of == checkpoint_id]


def held_request(rt: Runtime, held: str) -> PossibleDuplicate:
    """The held request ``held`` (open or closed); ``HeldRequestError`` when the id is malformed
    (``HELD_ID_INVALID``) or unknown (``NOT_FOUND``). Reads only."""
    try:
        require_held_id(held)
    except ValueError as exc:
        raise HeldRequestError(HeldRequestCode.HELD_ID_INVALID, str(exc)) from None
    stored = rt.store.get_held_request(held)
    if stored is None:
        raise HeldRequestError(HeldRequestCode.NOT_FOUND, f"no held request {held}")
    return stored


@dataclass(frozen=True)
class DropHeld:
    """``by`` drops the held request ``held_id`` (``reason``: why, for the audit)."""

    held_id: str
    by: str
    reason: str = ""


def drop_held(rt: Runtime, cmd: DropHeld) -> PossibleDuplicate:
    """Close the hold as dropped: nothing is planned for it. ``HeldRequestError`` (nothing written) when the id
    is malformed (``HELD_ID_INVALID``), unknown (``NOT_FOUND``) or no longer held (``REQUEST_NOT_HELD``)."""
    stored = held_request(rt, cmd.held_id)
    if not stored.is_open:
        raise HeldRequestError(
            HeldRequestCode.REQUEST_NOT_HELD, f"held request {cmd.held_id} was already {stored.status}"
        )
    now = rt.clock()
    closed = stored.model_copy(
        update={"status": "dropped", "closed_at": utc_iso(now), "closed_by": cmd.by, "reason": cmd.reason[:500]}
    )
    event = audit_event(
        "request_dropped", now, checkpoint_id=stored.duplicate_of, held_id=stored.held_id, by=cmd.by, reason=cmd.reason
    )
    rt.store.close_held_request(closed, event)
    return closed
