"""``--data-dir`` before or after any command, nested ones included, and from ``PO_DATA_DIR``: the flag
beats the environment, the environment beats the default ``.production-orchestrator``."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import localstore
from tests.support.clidriver import cli, expect_error
from tests.support.refusal_cases import Pending


@pytest.mark.parametrize(
    "argv",
    [
        ("status", "--data-dir", "{d}"),
        ("--data-dir", "{d}", "status"),
        ("show", "--checkpoint", "{c}", "--data-dir", "{d}"),
        ("history", "--data-dir", "{d}"),
        ("shop", "show", "--data-dir", "{d}"),
        ("shop", "--data-dir", "{d}", "show"),
        ("--data-dir", "{d}", "shop", "show"),
        ("audit", "verify", "--data-dir", "{d}"),
        ("audit", "--data-dir", "{d}", "verify"),
        ("--data-dir", "{d}", "audit", "verify"),
    ],
    ids=lambda argv: " ".join(argv),
)
def test_data_dir_anywhere_on_the_line(argv: tuple[str, ...], pending: Callable[..., Pending]) -> None:
    run = pending()
    done = cli(*(a.format(d=run.data_dir, c=run.checkpoint_id) for a in argv))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_a_nested_write_takes_the_data_dir_after_its_arguments(pending: Callable[..., Pending]) -> None:
    run = pending()
    done = cli("shop", "set-inventory", "THREAD-RED-40", "650", "--data-dir", str(run.data_dir))
    assert done.returncode == 0, done.stderr
    assert "THREAD-RED-40 set to 650" in done.stdout
    assert localstore.audit_types(run.data_dir)[-1] == "inventory_set"


def test_flag_beats_environment_beats_default(pending: Callable[..., Pending], tmp_path: Path) -> None:
    run = pending()
    missing = tmp_path / "missing"
    # The environment alone.
    by_env = cli("status", environ={"PO_DATA_DIR": str(run.data_dir)})
    assert by_env.returncode == 0 and "revision 1" in by_env.stdout
    # The flag wins over the environment (before or after the command).
    assert cli("status", "--data-dir", str(run.data_dir), environ={"PO_DATA_DIR": str(missing)}).returncode == 0
    assert cli("--data-dir", str(run.data_dir), "status", environ={"PO_DATA_DIR": str(missing)}).returncode == 0
    expect_error(cli("status", "--data-dir", str(missing), environ={"PO_DATA_DIR": str(run.data_dir)}), str(missing))
    # The default is .production-orchestrator in the working directory; the environment wins over it.
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(run.data_dir, work / ".production-orchestrator")
    assert cli("status", cwd=work).returncode == 0
    expect_error(cli("status", cwd=work, environ={"PO_DATA_DIR": str(missing)}), str(missing))
    assert not missing.exists()


def test_a_later_data_dir_wins_over_an_earlier_one(pending: Callable[..., Pending], tmp_path: Path) -> None:
    run = pending()
    assert cli("--data-dir", str(tmp_path / "nope"), "status", "--data-dir", str(run.data_dir)).returncode == 0
