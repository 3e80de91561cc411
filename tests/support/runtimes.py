"""A Runtime around stores a test built by hand (an adapter on moto, a store of a deployment), for the services
that take ``(rt, command)``: the clock is the wall clock unless given, the approval records an empty in-memory
store unless given (a shop import or change reads none)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

from production_orchestrator.domain.ports import ApprovalStore, ShopStore
from production_orchestrator.services.runtime import Runtime
from tests.support.fakes import InMemoryApprovalStore


def runtime_of(store: ShopStore, approvals: ApprovalStore | None = None, **ports: Any) -> Runtime:
    """``store`` (and ``approvals``) as a runtime; ``ports``: any other Runtime field (clock, notifier, ...)."""
    ports.setdefault("clock", lambda: datetime.now(UTC))
    ports.setdefault("pid", os.getpid())
    return Runtime(store=store, approvals=approvals if approvals is not None else InMemoryApprovalStore(), **ports)
