"""The Lambda side of the composition root (bootstrap.aws), built once per process (a cold start) on first use.

    core()            settings and one boto3 session (a bad setting fails here, at cold start)
    runtime(*ports)   bootstrap.aws: the DynamoDB stores, the KMS keys and the ports this function names
                      (strands-free unless it names ``sessions``)
    agent_root()      the agent functions' runtime (S3 sessions, submissions) and provider binding (strands)

Tests reset it with ``core.cache_clear()`` / ``runtime.cache_clear()`` / ``agent_root.cache_clear()``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import boto3  # type: ignore[import-untyped]

from ..adapters.aws.boto_config import BOTO_CONFIG

if TYPE_CHECKING:
    from ..bootstrap import AwsPort
    from ..domain.records import ProviderBinding
    from ..services.runtime import Runtime
    from .settings import Settings


def utc_now() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)


def now() -> datetime:
    """The current time, through the module clock (tests replace ``utc_now``)."""
    return utc_now()


@dataclass(frozen=True)
class Core:
    """The settings and the one boto3 session every port of this process is built on."""

    settings: Settings
    boto_session: boto3.Session

    def client(self, service: str) -> Any:
        """A boto3 client on the shared session (honours ``AWS_ENDPOINT_URL``)."""
        return self.boto_session.client(service, config=BOTO_CONFIG)  # type: ignore[call-overload]

    def now(self) -> datetime:
        """The current time, through the module clock (tests replace ``utc_now``)."""
        return now()


@cache
def core() -> Core:
    """Read the settings; a bad setting fails here, at cold start.

    The settings model (pydantic) is imported here, when the first request builds the root, not when Lambda
    imports the handler module: a request the handler turns away first (the decision URL answers any non-web
    payload or method itself) never loads it.
    """
    from .settings import load_settings

    return Core(settings=load_settings(os.environ).require("table_name"), boto_session=boto3.Session())


@cache
def runtime(*ports: AwsPort) -> Runtime:
    """This function's runtime (bootstrap.aws), once per process: the stores, the keys and ``ports``."""
    from ..bootstrap import aws

    shared = core()
    return aws(shared.settings, ports=ports, session=shared.boto_session, clock=now)


@dataclass(frozen=True)
class AgentRoot:
    """What the agent handlers run on."""

    core: Core
    runtime: Runtime
    binding: ProviderBinding


@cache
def agent_root(*extra: AwsPort) -> AgentRoot:
    """Build once per cold start: the same binding for start, resume and identity; ``extra`` ports beside the
    sessions and submissions (the start function alerts the operator).

    Imported here, not at module level, so the decision endpoint never loads strands.
    """
    from ..agent.providers import deployed_binding

    shared = core()
    settings = shared.settings.require("session_bucket")
    binding = deployed_binding(
        settings.provider, settings.model_id, settings.model_region, settings.model_profile, settings.model_endpoint
    )
    return AgentRoot(core=shared, runtime=runtime("sessions", "submissions", *extra), binding=binding)
