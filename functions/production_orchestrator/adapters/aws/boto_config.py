"""The one botocore configuration every AWS client of this package uses."""

from __future__ import annotations

from botocore.config import Config  # type: ignore[import-untyped]

# Standard retry mode retries throttling and 5xx with backoff; conditional failures are never retried.
BOTO_CONFIG = Config(retries={"mode": "standard", "max_attempts": 4}, user_agent_extra="production-orchestrator")
