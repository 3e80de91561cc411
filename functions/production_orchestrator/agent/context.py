"""What one agent run (a start, or a resume) shares with its tools and hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from ..domain.limits import DEFAULT_NODES
from ..domain.planning.guidance import Revision
from ..domain.planning.proposal import GivenFacts, ProposalContent
from ..domain.ports import ShopStore
from ..domain.records import AuditEvent, Checkpoint, Decision, audit_event
from ..domain.shop.model import Order, ShopState

# Store calls that only read: they leave the run's copy of the shop state as it is.
_READS = frozenset(
    {
        "get_proposal",
        "get_checkpoint",
        "list_checkpoints",
        "get_decision",
        "application_count",
        "audit_events",
        "raw_audit_trail",
        "get_state_snapshot",
        "append_audit",  # writes the trail, never the shop
        "put_proposal",
        "put_state_snapshot",
    }
)


class RunView:
    """The store as one run's tools and hooks see it: the shop state is read once, then served from memory
    until the run itself changes it (a write that returns the new state keeps it; any other drops it).

    Every tool of a run plans on the same state instead of re-reading it for each call. What decides is not
    this copy: the checkpoint records the digest read from the store after the run, the resume gate compares
    it with a fresh read, and every write is conditioned on the revision and digest it expects.
    """

    def __init__(self, store: ShopStore) -> None:
        self._store = store
        self._state: ShopState | None = None

    def load_state(self) -> ShopState | None:
        """The run's copy of the shop state (read from the store the first time)."""
        if self._state is None:
            self._state = self._store.load_state()
        return self._state

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if name in _READS or not callable(attribute):
            return attribute

        def write(*args: Any, **kwargs: Any) -> Any:
            self._state = None
            result = attribute(*args, **kwargs)
            if isinstance(result, ShopState):
                self._state = result
            return result

        return write


def run_view(store: ShopStore) -> ShopStore:
    """``store`` as one run sees it (see :class:`RunView`); a view is not wrapped twice."""
    return store if isinstance(store, RunView) else cast(ShopStore, RunView(store))


@dataclass
class RunContext:
    """Per-process run state. ``approval`` is set only after the resume gate passed and the claim won.

    A start also knows the request it plans (read and validated before the agent ran) and the planning
    day; a resume needs neither, so a model that tries to plan again there is refused.
    """

    store: ShopStore
    session_id: str
    checkpoint_id: str
    clock: Callable[[], datetime]
    request: Order | None = None
    request_text: str = ""
    planning_day: str = ""
    solver_nodes: int = DEFAULT_NODES
    given: GivenFacts | None = None
    revision: Revision | None = None
    # The other open pending plans, whose bookings this run's plan treats as taken (domain/planning/holds.py).
    holds: tuple[ProposalContent, ...] = ()
    approved_checkpoint: Checkpoint | None = None
    decision: Decision | None = None
    # Told each step as it begins (a person watching a terminal); None: nobody is.
    progress: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        self.store = run_view(self.store)

    def event(self, event_type: str, proposal_hash: str = "", **detail: Any) -> AuditEvent:
        """An audit event stamped with this run's ids and the current time."""
        return audit_event(
            event_type,
            self.clock(),
            session_id=self.session_id,
            checkpoint_id=self.checkpoint_id,
            proposal_hash=proposal_hash,
            **detail,
        )
