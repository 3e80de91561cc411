"""Provider selection in one place: the binding that start, resume and identity all use, and the model.

Never compare provider names anywhere else: a checkpoint is resumable exactly when the runtime's
binding, built here, equals the one stored in it.

    settings (CLI flags | Lambda environment) --build_binding--> ProviderBinding --build_model--> Model
                                                                       |
                                                 checkpoint, agent identity, PROVIDER_MISMATCH

The binding holds what selects the backend (provider, model, region, profile, endpoint or host), never
a credential. :class:`ModelSettings` holds how we talk to it (streaming, retries, timeouts): those may
differ between start and resume without changing which model answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from strands import ModelRetryStrategy
from strands.models.model import Model

from ..domain.errors import ConfigurationError
from ..domain.records import ProviderBinding
from .model_settings import DEFAULT_MODELS, DEFAULT_OLLAMA_HOST, DEFAULT_REGION, PROVIDERS, ModelSettings

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_OLLAMA_HOST",
    "DEFAULT_REGION",
    "PROVIDERS",
    "ModelSettings",
    "binding_from_env",
    "build_binding",
    "build_model",
]

# Transient Bedrock errors that are safe to retry: a model call has no side effect.
_TRANSIENT_BEDROCK_CODES = frozenset(
    {"ServiceUnavailableException", "InternalServerException", "ModelNotReadyException"}
)


def _endpoint(url: str | None, flag: str) -> str:
    """A normalized http(s) URL without user info (it would end up in the checkpoint), or ""."""
    if not url:
        return ""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(f"{flag} must be an http:// or https:// URL")
    if parts.username or parts.password:
        raise ConfigurationError(f"{flag} must not carry credentials")
    if parts.query or parts.fragment:
        raise ConfigurationError(f"{flag} must not carry a query or fragment")
    return url.strip().rstrip("/")


def build_binding(
    provider: str = "deterministic",
    model_id: str | None = None,
    region: str | None = None,
    profile: str | None = None,
    *,
    bedrock_endpoint: str | None = None,
    ollama_host: str | None = None,
) -> ProviderBinding:
    """The provider binding for these settings, with each provider's defaults filled in.

    ``bedrock_endpoint`` (a private or test endpoint for Bedrock Runtime) and ``ollama_host`` both land in
    the binding's ``endpoint``; each is accepted only with its own provider (:func:`deployed_binding` takes
    one setting for either).
    """
    if provider not in PROVIDERS:
        raise ConfigurationError(f"unknown provider {provider!r} (known: {', '.join(PROVIDERS)})")
    if bedrock_endpoint and provider != "bedrock":
        raise ConfigurationError("--bedrock-endpoint applies only to --provider bedrock")
    if ollama_host and provider != "ollama":
        raise ConfigurationError("--ollama-host applies only to --provider ollama")
    if provider == "ollama":
        endpoint = _endpoint(ollama_host, "--ollama-host") or DEFAULT_OLLAMA_HOST
    else:
        endpoint = _endpoint(bedrock_endpoint, "--bedrock-endpoint")
    try:
        return ProviderBinding(
            provider=provider,  # type: ignore[arg-type]
            model_id=model_id or DEFAULT_MODELS[provider],
            region=region if region is not None else DEFAULT_REGION[provider],
            profile=profile or "",
            endpoint=endpoint,
        )
    except ValueError as exc:
        raise ConfigurationError(f"invalid provider settings: {exc}") from None


def deployed_binding(
    provider: str, model_id: str | None, region: str | None, profile: str | None, endpoint: str | None
) -> ProviderBinding:
    """:func:`build_binding` for a deployment configured with one endpoint setting for any provider
    (``PO_MODEL_ENDPOINT``): the Bedrock endpoint, or the Ollama host."""
    if not endpoint:
        return build_binding(provider, model_id, region, profile)
    if provider == "bedrock":
        return build_binding(provider, model_id, region, profile, bedrock_endpoint=endpoint)
    if provider == "ollama":
        return build_binding(provider, model_id, region, profile, ollama_host=endpoint)
    if provider not in PROVIDERS:
        raise ConfigurationError(f"unknown provider {provider!r} (known: {', '.join(PROVIDERS)})")
    raise ConfigurationError(f"provider {provider!r} takes no endpoint")


def binding_from_env(environ: Mapping[str, str]) -> ProviderBinding:
    """The binding configured for a Lambda function (environment set by the deployment).

    ``PO_PROVIDER``, ``PO_MODEL_ID``, ``PO_MODEL_REGION`` (else the function's ``AWS_REGION`` for
    Bedrock), ``PO_MODEL_PROFILE``, ``PO_MODEL_ENDPOINT`` (the Bedrock endpoint or the Ollama host).
    """
    provider = environ.get("PO_PROVIDER") or "deterministic"
    region = environ.get("PO_MODEL_REGION") or None
    if region is None and provider == "bedrock":
        region = environ.get("AWS_REGION") or None
    return deployed_binding(
        provider,
        environ.get("PO_MODEL_ID") or None,
        region,
        environ.get("PO_MODEL_PROFILE") or None,
        environ.get("PO_MODEL_ENDPOINT") or None,
    )


class PlannerRetryStrategy(ModelRetryStrategy):
    """Strands' backoff for throttling, extended to Bedrock's transient server errors."""

    def is_retryable(self, exception: Exception) -> bool:
        """Throttling (any provider) and Bedrock's transient 5xx codes."""
        if super().is_retryable(exception):
            return True
        response = getattr(exception, "response", None)
        code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
        return code in _TRANSIENT_BEDROCK_CODES


