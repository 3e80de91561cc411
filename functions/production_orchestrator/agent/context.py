"""What one agent run (a start, or a resume) shares with its tools and hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..domain.ports import ShopStore
from ..domain.records import AuditEvent, Checkpoint, Decision, audit_event
from ..domain.shop import Order


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
    approved_checkpoint: Checkpoint | None = None
    decision: Decision | None = None
    apply_result: dict[str, Any] = field(default_factory=dict)

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
