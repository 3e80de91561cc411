"""Lambda assets built without Docker: the Lambda runtime's Python installs the locked wheels for the Lambda
platform, then byte-compiles.

asset hash = sha256(lock file, platform, python version, package sources)
  -> cdk.out/asset.<hash> exists?  yes: reused as is (synth stays fast)
                                   no:  dependencies from the cache (built once per lock + platform:
                                        python3.12 -m pip install --require-hashes --platform ... -t DIR;
                                        compileall) + copy the package + compileall it

What is installed is the lock (requirements.lock for the agent functions, requirements-core.lock for the
others; `make lock` writes both from requirements.txt, scripts/lock.py): every distribution pinned with its
hashes, so two machines build the same bytes under one asset hash, and a file whose hash is not in the lock
stops the build.

The same :func:`lambda_python` finds the interpreter here and in the tests that import each handler from
its asset, so what is tested is what is built.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

import jsii
from aws_cdk import AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_

from .constants import HANDLER_PACKAGE

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = ROOT / "functions"
REQUIREMENTS_FILE = ROOT / "requirements.txt"
# What the assets install, every distribution with its hashes (`make lock`): all of requirements.txt for the
# agent functions, requirements.txt minus AGENT_ONLY_PACKAGES (and what only they need) for the others.
AGENT_LOCK = ROOT / "requirements.lock"
CORE_LOCK = ROOT / "requirements-core.lock"
LAMBDA_PYTHON_VERSION = "3.12"
ENV_LAMBDA_PYTHON = "PO_LAMBDA_PYTHON"
ENV_BUNDLE_CACHE = "PO_BUNDLE_CACHE"
PLATFORMS = {"arm64": "manylinux2014_aarch64", "x86_64": "manylinux2014_x86_64"}
# The machine name `uname -m` prints -> the Lambda architecture whose wheels run on it.
HOST_ARCHITECTURES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}
# Packages the decision endpoint must not ship: it serves a page and calls SendTaskSuccess, nothing more.
# The agent plans: strands, and the solver (HiGHS with its numpy, about 77 MB on x86_64, 67 MB on arm64).
AGENT_ONLY_PACKAGES = ("strands-agents", "highspy", "numpy")
# Part of every asset hash: a change to how assets are built must not reuse assets built the old way.
BUNDLING_VERSION = "bundling-3: the lock, --require-hashes, pip under the Lambda python"
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache")
_COMPILE = ("-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash")


class LambdaPythonMissingError(RuntimeError):
    """No Python of the Lambda runtime's version on this machine (named in the message: what to install)."""


class LockMissingError(RuntimeError):
    """The lock file an asset installs is not there (named in the message with the command that writes it)."""


