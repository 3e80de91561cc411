"""Approval-experience tests: runs started by the real CLI, pages served by the shared endpoint."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.clidriver import Run, cli


@pytest.fixture(scope="session")
def started(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Path, Run]]:
    """Start each distinct flag set once; every test gets its own copy of the data dir."""
    made: dict[tuple[str, ...], tuple[Path, Run]] = {}

    def make(*flags: str, link_base: str = "http://127.0.0.1:8765/approve") -> tuple[Path, Run]:
        """A copy of a data dir started with ``flags`` (links printed, e-mail approvers' too)."""
        key = (*flags, link_base)
        if key not in made:
            target = tmp_path_factory.mktemp("run")
            # --print-links: these tests open the pages with the printed links; the outbox path has its own tests.
            run = cli("start", "--data-dir", str(target), "--link-base", link_base, "--print-links", *flags)
            assert run.returncode == 0, run.stderr
            made[key] = (target, run)
        source, run = made[key]
        copy = tmp_path_factory.mktemp("copy") / "data"
        shutil.copytree(source, copy)
        return copy, run

    return make