def build_retry_strategy(settings: ModelSettings) -> ModelRetryStrategy:
    """The agent's one retry policy for model calls."""
    return PlannerRetryStrategy(
        max_attempts=settings.retry_attempts,
        initial_delay=settings.retry_initial_delay_s,
        max_delay=settings.retry_max_delay_s,
    )


def _bedrock_model(binding: ProviderBinding, settings: ModelSettings) -> Model:
    import boto3  # type: ignore[import-untyped]
    from botocore.config import Config  # type: ignore[import-untyped]
    from botocore.exceptions import ProfileNotFound  # type: ignore[import-untyped]
    from strands.models.bedrock import BedrockModel

    session: boto3.Session | None = None
    if binding.profile:
        try:
            session = boto3.Session(profile_name=binding.profile, region_name=binding.region or None)
        except ProfileNotFound:
            # The profile name stays out of the message: it can say more than it should.
            raise ConfigurationError("the AWS profile given for bedrock does not exist here") from None
    client_config = Config(
        retries={"total_max_attempts": 1, "mode": "standard"},
        connect_timeout=settings.connect_timeout_s,
        read_timeout=settings.read_timeout_s,
    )
    return BedrockModel(
        boto_session=session,
        # BedrockModel refuses a region next to a session; the session above already carries it.
        region_name=None if session is not None else (binding.region or None),
        endpoint_url=binding.endpoint or None,
        boto_client_config=client_config,
        model_id=binding.model_id,
        streaming=settings.streaming,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
    )


def _ollama_model(binding: ProviderBinding, settings: ModelSettings) -> Model:
    try:
        from strands.models.ollama import OllamaModel
    except ImportError:
        raise ConfigurationError("provider ollama needs the ollama package (strands-agents[ollama])") from None
    client_args: dict[str, Any] = {"timeout": settings.read_timeout_s}
    return OllamaModel(
        binding.endpoint or DEFAULT_OLLAMA_HOST,
        ollama_client_args=client_args,
        model_id=binding.model_id,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
    )


def build_model(binding: ProviderBinding, settings: ModelSettings | None = None) -> Model:
    """The Strands model for ``binding``. Built only after the resume gate has passed."""
    settings = settings or ModelSettings()
    if binding.provider == "deterministic":
        # Loaded only for the deterministic provider: it reads the planning tools (intake, planner) at import.
        from .scripted_model import ScriptedModel

        return ScriptedModel(binding.model_id)
    if binding.provider == "bedrock":
        return _bedrock_model(binding, settings)
    if binding.provider == "ollama":
        return _ollama_model(binding, settings)
    raise ConfigurationError(f"provider {binding.provider!r} is not wired into this build")
