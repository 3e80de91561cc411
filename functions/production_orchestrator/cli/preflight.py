"""Checks made before a command writes anything: can the chosen model be reached at all?

A run that fails for want of credentials or a server must fail before the shop is seeded, a data dir is
created or a decision is claimed, with a line that says what to do; not halfway through the agent loop.
Nothing here sends a prompt or prints a credential.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..agent.model_settings import DEFAULT_OLLAMA_HOST
from ..domain.errors import ConfigurationError

if TYPE_CHECKING:
    from ..domain.records import ProviderBinding

_CONNECT_TIMEOUT_S = 3


def bedrock_credentials(profile: str) -> None:
    """botocore's credential chain finds credentials for ``profile`` (or the default chain), else an error."""
    import boto3  # type: ignore[import-untyped]
    from botocore.exceptions import BotoCoreError, ProfileNotFound  # type: ignore[import-untyped]

    hint = "configure AWS credentials (aws configure, aws sso login, or AWS_PROFILE), or pass --profile NAME"
    try:
        credentials = boto3.Session(profile_name=profile or None).get_credentials()
        if credentials is None:
            raise ConfigurationError(f"bedrock needs AWS credentials and none were found: {hint}")
        credentials.get_frozen_credentials()  # a refreshable (SSO, assume-role) chain resolves here
    except ProfileNotFound:
        # The profile name stays out of the message: it can say more than it should.
        raise ConfigurationError("the AWS profile given for bedrock does not exist here: " + hint) from None
    except BotoCoreError as exc:
        raise ConfigurationError(f"the AWS credentials for bedrock could not be loaded ({exc}): {hint}") from None


def ollama_reachable(host: str) -> None:
    """Something listens at the Ollama ``host``, else an error naming it and how to start Ollama."""
    url = host or DEFAULT_OLLAMA_HOST
    parts = urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or (443 if parts.scheme == "https" else 80))
    try:
        with socket.create_connection(address, timeout=_CONNECT_TIMEOUT_S):
            return
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ConfigurationError(
            f"Ollama is not reachable at {url} ({why}): start it with `ollama serve`, or pass --ollama-host URL"
        ) from None


def check_provider(binding: ProviderBinding) -> None:
    """The model of ``binding`` can be reached (credentials found, server listening); raises otherwise."""
    if binding.provider == "bedrock":
        bedrock_credentials(binding.profile)
    elif binding.provider == "ollama":
        ollama_reachable(binding.endpoint)
