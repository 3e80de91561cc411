"""A small HTTP server on 127.0.0.1 for the fake model services: threads, records, and stops by itself."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

MAX_LIFETIME_S = 300.0
MAX_REQUESTS = 2000


@dataclass
class Exchange:
    """One request the server received and how it answered."""

    path: str
    body: dict[str, Any]
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)


class LoopbackServer:
    """Serves ``handle`` on 127.0.0.1:<free port> in a daemon thread until ``stop`` or a deadline."""

    def __init__(self, *, max_lifetime_s: float = MAX_LIFETIME_S) -> None:
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with owner._lock:
                    over = len(owner.exchanges) >= MAX_REQUESTS
                if over:
                    self._send(503, "application/json", b'{"message": "request limit reached"}', {})
                    threading.Thread(target=owner.stop, daemon=True).start()
                    return
                status, content_type, body, headers, exchange = owner.handle(self.path, raw, dict(self.headers))
                with owner._lock:
                    owner.exchanges.append(exchange)
                self._send(status, content_type, body, headers)

            def _send(self, status: int, content_type: str, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._deadline = threading.Timer(max_lifetime_s, self.stop)
        self._deadline.daemon = True
        self._stopped = False

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def handle(
        self, path: str, raw: bytes, headers: dict[str, str]
    ) -> tuple[int, str, bytes, dict[str, str], Exchange]:
        """Answer one POST: (status, content type, body, extra headers, record)."""
        raise NotImplementedError

    def start(self) -> Self:
        """Begin serving."""
        self._thread.start()
        self._deadline.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (idempotent)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self._deadline.cancel()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def model_calls(self) -> list[Exchange]:
        """Exchanges so far (a copy)."""
        with self._lock:
            return list(self.exchanges)

    def usage(self) -> dict[str, int]:
        """Token estimates summed over every answered call."""
        total = {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}
        for exchange in self.model_calls():
            for key in total:
                total[key] += exchange.usage.get(key, 0)
        return total


def parse_json(raw: bytes) -> dict[str, Any]:
    """The request body as JSON (an empty object when it is not)."""
    try:
        value = json.loads(raw or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
