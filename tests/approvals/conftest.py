"""Approval-experience tests: runs started by the real CLI, pages served by the shared endpoint."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from scripts.clidriver import Run, cli

APPROVERS = "ana@example.com,ben@example.com,cy@example.com"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def started(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Path, Run]]:
    """Start each distinct flag set once; every test gets its own copy of the data dir."""
    made: dict[tuple[str, ...], tuple[Path, Run]] = {}

    def make(*flags: str, link_base: str = "http://127.0.0.1:8765/approve") -> tuple[Path, Run]:
        key = (*flags, link_base)
        if key not in made:
            target = tmp_path_factory.mktemp("run")
            run = cli("start", "--data-dir", str(target), "--link-base", link_base, *flags)
            assert run.returncode == 0, run.stderr
            made[key] = (target, run)
        source, run = made[key]
        copy = tmp_path_factory.mktemp("copy") / "data"
        shutil.copytree(source, copy)
        return copy, run

    return make
