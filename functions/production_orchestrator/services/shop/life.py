"""The operator's changes of the shop (a delivery, an order that completes, is cancelled or makes progress),
each one audited write on either store through the ShopStore port.

    read the shop -> the pure step (domain/shop/life.py) refuses, or gives the next state
    -> one conditional write: the state and its audit event together, conditioned on the revision and
       digest just read (a concurrent change: read again and judge again; nothing half-written)
    -> which pending plans the change made stale (the resume gate decides; this only reports it)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ...domain.errors import IntegrityError, ResumeRefusedError, ShopChangeCode, ShopChangeRefusedError, StaleStateError
from ...domain.planning.application import judge
from ...domain.planning.materials import ShopShortage
from ...domain.planning.materials import existing_shortages as shortages_on
from ...domain.ports import ShopStore
from ...domain.records import Checkpoint, audit_event, parse_utc
from ...domain.shop import life
from ...domain.shop.model import ShopState
from ..evidence import review
from ..status import stored_checkpoints

_ATTEMPTS = 5


@dataclass(frozen=True)
class Applied:
    """A change that was written: what it did, and the pending plans it made stale."""

    change: life.Change
    stale_checkpoints: tuple[str, ...]


def pending_checkpoints(store: ShopStore, now: datetime) -> list[Checkpoint]:
    """Checkpoints still waiting for a decision (unexpired, unclaimed), oldest first."""
    found = []
    for _, checkpoint in stored_checkpoints(store):
        if not isinstance(checkpoint, Checkpoint):
            continue
        if now < parse_utc(checkpoint.expires_at) and store.get_decision(checkpoint.checkpoint_id) is None:
            found.append(checkpoint)
    return found


def stale_on(store: ShopStore, checkpoint: Checkpoint, state: ShopState) -> bool:
    """Whether the resume gate would refuse ``checkpoint``'s plan as stale on ``state``: the one staleness rule
    (:func:`domain.planning.application.judge`); a plan that cannot be read cannot apply either."""
    try:
        _, proposal = review(store, checkpoint.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return True
    return judge(state, proposal).stale


def made_stale(store: ShopStore, before: ShopState, after: ShopState, now: datetime) -> list[Checkpoint]:
    """Pending plans that were applicable on ``before`` and would be refused as stale on ``after``."""
    return [c for c in pending_checkpoints(store, now) if not stale_on(store, c, before) and stale_on(store, c, after)]


def current_shop(store: ShopStore) -> ShopState:
    """The stored shop, or ``NO_SHOP``."""
    state = store.load_state()
    if state is None:
        raise ShopChangeRefusedError(ShopChangeCode.NO_SHOP, "there is no shop here yet: shop import one first")
    return state


def change_shop(store: ShopStore, event_type: str, step: Callable[[ShopState], life.Change], now: datetime) -> Applied:
    """Judge ``step`` on the shop as read and write its result with one ``event_type`` audit event, conditioned
    on that read; a refusal raises before anything is written."""
    for _ in range(_ATTEMPTS):
        current = current_shop(store)
        change = step(current)
        stale = made_stale(store, current, change.state, now)
        event = audit_event(
            event_type,
            now,
            revision=change.state.revision,
            digest=change.state.digest(),
            replaced_digest=current.digest(),
            stale_checkpoints=[c.checkpoint_id for c in stale],
            **change.detail,
        )
        try:
            store.replace_shop(change.state, (current.revision, current.digest()), event)
        except StaleStateError:
            continue  # another writer moved the shop between our read and our write: judge again
        return Applied(change=change, stale_checkpoints=tuple(c.checkpoint_id for c in stale))
    raise StaleStateError("the shop kept changing while this change was attempted; nothing was written")


def receive(store: ShopStore, material: str, quantity: int, ref: str, now: datetime) -> Applied:
    """A delivery (``shop receive``)."""
    return change_shop(store, "material_received", lambda s: life.receive(s, material, quantity, ref), now)


def complete(store: ShopStore, order_id: str, now: datetime, day: str | None = None) -> Applied:
    """An order is made (``order complete``), on ``day`` (default: today in the shop)."""
    return change_shop(store, "order_completed", lambda s: life.complete(s, order_id, day or s.today(now)), now)


def cancel(store: ShopStore, order_id: str, reason: str, now: datetime, day: str | None = None) -> Applied:
    """An order is cancelled (``order cancel``), on ``day`` (default: today in the shop)."""
    return change_shop(store, "order_cancelled", lambda s: life.cancel(s, order_id, reason, day or s.today(now)), now)


def progress(store: ShopStore, order_id: str, minutes: int, now: datetime) -> Applied:
    """Work done on an order (``order progress``)."""
    return change_shop(store, "order_progressed", lambda s: life.progress(s, order_id, minutes), now)


def existing_shortages(state: ShopState, today: str) -> list[ShopShortage]:
    """Material the shop's scheduled orders already lack beyond what is on hand, on order and requested:
    one per material with the orders that wait for it (shown apart from any customer's plan)."""
    return shortages_on(state, today)
