"""Fixtures for the console-script tests: one started run per flag set, copied for each test."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.clidriver import Run, cli
from tests.support.refusal_cases import Pending


@pytest.fixture(scope="session")
def _templates(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], tuple[Path, Run]]:
    return {}


@pytest.fixture
def pending(
    _templates: dict[tuple[str, ...], tuple[Path, Run]], tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Pending]:
    """A data dir with one run waiting for approval (started once per flag set, copied per call)."""

    def make(*flags: str) -> Pending:
        if flags not in _templates:
            target = tmp_path_factory.mktemp("template") / "data"
            run = cli("start", "--data-dir", str(target), *flags)
            assert run.returncode == 0, run.stderr
            _templates[flags] = (target, run)
        source, run = _templates[flags]
        copy = tmp_path_factory.mktemp("copy") / "data"
        shutil.copytree(source, copy)
        return Pending.from_start(source, run).moved_to(copy)

    return make
