"""Progress on stderr while ``start`` and ``resume`` work, only when stderr is a terminal (a pty here): each
step one line, ``… planning``; piped, stderr carries exactly what it did before and stdout never any progress."""

from __future__ import annotations

import itertools
import os
import pty
import subprocess
from pathlib import Path

from tests.support.clidriver import Run, cli, command, env

MARK = "\u2026 "


def on_a_terminal(*args: str) -> tuple[Run, list[str]]:
    """Run the CLI with stderr on a pseudo-terminal (stdout piped); the run and the terminal's lines."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(command(*args), stdout=subprocess.PIPE, stderr=follower, text=True, env=env())
        os.close(follower)
        seen = bytearray()
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen.extend(chunk)
        out, _ = process.communicate(timeout=120)
    finally:
        os.close(leader)
    lines = seen.decode().replace("\r\n", "\n").splitlines()
    return Run(args, process.returncode, out, "\n".join(lines)), lines


def steps(lines: list[str]) -> list[str]:
    return [line.removeprefix(MARK) for line in lines if line.startswith(MARK)]


def test_start_on_a_terminal_names_each_step(tmp_path: Path) -> None:
    run, lines = on_a_terminal("start", "--data-dir", str(tmp_path / "data"))
    assert run.returncode == 0, run.stderr
    shown = steps(lines)
    assert {"reading the e-mail", "planning", "waiting for the model"} <= set(shown), shown
    assert all(a != b for a, b in itertools.pairwise(shown))  # a step repeated at once shows once
    assert MARK not in run.stdout and run["CHECKPOINT_ID"].startswith("ckpt-")


def test_start_piped_prints_no_progress(tmp_path: Path) -> None:
    run = cli("start", "--data-dir", str(tmp_path / "data"))
    assert run.returncode == 0, run.stderr
    assert MARK not in run.stderr and MARK not in run.stdout
    assert run.stderr.splitlines()[0].startswith("next: ")  # what it always said first


def test_resume_on_a_terminal_names_its_steps(tmp_path: Path) -> None:
    data = tmp_path / "data"
    started = cli("start", "--data-dir", str(data))
    assert started.returncode == 0, started.stderr
    run, lines = on_a_terminal(
        "resume", "--data-dir", str(data), "--checkpoint", started["CHECKPOINT_ID"], "--decision", "approve",
        "--reviewed-hash", started["PROPOSAL_HASH"], "--approver", "shop-owner",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "applying the approved plan" in steps(lines) and run["OUTCOME"] == "applied"
