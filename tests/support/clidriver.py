"""Drive the local CLI in real subprocesses: one process per command, as an operator would.

Shared by the demo, the evidence commands and the contract tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ROOT / "functions"


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


def env() -> dict[str, str]:
    """The environment a CLI subprocess runs with."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(FUNCTIONS) + os.pathsep + environment.get("PYTHONPATH", "")
    return environment


def command(*args: str) -> list[str]:
    """The argv that runs ``python -m production_orchestrator ARGS``."""
    return [sys.executable, "-m", "production_orchestrator", *args]


def cli(*args: str, timeout: float = 120) -> Run:
    """Run one CLI command to completion in a fresh process."""
    done = subprocess.run(command(*args), capture_output=True, text=True, env=env(), timeout=timeout, check=False)
    return Run(tuple(args), done.returncode, done.stdout, done.stderr)


def spawn(*args: str) -> subprocess.Popen[str]:
    """Start a CLI command without waiting (for races)."""
    return subprocess.Popen(command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())


def finish(process: subprocess.Popen[str], args: tuple[str, ...] = (), timeout: float = 120) -> Run:
    """Wait for a spawned command."""
    out, err = process.communicate(timeout=timeout)
    return Run(args, process.returncode, out, err)