def requirement_lines(exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """The pinned lines of ``requirements.txt``, without comments and without the ``exclude`` projects
    (the input of the locks; the assets install the locks)."""
    dropped = {name.lower() for name in exclude}
    lines = []
    for raw in REQUIREMENTS_FILE.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        project = line.split("==", 1)[0].split("[", 1)[0].strip().lower()
        if project not in dropped:
            lines.append(line)
    return tuple(lines)


def _python_version(candidate: str) -> str:
    try:
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return probe.stdout.strip() if probe.returncode == 0 else ""


def lambda_python() -> str:
    """An interpreter of the Lambda runtime's version: pip resolves environment markers with it and it
    writes the ``.pyc`` files that runtime loads.

    Looked up in order: ``$PO_LAMBDA_PYTHON``, pyenv's ``versions/3.12.*``, ``python3.12`` on ``PATH``.
    """
    override = os.environ.get(ENV_LAMBDA_PYTHON)
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [override] if override else []
    candidates.extend(str(p / "bin" / "python") for p in sorted(pyenv_root.glob(f"versions/{LAMBDA_PYTHON_VERSION}.*")))
    candidates.append(shutil.which(f"python{LAMBDA_PYTHON_VERSION}") or "")
    for candidate in filter(None, candidates):
        # A pyenv shim exists even when its version is not selected; ask the interpreter itself.
        if _python_version(candidate) == LAMBDA_PYTHON_VERSION:
            return candidate
    if override:
        raise LambdaPythonMissingError(f"{ENV_LAMBDA_PYTHON}={override} is not a Python {LAMBDA_PYTHON_VERSION}")
    raise LambdaPythonMissingError(
        f"building the Lambda assets needs CPython {LAMBDA_PYTHON_VERSION} (the Lambda runtime's version), and "
        f"none was found (tried ${ENV_LAMBDA_PYTHON}, {pyenv_root}/versions/{LAMBDA_PYTHON_VERSION}.*, "
        f"python{LAMBDA_PYTHON_VERSION} on PATH). Install it, e.g. `pyenv install {LAMBDA_PYTHON_VERSION}` or "
        f"your OS package python{LAMBDA_PYTHON_VERSION}, or point {ENV_LAMBDA_PYTHON} at one. "
        "(Template-only synth: npx cdk synth -c bundling=off)"
    )


def host_architecture() -> str:
    """The Lambda architecture whose wheels run on this machine (so its assets can be imported here)."""
    machine = os.uname().machine.lower()
    try:
        return HOST_ARCHITECTURES[machine]
    except KeyError:
        raise RuntimeError(f"no Lambda architecture runs {machine} code") from None


def cache_root() -> Path:
    """Where installed dependency sets are kept between builds (``$PO_BUNDLE_CACHE`` or the user cache)."""
    configured = os.environ.get(ENV_BUNDLE_CACHE)
    if configured:
        return Path(configured)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "production-orchestrator" / "lambda-deps"


def lock_text(lock: Path) -> str:
    """The lock file's content, which decides what an asset installs and so its hash."""
    try:
        return lock.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LockMissingError(f"{lock.name} is missing: run `make lock` (scripts/lock.py) and commit it") from None


def dependencies(lock: Path, platform: str) -> Path:
    """The installed and byte-compiled dependency set of ``lock`` on ``platform`` (built once per lock content).

    pip runs under the Lambda Python, so environment markers (``python_version``...) are the runtime's;
    ``--platform``/``--only-binary`` pick its wheels; ``--require-hashes`` refuses a file whose sha256 is not
    in the lock, and a distribution the lock does not pin. ``platform_machine`` markers still read this
    machine, which is why the tests build for the host architecture.
    """
    python = lambda_python()
    text = lock_text(lock)
    recipe = "\n".join((BUNDLING_VERSION, text, platform, LAMBDA_PYTHON_VERSION))
    target = cache_root() / f"{platform}-cp{LAMBDA_PYTHON_VERSION.replace('.', '')}-{_digest(recipe)[:16]}"
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".building-", dir=target.parent) as tmp:
        staging = Path(tmp) / "deps"
        # The text read once above is what is hashed and what is installed (the file may change meanwhile).
        requirements_file = Path(tmp) / lock.name
        requirements_file.write_text(text, encoding="utf-8")
        subprocess.run(
            [
                python, "-m", "pip", "install", "-qq", "--disable-pip-version-check",
                "--no-compile", "--no-warn-conflicts", "--no-warn-script-location", "--require-hashes",
                "--platform", platform, "--implementation", "cp",
                "--python-version", LAMBDA_PYTHON_VERSION, "--only-binary=:all:",
                "--target", str(staging), "-r", str(requirements_file),
            ],
            check=True,
        )  # fmt: skip
        shutil.rmtree(staging / "bin", ignore_errors=True)
        # The asset zip carries fixed timestamps, so timestamp-checked .pyc would be rejected and
        # recompiled on every cold start; unchecked-hash .pyc are trusted as shipped.
        subprocess.run([python, *_COMPILE, str(staging)], check=True, stdout=subprocess.DEVNULL)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # another build finished first: use its copy
                raise
    return target


@jsii.implements(ILocalBundling)
class PipLocalBundling:
    """Builds the asset directory on this machine (CDK calls it before it would try Docker)."""

    def __init__(self, lock: Path, platform: str) -> None:
        self._lock = lock
        self._platform = platform

    def try_bundle(self, output_dir: str, _options: Any) -> bool:
        """Dependencies, the package, compiled, into ``output_dir``; ``_options`` (Docker settings) unused."""
        out = Path(output_dir)
        shutil.copytree(dependencies(self._lock, self._platform), out, dirs_exist_ok=True)
        package = out / HANDLER_PACKAGE
        shutil.copytree(FUNCTIONS_DIR / HANDLER_PACKAGE, package, ignore=_IGNORED)
        subprocess.run([lambda_python(), *_COMPILE, str(package)], check=True, stdout=subprocess.DEVNULL)
        return True


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _source_fingerprint() -> str:
    digest = hashlib.sha256()
    package = FUNCTIONS_DIR / HANDLER_PACKAGE
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".json", ".eml")):
        if "__pycache__" in path.parts:
            continue
        digest.update(path.relative_to(FUNCTIONS_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def asset_hash(lock: Path, architecture: str) -> str:
    """The CDK asset hash of the package plus ``lock`` for ``architecture``: the lock's bytes, the platform,
    the Python version, the package sources and how assets are built."""
    recipe = (BUNDLING_VERSION, lock_text(lock), PLATFORMS[architecture], LAMBDA_PYTHON_VERSION, _source_fingerprint())
    return _digest("\n".join(recipe))


def lambda_code(architecture: str, lock: Path) -> lambda_.Code:
    """The asset of the whole package plus what ``lock`` pins (:data:`AGENT_LOCK` or :data:`CORE_LOCK`).

    Its hash is taken from the lock's content and the package sources, so what is installed decides it.
    """
    platform = PLATFORMS[architecture]
    return lambda_.Code.from_asset(
        str(FUNCTIONS_DIR),
        asset_hash_type=AssetHashType.CUSTOM,
        asset_hash=asset_hash(lock, architecture),
        bundling=BundlingOptions(
            # Never used: local bundling always succeeds or raises. CDK requires an image anyway.
            image=DockerImage.from_registry("public.ecr.aws/sam/build-python3.12"),
            # jsii calls try_bundle(output_dir, options) positionally, unlike the generated stub's kwargs.
            local=cast(ILocalBundling, PipLocalBundling(lock, platform)),
        ),
    )
