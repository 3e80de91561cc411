"""Writes the lock files (`make lock`): every distribution the Lambda assets and the dev environment install,
pinned with the sha256 of each of its files on the registry.

    requirements.txt ----------------------------> requirements.lock       the agent functions' assets
    requirements.txt minus AGENT_ONLY_PACKAGES --> requirements-core.lock  the strands-free functions' assets
    requirements-dev.txt (-r requirements.txt) --> requirements-dev.lock   `make setup` (.venv)

The two Lambda locks are resolved for the Lambda runtime (CPython 3.12, manylinux, wheels only) and must
resolve the same for x86_64 and aarch64, the two architectures the stack deploys (a difference is refused:
one lock serves both, and the asset build installs it with ``--require-hashes``). The core and dev locks
are constrained by requirements.lock, so a distribution has one version wherever it is installed. The dev
lock is universal (any platform, Python >= 3.11), since developers and CI install it on their own machine.

    python scripts/lock.py [--check]     # --check: exit 1 if a lock is not what requirements*.txt give
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from infra.bundling import (  # noqa: E402  (the repository root goes on sys.path first)
    AGENT_LOCK,
    AGENT_ONLY_PACKAGES,
    CORE_LOCK,
    LAMBDA_PYTHON_VERSION,
    PLATFORMS,
    requirement_lines,
)

DEV_LOCK = ROOT / "requirements-dev.lock"
DEV_PYTHON_FLOOR = "3.11"
# uv's names for the manylinux2014 platforms the assets are built for (infra/bundling.py PLATFORMS).
UV_PLATFORMS = {"x86_64": "x86_64-manylinux_2_17", "arm64": "aarch64-manylinux_2_17"}
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", re.MULTILINE)


class LockMismatchError(RuntimeError):
    """The architectures resolve differently, or a lock differs from what requirements*.txt give (--check)."""


def pins(lock_text: str) -> dict[str, str]:
    """``{normalized project name: version}`` of a lock file's text."""
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in _PIN.findall(lock_text)}


def _compile(source: str, out: Path, *options: str, stdin: str | None = None) -> str:
    """``uv pip compile`` run from the repository root, so the lock names its inputs relatively."""
    subprocess.run(
        [
            sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--generate-hashes", "--no-header",
            "--output-file", str(out), *options, source,
        ],
        cwd=ROOT,
        input=stdin,
        text=True,
        check=True,
    )  # fmt: skip
    return out.read_text(encoding="utf-8")


def _lambda_options(architecture: str) -> tuple[str, ...]:
    assert set(UV_PLATFORMS) == set(PLATFORMS)
    return ("--python-version", LAMBDA_PYTHON_VERSION, "--python-platform", UV_PLATFORMS[architecture],
            "--only-binary", ":all:")  # fmt: skip


def _relative(path: Path) -> str:
    """How the lock names a constraint file: relative to the root, so no machine's path is committed."""
    return os.path.relpath(path, ROOT)


def _header(what: str) -> str:
    return f"# {what}\n# Written by `make lock` (scripts/lock.py) with uv; do not edit by hand.\n"


def write_locks(folder: Path) -> dict[str, Path]:
    """All three locks into ``folder`` (the repository root, or a temp dir for ``--check``)."""
    written: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="po-lock-") as tmp:
        core_input = "\n".join(requirement_lines(AGENT_ONLY_PACKAGES)) + "\n"
        for name, source, stdin, extra in (
            (AGENT_LOCK.name, "requirements.txt", None, ()),
            (CORE_LOCK.name, "-", core_input, ("--constraint", _relative(folder / AGENT_LOCK.name))),
        ):
            texts = {
                architecture: _compile(source, Path(tmp) / f"{architecture}-{name}", *_lambda_options(architecture),
                                       *extra, stdin=stdin)
                for architecture in sorted(UV_PLATFORMS)
            }  # fmt: skip
            if len(set(texts.values())) != 1:
                differing = {a: pins(t) for a, t in texts.items()}
                raise LockMismatchError(f"{name}: x86_64 and arm64 resolve differently: {differing}")
            what = f"The Lambda assets ({'agent' if name == AGENT_LOCK.name else 'strands-free'} functions): " \
                f"CPython {LAMBDA_PYTHON_VERSION}, manylinux2014 x86_64 and aarch64, wheels only."  # fmt: skip
            (folder / name).write_text(_header(what) + texts["x86_64"], encoding="utf-8")
            written[name] = folder / name
        dev = _compile(
            "requirements-dev.txt", Path(tmp) / DEV_LOCK.name, "--universal", "--python-version", DEV_PYTHON_FLOOR,
            "--constraint", _relative(folder / AGENT_LOCK.name),
        )  # fmt: skip
        what = f"The dev environment (`make setup`): any platform, CPython >= {DEV_PYTHON_FLOOR}."
        (folder / DEV_LOCK.name).write_text(_header(what) + dev, encoding="utf-8")
        written[DEV_LOCK.name] = folder / DEV_LOCK.name
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed locks, write nothing")
    args = parser.parse_args(argv)
    if not args.check:
        for path in write_locks(ROOT).values():
            print(f"wrote {path.relative_to(ROOT)} ({len(pins(path.read_text(encoding='utf-8')))} distributions)")
        return 0
    with tempfile.TemporaryDirectory(prefix="po-lock-check-") as tmp:
        stale = []
        for name, fresh in write_locks(Path(tmp)).items():
            if pins(fresh.read_text(encoding="utf-8")) != pins((ROOT / name).read_text(encoding="utf-8")):
                stale.append(name)
    if stale:
        print(f"stale: {', '.join(stale)}; run `make lock`", file=sys.stderr)
        return 1
    print("locks match requirements*.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
