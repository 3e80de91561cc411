"""The Host check of ``serve``: a Host without a port names the scheme's default port (RFC 9110 7.2), so
``serve --port 443`` answers the browsers that send ``Host: shop.local``; any other name or port is refused."""

from __future__ import annotations

import pytest

from production_orchestrator.approval_web.local_server import names_this_server

NAMES = ("127.0.0.1", "localhost", "shop.local", "[::1]")


@pytest.mark.parametrize(
    ("host", "port", "tls"),
    [
        ("shop.local", 443, True),
        ("shop.local:443", 443, True),
        ("SHOP.local:", 443, True),  # an empty port is the default one (RFC 3986)
        ("localhost", 80, False),
        ("127.0.0.1:8765", 8765, False),
        ("[::1]", 443, True),
        ("[::1]:8443", 8443, True),
    ],
)
def test_the_server_is_named(host: str, port: int, tls: bool) -> None:
    assert names_this_server(host, NAMES, port, tls=tls)


@pytest.mark.parametrize(
    ("host", "port", "tls"),
    [
        ("shop.local", 8765, False),  # no port means 80 here, not the port the server listens on
        ("shop.local", 443, False),  # without TLS the default is 80
        ("shop.local", 80, True),  # over TLS the default is 443
        ("shop.local:80", 443, True),
        ("evil.example", 443, True),
        ("evil.example:443", 443, True),
        ("shop.local:4x3", 443, True),
        ("::1", 443, True),
        ("[::1]x", 443, True),
        ("", 80, False),
    ],
)
def test_anything_else_is_refused(host: str, port: int, tls: bool) -> None:
    assert not names_this_server(host, NAMES, port, tls=tls)
