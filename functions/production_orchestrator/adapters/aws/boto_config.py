"""The one botocore configuration every AWS client of this package uses."""

from __future__ import annotations

from botocore.config import Config  # type: ignore[import-untyped]

# Standard retry mode retries throttling and 5xx with backoff; conditional failures are never retried.
BOTO_CONFIG = Config(retries={"mode": "standard", "max_attempts": 4}, user_agent_extra="production-orchestrator")

# SendTaskSuccess is never retried by the SDK: if the first call reached Step Functions and only its answer
# was lost, a retry gets TaskTimedOut for a workflow that is already resuming. The decision endpoint keeps
# the decision and wakes again itself (the next POST, or the reconciler), judging a closed token by time.
# (botocore's ``max_attempts`` counts retries after the first call; ``total_max_attempts`` counts every call.)
SEND_TASK_CONFIG = Config(
    retries={"mode": "standard", "total_max_attempts": 1}, user_agent_extra="production-orchestrator"
)
