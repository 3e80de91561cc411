"""The agent part of the composition root: S3 sessions, the provider binding and the service runtime.

Imports strands (through the session manager and the service); the decision Lambda never imports this.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

from ..adapters.aws.s3_sessions import S3SessionStore
from ..agent.providers import build_binding
from ..domain.errors import ConfigurationError
from ..domain.records import ProviderBinding
from ..service import Runtime
from .core import Core, core

# build_binding takes the endpoint under the keyword of the provider it belongs to; PO_MODEL_ENDPOINT is
# the one variable the deployment sets for either.
_ENDPOINT_KEYWORD = {"bedrock": "bedrock_endpoint", "ollama": "ollama_host"}


def _endpoint_argument(provider: str, endpoint: str | None) -> dict[str, str]:
    if not endpoint:
        return {}
    keyword = _ENDPOINT_KEYWORD.get(provider)
    if keyword is None:
        raise ConfigurationError(f"PO_MODEL_ENDPOINT is not used by provider {provider!r}")
    return {keyword: endpoint}


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
        **_endpoint_argument(settings.provider, settings.model_endpoint),
    )
    sessions = S3SessionStore(str(settings.session_bucket), settings.session_prefix, shared.boto_session)
    runtime = Runtime(store=shared.store, sessions=sessions, clock=shared.now, pid=os.getpid())
    return AgentRoot(core=shared, runtime=runtime, binding=binding)
