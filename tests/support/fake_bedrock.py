"""A loopback Amazon Bedrock Runtime: Converse (JSON) and ConverseStream (AWS event-stream framing).

    POST /model/{modelId}/converse         -> {"output": {"message": ...}, "stopReason", "usage", "metrics"}
    POST /model/{modelId}/converse-stream  -> application/vnd.amazon.eventstream: messageStart,
                                              contentBlockStart/Delta/Stop..., messageStop, metadata

A script decides each turn from the decoded conversation. Throttling is scripted too: the first
``throttle`` calls answer 429 ThrottlingException (or, streaming, an in-stream throttlingException).
Requests must carry a SigV4 Authorization header; the region of its credential scope is recorded.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import zlib
from typing import Any
from urllib.parse import unquote

from tests.support.loopback import Exchange, LoopbackServer, parse_json
from tests.support.model_scripts import Script, Turn, estimate_tokens, infer_status, planner

_PATH = re.compile(r"^/model/(?P<model>[^/]+)/(?P<op>converse|converse-stream)$")
_SCOPE = re.compile(r"Credential=[^/]+/\d{8}/(?P<region>[^/]+)/bedrock/aws4_request")
EVENT_STREAM = "application/vnd.amazon.eventstream"


def _header(name: str, value: str) -> bytes:
    """One event-stream header of type 7 (string): name length, name, type, value length, value."""
    key, text = name.encode(), value.encode()
    return struct.pack("!B", len(key)) + key + struct.pack("!BH", 7, len(text)) + text


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message.

    prelude (total length, headers length: uint32 BE) | prelude CRC32 | headers | payload | message CRC32,
    the message CRC covering every byte before it.
    """
    encoded = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack("!II", total, len(encoded))
    message = prelude + struct.pack("!I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack("!I", zlib.crc32(message))


def encode_event(event_type: str, payload: dict[str, Any]) -> bytes:
    """An ``event`` message carrying one ConverseStream event's members as JSON."""
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return encode_message(headers, json.dumps(payload).encode())


def encode_exception(exception_type: str, message: str) -> bytes:
    """An ``exception`` message, as Bedrock sends for an error after the stream began."""
    headers = {
        ":exception-type": exception_type,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return encode_message(headers, json.dumps({"message": message}).encode())


def decode_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Converse messages as Strands holds them; tool-result status is inferred when the wire omits it."""
    messages: list[dict[str, Any]] = []
    for message in body.get("messages", []):
        content = []
        for block in message.get("content", []):
            if "toolResult" in block and "status" not in block["toolResult"]:
                result = dict(block["toolResult"])
                text = "".join(str(c.get("text", "")) for c in result.get("content", []))
                result["status"] = infer_status(text)
                block = {"toolResult": result}
            content.append(block)
        messages.append({"role": message["role"], "content": content})
    return messages


class FakeBedrock(LoopbackServer):
    """Bedrock Runtime Converse/ConverseStream on 127.0.0.1, driven by ``script``."""

    def __init__(self, script: Script = planner, *, throttle: int = 0) -> None:
        super().__init__()
        self.script = script
        self.throttle_remaining = throttle

    def handle(
        self, path: str, raw: bytes, headers: dict[str, str]
    ) -> tuple[int, str, bytes, dict[str, str], Exchange]:
        body = parse_json(raw)
        lowered = {k.lower(): v for k, v in headers.items()}
        scope = _SCOPE.search(lowered.get("authorization", ""))
        recorded = {"operation": "", "model_id": "", "signed_region": scope.group("region") if scope else ""}
        match = _PATH.match(path)
        if match is None or scope is None:
            error = json.dumps({"message": "not a signed Converse request"}).encode()
            exchange = Exchange(path, body, 400, recorded)
            return 400, "application/json", error, {"x-amzn-ErrorType": "ValidationException"}, exchange
        streaming = match.group("op") == "converse-stream"
        recorded.update(operation="ConverseStream" if streaming else "Converse", model_id=unquote(match["model"]))

        if self.throttle_remaining > 0:
            self.throttle_remaining -= 1
            text = "Too many requests, please wait before trying again."
            if streaming:
                frames = encode_event("messageStart", {"role": "assistant"})
                frames += encode_exception("throttlingException", text)
                return 200, EVENT_STREAM, frames, {}, Exchange(path, body, 429, recorded)
            error = json.dumps({"message": text}).encode()
            headers_out = {
                "x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"
            }
            return 429, "application/json", error, headers_out, Exchange(path, body, 429, recorded)

        messages = decode_messages(body)
        turn = self.script(messages)
        content = self._content(turn, messages)
        stop_reason = "tool_use" if turn.tool is not None else "end_turn"
        input_tokens = estimate_tokens(raw.decode("utf-8", "replace"))
        output_tokens = estimate_tokens(json.dumps(content))
        usage = {
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "totalTokens": input_tokens + output_tokens,
        }
        exchange = Exchange(path, body, 200, recorded, usage)
        if not streaming:
            answer = {
                "output": {"message": {"role": "assistant", "content": content}},
                "stopReason": stop_reason,
                "usage": usage,
                "metrics": {"latencyMs": 1},
            }
            return 200, "application/json", json.dumps(answer).encode(), {}, exchange
        return 200, EVENT_STREAM, self._frames(content, stop_reason, usage), {}, exchange

    @staticmethod
    def _content(turn: Turn, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if turn.text:
            content.append({"text": turn.text})
        if turn.tool is not None:
            # Deterministic ids, so interrupt ids (derived from them) repeat from run to run.
            first = json.dumps(messages[0] if messages else {}, sort_keys=True)
            anchor = hashlib.sha256(first.encode()).hexdigest()[:12]
            turn_no = sum(1 for m in messages if m["role"] == "assistant")
            name, tool_input = turn.tool
            content.append(
                {"toolUse": {"toolUseId": f"tooluse_{anchor}_{turn_no:02d}", "name": name, "input": tool_input}}
            )
        return content

    @staticmethod
    def _frames(content: list[dict[str, Any]], stop_reason: str, usage: dict[str, int]) -> bytes:
        frames = [encode_event("messageStart", {"role": "assistant"})]
        for index, block in enumerate(content):
            if "toolUse" in block:
                use = block["toolUse"]
                start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
                frames.append(encode_event("contentBlockStart", {"contentBlockIndex": index, "start": start}))
                text = json.dumps(use["input"])
                # Split the input JSON across two deltas, as the service does for longer inputs.
                for part in (text[: len(text) // 2], text[len(text) // 2 :]):
                    delta = {"contentBlockIndex": index, "delta": {"toolUse": {"input": part}}}
                    frames.append(encode_event("contentBlockDelta", delta))
            else:
                words = block["text"].split(" ")
                for i, word in enumerate(words):
                    piece = word if i == len(words) - 1 else word + " "
                    frames.append(
                        encode_event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": piece}})
                    )
            frames.append(encode_event("contentBlockStop", {"contentBlockIndex": index}))
        frames.append(encode_event("messageStop", {"stopReason": stop_reason}))
        frames.append(encode_event("metadata", {"usage": usage, "metrics": {"latencyMs": 1}}))
        return b"".join(frames)
