"""A loopback stand-in for a Lambda Function URL with ``AWS_IAM`` auth: it checks the SigV4 signature the way
Lambda does (recomputed with botocore from the signed headers only), then hands the function a payload 2.0
event whose ``requestContext.authorizer.iam`` names the caller the access key belongs to.

    CLI --POST, SigV4 (service lambda)--> SignedFunctionUrl --verified--> handler(event) --> its reply
                                                            \\--missing/wrong/stale signature--> 403, nothing run
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

_AUTH = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request,"
    r"\s*SignedHeaders=(?P<signed>[^,]+),\s*Signature=(?P<signature>[0-9a-f]{64})$"
)
SKEW = timedelta(minutes=5)


@dataclass(frozen=True)
class Caller:
    """An identity the stand-in knows: its secret and the ARN Lambda would report for it."""

    secret_key: str
    user_arn: str
    session_token: str | None = None


@dataclass
class SignedFunctionUrl:
    """What the stand-in saw: each request's verdict (``verified`` or why it was refused)."""

    region: str
    callers: dict[str, Caller]
    invoke: Callable[[dict[str, Any]], dict[str, Any]]
    url: str = ""
    verdicts: list[str] = field(default_factory=list)

    def verify(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[str, Caller | None]:
        """``("verified", caller)`` or ``(why, None)``."""
        match = _AUTH.match(headers.get("authorization", ""))
        if match is None:
            return "missing or malformed Authorization", None
        caller = self.callers.get(match["key"])
        if caller is None:
            return "unknown access key", None
        if (match["region"], match["service"]) != (self.region, "lambda"):
            return f"signed for {match['region']}/{match['service']}", None
        stamp = headers.get("x-amz-date", "")
        try:
            when = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        except ValueError:
            return "missing X-Amz-Date", None
        if abs(datetime.now(UTC) - when) > SKEW or match["date"] != stamp[:8]:
            return "stale signature", None
        if caller.session_token is not None and headers.get("x-amz-security-token") != caller.session_token:
            return "wrong security token", None
        signed = match["signed"].split(";")
        if "host" not in signed:
            return "host not signed", None
        # Only the headers the client signed (urllib adds others afterwards, as proxies may too).
        request = AWSRequest(
            method=method,
            url=f"{self.url.rstrip('/')}{path}",
            data=body,
            headers={name: headers[name] for name in signed if name != "host" and name in headers},
        )
        request.context["timestamp"] = stamp
        auth = SigV4Auth(Credentials(match["key"], caller.secret_key, caller.session_token), "lambda", self.region)
        expected = auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)
        if not secrets.compare_digest(expected, match["signature"]):
            return "signature does not match", None
        return "verified", caller

    def event(self, caller: Caller, body: bytes) -> dict[str, Any]:
        """The payload 2.0 event Lambda hands the function for a verified call."""
        return {
            "version": "2.0",
            "routeKey": "$default",
            "rawPath": "/",
            "rawQueryString": "",
            "headers": {"content-type": "application/json"},
            "requestContext": {
                "accountId": caller.user_arn.split(":")[4],
                "authorizer": {"iam": {"userArn": caller.user_arn, "callerId": caller.user_arn.rsplit("/", 1)[-1]}},
                "http": {"method": "POST", "path": "/", "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
                "requestId": secrets.token_hex(8),
                "stage": "$default",
            },
            "body": base64.b64encode(body).decode(),
            "isBase64Encoded": True,
        }


@contextmanager
def signed_function_url(
    region: str, callers: dict[str, Caller], invoke: Callable[[dict[str, Any]], dict[str, Any]]
) -> Iterator[SignedFunctionUrl]:
    """The stand-in on a free loopback port; ``url`` is set while it runs."""
    state = SignedFunctionUrl(region=region, callers=callers, invoke=invoke)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            verdict, caller = state.verify("POST", self.path, headers, body)
            state.verdicts.append(verdict)
            if caller is None:
                self._reply(403, {"Message": f"Forbidden: {verdict}"})
                return
            reply = state.invoke(state.event(caller, body))
            self._reply(int(reply["statusCode"]), json.loads(reply.get("body") or "{}"))

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
