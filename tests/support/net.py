"""Loopback helpers for tests that start servers."""

from __future__ import annotations

import socket

# Three approvers for the approval-experience tests (ana, ben, cy).
APPROVERS = "ana@example.com,ben@example.com,cy@example.com"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
