"""Provider selection in one place: the binding that start, resume and identity all use, and the model.

Never compare provider names anywhere else: a checkpoint is resumable exactly when the runtime's
binding, built here, equals the one stored in it.
"""

from __future__ import annotations

from strands.models.model import Model

from ..domain.errors import ConfigurationError
from ..domain.records import ProviderBinding
from .scripted_model import SCRIPTED_MODEL_ID, ScriptedModel

PROVIDERS = ("deterministic", "bedrock", "ollama")
DEFAULT_MODELS = {
    "deterministic": SCRIPTED_MODEL_ID,
    "bedrock": "us.amazon.nova-pro-v1:0",
    "ollama": "llama3.1",
}
DEFAULT_REGION = {"deterministic": "", "bedrock": "us-east-1", "ollama": ""}


def build_binding(
    provider: str = "deterministic",
    model_id: str | None = None,
    region: str | None = None,
    profile: str | None = None,
    endpoint: str | None = None,
) -> ProviderBinding:
    """The provider binding for these settings, with each provider's defaults filled in."""
    if provider not in PROVIDERS:
        raise ConfigurationError(f"unknown provider {provider!r} (known: {', '.join(PROVIDERS)})")
    try:
        return ProviderBinding(
            provider=provider,  # type: ignore[arg-type]
            model_id=model_id or DEFAULT_MODELS[provider],
            region=region if region is not None else DEFAULT_REGION[provider],
            profile=profile or "",
            endpoint=endpoint or "",
        )
    except ValueError as exc:
        raise ConfigurationError(f"invalid provider settings: {exc}") from None


def build_model(binding: ProviderBinding) -> Model:
    """The Strands model for ``binding``."""
    if binding.provider == "deterministic":
        return ScriptedModel(binding.model_id)
    raise ConfigurationError(f"provider {binding.provider!r} is not wired into this build")
