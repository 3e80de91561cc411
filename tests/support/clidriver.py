"""Drive the installed CLI in real subprocesses: one process per command, as an operator would.

Every command runs the console script ``production-orchestrator`` that ``make setup`` installed (editable)
next to the interpreter running the tests, with no ``PYTHONPATH``: what a user types is what is tested.
Shared by the demo, the evidence commands and the tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = Path(sys.executable).parent / "production-orchestrator"


@dataclass(frozen=True)
class Run:
    """One finished CLI process."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def values(self) -> dict[str, str]:
        """``KEY=VALUE`` lines of stdout."""
        pairs = (line.split("=", 1) for line in self.stdout.splitlines() if "=" in line)
        return {k: v for k, v in pairs if k.isupper()}

    def __getitem__(self, key: str) -> str:
        return self.values[key]

    @property
    def error_lines(self) -> list[str]:
        """The ``error:`` lines of stderr."""
        return [line for line in self.stderr.splitlines() if line.startswith("error:")]


def env(extra: Mapping[str, str] | None = None, *, drop: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment a CLI subprocess runs with: this one without PYTHONPATH or PO_DATA_DIR, plus ``extra``.
    The user's configuration directory points nowhere unless ``extra`` names one: a developer's own
    production-orchestrator.toml never changes what a test runs."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PO_DATA_DIR", *drop)}
    environment["XDG_CONFIG_HOME"] = str(ROOT / "tests" / "support" / "no-user-config")
    environment.update(extra or {})
    return environment


def command(*args: str) -> list[str]:
    """The argv that runs ``production-orchestrator ARGS``."""
    if not SCRIPT.is_file():
        raise AssertionError(f"{SCRIPT} is missing: run `make setup` (it installs the console script)")
    return [str(SCRIPT), *args]


def cli(
    *args: str,
    timeout: float = 120,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    unset: tuple[str, ...] = (),
) -> Run:
    """Run one CLI command to completion in a fresh process (``environ`` added, ``unset`` removed)."""
    done = subprocess.run(
        command(*args),
        capture_output=True,
        text=True,
        env=env(environ, drop=unset),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return Run(tuple(args), done.returncode, done.stdout, done.stderr)


def spawn(*args: str, environ: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """Start a CLI command without waiting (for races)."""
    return subprocess.Popen(command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(environ))


def finish(process: subprocess.Popen[str], args: tuple[str, ...] = (), timeout: float = 120) -> Run:
    """Wait for a spawned command."""
    out, err = process.communicate(timeout=timeout)
    return Run(args, process.returncode, out, err)


def interrupt(process: subprocess.Popen[str], args: tuple[str, ...] = (), timeout: float = 30) -> Run:
    """Ctrl-C: SIGINT to the process, then wait for it to end."""
    process.send_signal(signal.SIGINT)
    return finish(process, args, timeout)


def wait_for_line(process: subprocess.Popen[str], prefix: str, timeout: float = 60) -> str:
    """The first stdout line of ``process`` starting with ``prefix`` (the process keeps running)."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith(prefix):
            return line.strip()
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"no {prefix!r} line from {process.args!r}")


def expect_error(run: Run, *words: str) -> str:
    """``run`` failed as an expected failure does: exit 2, one ``error:`` line naming ``words``, no traceback."""
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]
