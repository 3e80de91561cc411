"""Contract tests drive the real CLI in real subprocesses against a data dir on disk.

Starting the agent costs a fresh interpreter; each scenario is started once per worker into a template
data dir, and every test works on its own copy of it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from scripts.clidriver import Run, cli


class Started:
    """A data dir holding one run that waits for approval."""

    def __init__(self, data_dir: Path, run: Run) -> None:
        self.data_dir = data_dir
        self.run = run
        self.checkpoint_id = run["CHECKPOINT_ID"]
        self.proposal_hash = run["PROPOSAL_HASH"]
        self.interrupt_id = run["INTERRUPT_ID"]
        self.session_id = run["SESSION_ID"]

    def cli(self, *args: str) -> Run:
        return cli(args[0], "--data-dir", str(self.data_dir), *args[1:])

    def resume_args(self, decision: str = "approve", *extra: str) -> tuple[str, ...]:
        return (
            "resume",
            "--checkpoint",
            self.checkpoint_id,
            "--decision",
            decision,
            "--reviewed-hash",
            self.proposal_hash,
            "--approver",
            "test-approver",
            *extra,
        )

    def resume(self, decision: str = "approve", *extra: str) -> Run:
        return self.cli(*self.resume_args(decision, *extra))


def start_into(data_dir: Path, scenario: str, *extra: str) -> Started:
    run = cli("start", "--data-dir", str(data_dir), "--scenario", scenario, *extra)
    assert run.returncode == 0, run.stderr
    return Started(data_dir, run)


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Started]:
    made: dict[str, Started] = {}

    def template(scenario: str) -> Started:
        if scenario not in made:
            made[scenario] = start_into(tmp_path_factory.mktemp(f"template-{scenario}"), scenario)
        return made[scenario]

    return template


@pytest.fixture
def fresh(templates: Callable[[str], Started], tmp_path: Path) -> Callable[..., Started]:
    """A private copy of a started scenario's data dir."""
    counter = iter(range(1000))

    def copy(scenario: str = "rush-order") -> Started:
        source = templates(scenario)
        target = tmp_path / f"{scenario}-{next(counter)}"
        shutil.copytree(source.data_dir, target)
        return Started(target, source.run)

    return copy
