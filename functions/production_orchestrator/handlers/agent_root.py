"""The agent part of the composition root: S3 sessions, the provider binding and the service runtime.

Imports strands (through the session manager and the service); the decision Lambda never imports this.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

from ..adapters.aws.s3_sessions import S3SessionStore
from ..agent.providers import build_binding
from ..domain.records import ProviderBinding
from ..service import Runtime
from .core import Core, core


@dataclass(frozen=True)
class AgentRoot:
    """What the agent handlers run on."""

    core: Core
    runtime: Runtime
    binding: ProviderBinding


@cache
def agent_root() -> AgentRoot:
    """Build once per cold start: the same binding for start, resume and identity."""
    shared = core()
    settings = shared.settings.require("session_bucket")
    binding = build_binding(
        settings.provider,
        settings.model_id,
        settings.model_region,
        settings.model_profile,
        endpoint=settings.model_endpoint,
    )
    sessions = S3SessionStore(str(settings.session_bucket), settings.session_prefix, shared.boto_session)
    runtime = Runtime(
        store=shared.store, sessions=sessions, clock=shared.now, pid=os.getpid(), lease=settings.decision_lease
    )
    return AgentRoot(core=shared, runtime=runtime, binding=binding)
