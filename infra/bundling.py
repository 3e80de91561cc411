"""Lambda assets built without Docker: pip installs wheels for the Lambda platform, then byte-compiles.

asset hash = sha256(requirements, platform, python version, package sources)
  -> cdk.out/asset.<hash> exists?  yes: reused as is (synth stays fast)
                                   no:  pip install --platform ... -t OUT; copy the package; compileall
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
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
LAMBDA_PYTHON_VERSION = "3.12"
PLATFORMS = {"arm64": "manylinux2014_aarch64", "x86_64": "manylinux2014_x86_64"}
# Packages the decision endpoint must not ship: it serves a page and calls SendTaskSuccess, nothing more.
AGENT_ONLY_PACKAGES = ("strands-agents",)
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache")


def requirement_lines(exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """The pinned lines of ``requirements.txt``, without comments and without the ``exclude`` projects."""
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


def lambda_python() -> str:
    """An interpreter of the Lambda runtime's version, needed to write ``.pyc`` files that runtime loads."""
    override = os.environ.get("PO_LAMBDA_PYTHON")
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [override] if override else []
    candidates.extend(str(p / "bin" / "python") for p in sorted(pyenv_root.glob(f"versions/{LAMBDA_PYTHON_VERSION}.*")))
    candidates.append(shutil.which(f"python{LAMBDA_PYTHON_VERSION}") or "")
    for candidate in filter(None, candidates):
        # A pyenv shim exists even when its version is not selected; ask the interpreter itself.
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == LAMBDA_PYTHON_VERSION:
            return candidate
    raise RuntimeError(
        f"bundling needs a Python {LAMBDA_PYTHON_VERSION} interpreter to precompile the asset; "
        "set PO_LAMBDA_PYTHON to one (or skip bundling with -c aws:cdk:bundling-stacks=[])"
    )


@jsii.implements(ILocalBundling)
class PipLocalBundling:
    """Builds the asset directory on this machine (CDK calls it before it would try Docker)."""

    def __init__(self, requirements: tuple[str, ...], platform: str) -> None:
        self._requirements = requirements
        self._platform = platform

    def try_bundle(self, output_dir: str, _options: Any) -> bool:
        """Install, copy and compile into ``output_dir``; ``_options`` (the Docker settings) are unused."""
        out = Path(output_dir)
        with tempfile.TemporaryDirectory(prefix="po-bundle-") as tmp:
            requirements = Path(tmp) / "requirements.txt"
            requirements.write_text("\n".join(self._requirements) + "\n", encoding="utf-8")
            subprocess.run(
                [
                    sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--no-compile", "--no-warn-conflicts",
                    "--platform", self._platform, "--implementation", "cp",
                    "--python-version", LAMBDA_PYTHON_VERSION, "--only-binary=:all:",
                    "--target", str(out), "-r", str(requirements),
                ],
                check=True,
            )  # fmt: skip
        shutil.rmtree(out / "bin", ignore_errors=True)
        shutil.copytree(FUNCTIONS_DIR / HANDLER_PACKAGE, out / HANDLER_PACKAGE, ignore=_IGNORED)
        # The asset zip carries fixed timestamps, so timestamp-checked .pyc would be rejected and
        # recompiled on every cold start; unchecked-hash .pyc are trusted as shipped.
        subprocess.run(
            [lambda_python(), "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(out)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return True


def _source_fingerprint() -> str:
    digest = hashlib.sha256()
    package = FUNCTIONS_DIR / HANDLER_PACKAGE
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".json", ".eml")):
        if "__pycache__" in path.parts:
            continue
        digest.update(path.relative_to(FUNCTIONS_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def lambda_code(architecture: str, *, exclude: Iterable[str] = ()) -> lambda_.Code:
    """The asset for one dependency set: the whole package plus ``requirements.txt`` minus ``exclude``."""
    requirements = requirement_lines(exclude)
    platform = PLATFORMS[architecture]
    recipe = "\n".join((*requirements, platform, LAMBDA_PYTHON_VERSION, _source_fingerprint()))
    return lambda_.Code.from_asset(
        str(FUNCTIONS_DIR),
        asset_hash_type=AssetHashType.CUSTOM,
        asset_hash=hashlib.sha256(recipe.encode()).hexdigest(),
        bundling=BundlingOptions(
            # Never used: local bundling always succeeds or raises. CDK requires an image anyway.
            image=DockerImage.from_registry("public.ecr.aws/sam/build-python3.12"),
            # jsii calls try_bundle(output_dir, options) positionally, unlike the generated stub's kwargs.
            local=cast(ILocalBundling, PipLocalBundling(requirements, platform)),
        ),
    )
