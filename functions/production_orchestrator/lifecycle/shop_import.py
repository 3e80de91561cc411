"""Import: put a shop file's state in place of the data dir's (or table's) shop, in one conditional write.

read the current shop -> the imported state keeps the higher revision (revisions never go back)
-> same digest: nothing to do -> else replace, conditioned on the revision and digest just read
-> pending plans the new shop makes stale (the one rule, ``evidence.freshness``) are named; their approve
   is refused as STALE_DOMAIN_STATE
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..domain.errors import IntegrityError, ResumeRefusedError
from ..domain.planning.application import judge
from ..domain.ports import ShopStore
from ..domain.records import Checkpoint, audit_event, parse_utc
from ..domain.shop.model import ShopState
from .evidence import review
from .status import stored_checkpoints


@dataclass(frozen=True)
class ImportResult:
    """What an import did: the shop now stored, whether it replaced one, and which plans it made stale."""

    state: ShopState
    created: bool
    changed: bool
    stale_checkpoints: tuple[str, ...]


def pending_on(store: ShopStore, digest: str, now: datetime) -> list[Checkpoint]:
    """Checkpoints still waiting for a decision (unexpired, unclaimed) that were proposed on ``digest``."""
    found = []
    for _, checkpoint in stored_checkpoints(store):
        if not isinstance(checkpoint, Checkpoint) or checkpoint.domain_digest != digest:
            continue
        if now < parse_utc(checkpoint.expires_at) and store.get_decision(checkpoint.checkpoint_id) is None:
            found.append(checkpoint)
    return found


def stale_after(store: ShopStore, state: ShopState, now: datetime) -> list[Checkpoint]:
    """Checkpoints still waiting for a decision whose plan would be stale on ``state`` (the one rule)."""
    found = []
    for _, checkpoint in stored_checkpoints(store):
        if not isinstance(checkpoint, Checkpoint) or now >= parse_utc(checkpoint.expires_at):
            continue
        if store.get_decision(checkpoint.checkpoint_id) is not None:
            continue
        try:
            _, proposal = review(store, checkpoint.checkpoint_id)
        except (ResumeRefusedError, IntegrityError):
            found.append(checkpoint)  # a plan that cannot be read cannot apply either
            continue
        if judge(state, proposal).stale:
            found.append(checkpoint)
    return found


def import_shop(store: ShopStore, state: ShopState, now: datetime) -> ImportResult:
    """Create or replace the shop with ``state``; returns what changed and which pending plans went stale."""
    current = store.load_state()
    if current is not None:
        state = state.model_copy(update={"revision": max(state.revision, current.revision)})
        if state.digest() == current.digest():
            return ImportResult(state=current, created=False, changed=False, stale_checkpoints=())
    waiting = [] if current is None else stale_after(store, state, now)
    event = audit_event(
        "shop_imported",
        now,
        shop=state.name,
        digest=state.digest(),
        replaced_digest=current.digest() if current else "",
        stale_checkpoints=[c.checkpoint_id for c in waiting],
    )
    store.replace_shop(state, None if current is None else (current.revision, current.digest()), event)
    return ImportResult(
        state=state,
        created=current is None,
        changed=True,
        stale_checkpoints=tuple(c.checkpoint_id for c in waiting),
    )
