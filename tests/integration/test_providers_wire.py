"""The pieces under the provider tests: event-stream framing, binding rules, client construction, workflow rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer
from strands.models.bedrock import BedrockModel
from strands.models.ollama import OllamaModel

from production_orchestrator.agent.prompts import first_message
from production_orchestrator.agent.providers import (
    DEFAULT_OLLAMA_HOST,
    ModelSettings,
    binding_from_env,
    build_binding,
    build_model,
)
from production_orchestrator.agent.workflow_rules import refusal
from production_orchestrator.domain.errors import ConfigurationError
from production_orchestrator.domain.records import agent_identity
from production_orchestrator.domain.scenarios import SCENARIOS
from tests.support.fake_bedrock import encode_event, encode_exception
from tests.support.provider_runs import DUMMY_AWS_ENV

# --- AWS event-stream framing --------------------------------------------------------------------------


def test_encoded_events_decode_with_botocore_and_pass_its_checksums() -> None:
    buffer = EventStreamBuffer()
    buffer.add_data(encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "héllo"}}))
    buffer.add_data(encode_exception("throttlingException", "slow down"))
    first, second = list(buffer)
    assert first.headers == {
        ":event-type": "contentBlockDelta",
        ":content-type": "application/json",
        ":message-type": "event",
    }
    assert json.loads(first.payload) == {"contentBlockIndex": 0, "delta": {"text": "héllo"}}
    assert second.headers[":message-type"] == "exception"
    assert second.headers[":exception-type"] == "throttlingException"


def test_a_corrupted_frame_fails_the_message_checksum() -> None:
    frame = bytearray(encode_event("messageStop", {"stopReason": "end_turn"}))
    frame[-6] ^= 0xFF  # inside the payload
    buffer = EventStreamBuffer()
    buffer.add_data(bytes(frame))
    with pytest.raises(ChecksumMismatch):
        list(buffer)


# --- the binding ---------------------------------------------------------------------------------------


def test_endpoint_and_host_are_part_of_the_binding_and_the_identity() -> None:
    plain = build_binding("bedrock", region="eu-central-1")
    private = build_binding("bedrock", region="eu-central-1", bedrock_endpoint="https://vpce-1.example/")
    assert private.endpoint == "https://vpce-1.example"
    assert private.differences(plain) == ["endpoint"]
    assert agent_identity(plain, "rush-order") != agent_identity(private, "rush-order")


def test_ollama_binding_always_names_its_host() -> None:
    assert build_binding("ollama").endpoint == DEFAULT_OLLAMA_HOST
    assert build_binding("ollama", ollama_host=DEFAULT_OLLAMA_HOST + "/") == build_binding("ollama")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"provider": "deterministic", "ollama_host": "http://127.0.0.1:1"}, "--ollama-host applies only"),
        ({"provider": "ollama", "bedrock_endpoint": "http://127.0.0.1:1"}, "--bedrock-endpoint applies only"),
        ({"provider": "bedrock", "bedrock_endpoint": "ftp://host"}, "http:// or https://"),
        ({"provider": "bedrock", "bedrock_endpoint": "https://user:pw@host"}, "must not carry credentials"),
        ({"provider": "ollama", "ollama_host": "http://host/?token=x"}, "query"),
    ],
)
def test_endpoint_settings_are_checked(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("?", r"\?")):
        build_binding(**kwargs)  # type: ignore[arg-type]


def test_binding_from_the_lambda_environment() -> None:
    env = {"PO_PROVIDER": "bedrock", "PO_MODEL_ID": "us.amazon.nova-lite-v1:0", "AWS_REGION": "eu-west-1"}
    assert binding_from_env(env) == build_binding("bedrock", "us.amazon.nova-lite-v1:0", "eu-west-1")
    assert binding_from_env({}) == build_binding("deterministic")
    ollama = binding_from_env({"PO_PROVIDER": "ollama", "PO_MODEL_ENDPOINT": "http://10.0.0.5:11434"})
    assert ollama == build_binding("ollama", ollama_host="http://10.0.0.5:11434")
    with pytest.raises(ConfigurationError, match="takes no endpoint"):
        binding_from_env({"PO_MODEL_ENDPOINT": "http://127.0.0.1:1"})


# --- the model clients ---------------------------------------------------------------------------------


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(key, value)
    config = tmp_path / "config"
    config.write_text("[profile shop-ops]\nregion = ap-southeast-2\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))


@pytest.mark.usefixtures("aws_env")
def test_bedrock_client_uses_the_binding_region_endpoint_and_streaming() -> None:
    binding = build_binding("bedrock", region="eu-central-1", bedrock_endpoint="http://127.0.0.1:1")
    model = build_model(binding, ModelSettings(streaming=False))
    assert isinstance(model, BedrockModel)
    assert model.client.meta.region_name == "eu-central-1"
    assert model.client.meta.endpoint_url == "http://127.0.0.1:1"
    assert model.get_config()["streaming"] is False
    assert model.client.meta.config.retries["total_max_attempts"] == 1


@pytest.mark.usefixtures("aws_env")
def test_bedrock_profile_goes_through_a_session_and_the_binding_region_wins() -> None:
    model = build_model(build_binding("bedrock", region="eu-central-1", profile="shop-ops"))
    assert isinstance(model, BedrockModel)
    assert model.client.meta.region_name == "eu-central-1"
    assert model.client.meta.endpoint_url == "https://bedrock-runtime.eu-central-1.amazonaws.com"


@pytest.mark.usefixtures("aws_env")
def test_unknown_profile_is_a_configuration_error_that_does_not_name_it() -> None:
    with pytest.raises(ConfigurationError) as error:
        build_model(build_binding("bedrock", profile="secret-team-profile"))
    assert "secret-team-profile" not in str(error.value)


def test_ollama_client_talks_to_the_binding_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:2")  # the binding wins over the environment
    model = build_model(build_binding("ollama", "qwen3:8b", ollama_host="http://127.0.0.1:3"))
    assert isinstance(model, OllamaModel)
    assert model.host == "http://127.0.0.1:3"
    assert model.get_config()["model_id"] == "qwen3:8b"


# --- workflow rules ------------------------------------------------------------------------------------


def _conversation(email: str) -> list[dict[str, object]]:
    return [{"role": "user", "content": [{"text": first_message(email)}]}]


def test_intake_accepts_the_customer_email_reflowed_but_not_changed() -> None:
    chosen = SCENARIOS["rush-order"]
    messages = _conversation(chosen.customer_email)
    request = chosen.target_order()
    reflowed = "\n\n".join(line.strip() + "  " for line in chosen.customer_email.splitlines())
    assert refusal("intake_customer_request", {"email": reflowed}, messages, request) is None  # type: ignore[arg-type]
    changed = chosen.customer_email.replace("Quantity: 120", "Quantity: 12")
    assert refusal("intake_customer_request", {"email": changed}, messages, request)  # type: ignore[arg-type]


def test_reads_are_never_refused() -> None:
    chosen = SCENARIOS["rush-order"]
    messages = _conversation(chosen.customer_email)
    for name in ("list_active_orders", "get_inventory", "get_machine_capacity", "analyze_blockers"):
        assert refusal(name, {"order_id": "RUSH-200"}, messages, chosen.target_order()) is None  # type: ignore[arg-type]
