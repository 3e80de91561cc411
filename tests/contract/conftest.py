"""Contract tests drive the real CLI in real subprocesses against a data dir on disk.

Starting the agent costs a fresh interpreter; each scenario is started once per worker into a template
data dir, and every test works on its own copy of it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.refusal_cases import Pending, start_into


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Pending]:
    made: dict[str, Pending] = {}

    def template(scenario: str) -> Pending:
        if scenario not in made:
            made[scenario] = start_into(tmp_path_factory.mktemp(f"template-{scenario}"), scenario)
        return made[scenario]

    return template


@pytest.fixture
def fresh(templates: Callable[[str], Pending], tmp_path: Path) -> Callable[..., Pending]:
    """A private copy of a started scenario's data dir."""
    counter = iter(range(1000))

    def copy(scenario: str = "rush-order") -> Pending:
        source = templates(scenario)
        target = tmp_path / f"{scenario}-{next(counter)}"
        shutil.copytree(source.data_dir, target)
        return source.moved_to(target)

    return copy
