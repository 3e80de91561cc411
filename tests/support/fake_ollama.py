"""A loopback Ollama: ``POST /api/chat`` answered as NDJSON, one JSON object per line.

    {"message": {"role": "assistant", "content": "Next ", ...}, "done": false}      text, word by word
    {"message": {"role": "assistant", "content": "", "tool_calls": [...]}, "done": false}
    {"message": {...}, "done": true, "done_reason": "stop", "prompt_eval_count": N, "eval_count": M, ...}

Ollama's tool calls carry no ids: tool results are matched to calls by order, as Ollama itself does.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.loopback import Exchange, LoopbackServer, parse_json
from tests.support.model_scripts import Script, estimate_tokens, infer_status, planner

NDJSON = "application/x-ndjson"
CREATED_AT = "2026-08-12T08:00:00Z"


def decode_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Ollama chat messages as Converse-shaped messages (system prompt dropped)."""
    messages: list[dict[str, Any]] = []
    waiting: list[str] = []
    calls = 0
    for message in body.get("messages", []):
        role = message.get("role")
        text = message.get("content") or ""
        if role == "user":
            messages.append({"role": "user", "content": [{"text": text}]})
        elif role == "assistant":
            blocks: list[dict[str, Any]] = [{"text": text}] if text else []
            for call in message.get("tool_calls") or []:
                calls += 1
                waiting.append(f"call-{calls}")
                function = call.get("function", {})
                use = {"toolUseId": waiting[-1], "name": function.get("name", ""), "input": function.get("arguments")}
                blocks.append({"toolUse": use})
            messages.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            result = {
                "toolUseId": waiting.pop(0) if waiting else "unmatched",
                "content": [{"text": text}],
                "status": infer_status(text),
            }
            messages.append({"role": "user", "content": [{"toolResult": result}]})
    return messages


class FakeOllama(LoopbackServer):
    """Ollama's chat endpoint on 127.0.0.1, driven by ``script``."""

    def __init__(self, script: Script = planner) -> None:
        super().__init__()
        self.script = script

    def handle(
        self, path: str, raw: bytes, headers: dict[str, str]
    ) -> tuple[int, str, bytes, dict[str, str], Exchange]:
        body = parse_json(raw)
        model = str(body.get("model", ""))
        recorded = {"operation": "chat", "model_id": model, "stream": str(body.get("stream"))}
        if path != "/api/chat" or not model:
            error = json.dumps({"error": f"unknown endpoint {path} or model missing"}).encode()
            return 404, "application/json", error, {}, Exchange(path, body, 404, recorded)
        turn = self.script(decode_messages(body))
        lines: list[dict[str, Any]] = []

        def chunk(**message: Any) -> None:
            lines.append(
                {"model": model, "created_at": CREATED_AT, "message": {"role": "assistant", **message}, "done": False}
            )

        if turn.text:
            words = turn.text.split(" ")
            for i, word in enumerate(words):
                chunk(content=word if i == len(words) - 1 else word + " ")
        if turn.tool is not None:
            name, arguments = turn.tool
            chunk(content="", tool_calls=[{"function": {"name": name, "arguments": arguments}}])
        output = json.dumps([line["message"] for line in lines])
        input_tokens, output_tokens = estimate_tokens(raw.decode("utf-8", "replace")), estimate_tokens(output)
        lines.append(
            {
                "model": model,
                "created_at": CREATED_AT,
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": "stop",
                "total_duration": 1_000_000,
                "load_duration": 0,
                "prompt_eval_count": input_tokens,
                "prompt_eval_duration": 500_000,
                "eval_count": output_tokens,
                "eval_duration": 500_000,
            }
        )
        usage = {
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "totalTokens": input_tokens + output_tokens,
        }
        payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
        return 200, NDJSON, payload, {}, Exchange(path, body, 200, recorded, usage)
