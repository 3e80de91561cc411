"""The names and settings of the model providers, without importing Strands: the CLI's parser, the
runtime's settings and the help text read these; ``providers`` builds bindings and models from them.
"""

from __future__ import annotations

from dataclasses import dataclass

SCRIPTED_MODEL_ID = "scripted-planner-v1"
PROVIDERS = ("deterministic", "bedrock", "ollama")
DEFAULT_MODELS = {
    "deterministic": SCRIPTED_MODEL_ID,
    "bedrock": "us.amazon.nova-pro-v1:0",
    "ollama": "llama3.1",
}
DEFAULT_REGION = {"deterministic": "", "bedrock": "us-east-1", "ollama": ""}
# The Ollama client falls back to $OLLAMA_HOST when given no host; the binding always names one, so the
# environment cannot silently send a resume to another server than the checkpoint's.
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"


@dataclass(frozen=True)
class ModelSettings:
    """How the runtime talks to the model. Not part of the binding: changing these never changes the model.

    Retries happen in one place, the agent's retry strategy (exponential backoff from
    ``retry_initial_delay_s``); the AWS SDK's own retries are off so attempts do not multiply.
    """

    streaming: bool = True
    temperature: float = 0.0
    max_tokens: int = 1024
    retry_attempts: int = 6
    retry_initial_delay_s: int = 4
    retry_max_delay_s: int = 240
    connect_timeout_s: int = 10
    read_timeout_s: int = 120
