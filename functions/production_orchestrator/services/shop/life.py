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

from ...domain.errors import IntegrityError, ResumeRefusedError, ShopChangeCode, ShopChangeRefusedError, StaleStateError
from ...domain.planning.application import judge
from ...domain.planning.materials import ShopShortage
from ...domain.planning.materials import existing_shortages as shortages_on
from ...domain.records import Checkpoint, audit_event, parse_utc
from ...domain.shop import life
from ...domain.shop.model import ShopState
from ..evidence import review
from ..runtime import Runtime
from ..status import open_checkpoints

_ATTEMPTS = 5


@dataclass(frozen=True)
class Applied:
    """A change that was written: what it did, and the pending plans it made stale."""

    change: life.Change
    stale_checkpoints: tuple[str, ...]


def pending_checkpoints(rt: Runtime) -> list[Checkpoint]:
    """Checkpoints still waiting for a decision (unexpired, unclaimed), oldest first."""
    now = rt.clock()
    found = []
    for _, checkpoint in open_checkpoints(rt):
        if not isinstance(checkpoint, Checkpoint):
            continue
        if now < parse_utc(checkpoint.expires_at) and rt.store.get_decision(checkpoint.checkpoint_id) is None:
            found.append(checkpoint)
    return found


def stale_on(rt: Runtime, checkpoint: Checkpoint, state: ShopState) -> bool:
    """Whether the resume gate would refuse ``checkpoint``'s plan as stale on ``state``: the one staleness rule
    (:func:`domain.planning.application.judge`); a plan that cannot be read cannot apply either."""
    try:
        _, proposal = review(rt.store, checkpoint.checkpoint_id)
    except (ResumeRefusedError, IntegrityError):
        return True
    return judge(state, proposal).stale


def made_stale(rt: Runtime, before: ShopState, after: ShopState) -> list[Checkpoint]:
    """Pending plans that were applicable on ``before`` and would be refused as stale on ``after``."""
    return [c for c in pending_checkpoints(rt) if not stale_on(rt, c, before) and stale_on(rt, c, after)]


def current_shop(rt: Runtime) -> ShopState:
    """The stored shop, or ``NO_SHOP``."""
    state = rt.store.load_state()
    if state is None:
        raise ShopChangeRefusedError(ShopChangeCode.NO_SHOP, "there is no shop here yet: shop import one first")
    return state


def _change(rt: Runtime, event_type: str, step: Callable[[ShopState], life.Change]) -> Applied:
    """Judge ``step`` on the shop as read and write its result with one ``event_type`` audit event, conditioned
    on that read; a refusal raises before anything is written."""
    now = rt.clock()
    for _ in range(_ATTEMPTS):
        current = current_shop(rt)
        change = step(current)
        stale = made_stale(rt, current, change.state)
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
            rt.store.replace_shop(change.state, (current.revision, current.digest()), event)
        except StaleStateError:
            continue  # another writer moved the shop between our read and our write: judge again
        return Applied(change=change, stale_checkpoints=tuple(c.checkpoint_id for c in stale))
    raise StaleStateError("the shop kept changing while this change was attempted; nothing was written")


@dataclass(frozen=True)
class Receive:
    """A delivery of ``quantity`` of ``material`` (``ref``: the delivery note)."""

    material: str
    quantity: int
    ref: str = ""


def receive(rt: Runtime, cmd: Receive) -> Applied:
    """A delivery (``shop receive``)."""
    return _change(rt, "material_received", lambda s: life.receive(s, cmd.material, cmd.quantity, cmd.ref))


@dataclass(frozen=True)
class Complete:
    """Order ``order_id`` is made, on ``day`` (default: today in the shop)."""

    order_id: str
    day: str | None = None


def complete(rt: Runtime, cmd: Complete) -> Applied:
    """An order is made (``order complete``), on ``day`` (default: today in the shop)."""
    now = rt.clock()
    return _change(rt, "order_completed", lambda s: life.complete(s, cmd.order_id, cmd.day or s.today(now)))


@dataclass(frozen=True)
class Cancel:
    """Order ``order_id`` is cancelled for ``reason``, on ``day`` (default: today in the shop)."""

    order_id: str
    reason: str
    day: str | None = None


def cancel(rt: Runtime, cmd: Cancel) -> Applied:
    """An order is cancelled (``order cancel``), on ``day`` (default: today in the shop)."""
    now = rt.clock()
    return _change(rt, "order_cancelled", lambda s: life.cancel(s, cmd.order_id, cmd.reason, cmd.day or s.today(now)))


@dataclass(frozen=True)
class Progress:
    """``minutes`` of work done on order ``order_id``."""

    order_id: str
    minutes: int


def progress(rt: Runtime, cmd: Progress) -> Applied:
    """Work done on an order (``order progress``)."""
    return _change(rt, "order_progressed", lambda s: life.progress(s, cmd.order_id, cmd.minutes))


def existing_shortages(state: ShopState, today: str) -> list[ShopShortage]:
    """Material the shop's scheduled orders already lack beyond what is on hand, on order and requested:
    one per material with the orders that wait for it (shown apart from any customer's plan)."""
    return shortages_on(state, today)
