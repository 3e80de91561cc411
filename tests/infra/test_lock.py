"""The lock files: what the Lambda assets and the dev environment install, every distribution with its hashes.

- The locks hold every pin of requirements*.txt, each entry with sha256 hashes, one version per distribution
  across the three locks (offline; `python scripts/lock.py --check` re-resolves against the registry).
- The built assets hold exactly what their lock pins, and the dev environment what requirements-dev.lock pins.
- The asset build installs with --require-hashes: a wrong hash, or a dependency the lock does not pin, stops
  it and leaves nothing in the cache; the asset hash follows the lock's bytes.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.utils import canonicalize_name

from infra.bundling import (
    AGENT_LOCK,
    AGENT_ONLY_PACKAGES,
    CORE_LOCK,
    ENV_BUNDLE_CACHE,
    PLATFORMS,
    asset_hash,
    dependencies,
    host_architecture,
    lambda_code,
    requirement_lines,
)
from tests.support.assets import BuiltAssets, built_assets

ROOT = Path(__file__).resolve().parents[2]
DEV_LOCK = ROOT / "requirements-dev.lock"  # written by scripts/lock.py beside the Lambda locks
PROJECT = "production-orchestrator"
_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")
_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")
# python-dateutil 2.9.0.post0 and six 1.17.0 (small wheels; dateutil needs six), hashed as the core lock has them.
SIX = (
    "six==1.17.0 --hash=sha256:4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274 "
    "--hash=sha256:ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81\n"
)
DATEUTIL = (
    "python-dateutil==2.9.0.post0 --hash=sha256:37dd54208da7e1cd875388217d5e00ebd4179249f90fb72437e91a35459a0ad3 "
    "--hash=sha256:a8b2bc7bffae282281c8140a97d3aa9c14da0b136dfe83f850eea9a5f7470427\n"
)


def tampered(line: str) -> str:
    """The same pin with every hash replaced: what a hand edit (or a swapped file on the index) looks like."""
    return _HASH.sub("--hash=sha256:" + "0" * 64, line)


def lock_entries(path: Path) -> dict[str, list[tuple[str, str | None, list[str]]]]:
    """``{name: [(version, marker, hashes), ...]}`` of a lock (a universal lock may pin two versions)."""
    entries: dict[str, list[tuple[str, str | None, list[str]]]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        found = _ENTRY.match(line)
        if found:
            current = []
            name, version, marker = found.groups()
            entries.setdefault(canonicalize_name(name), []).append((version, marker, current))
        elif current is not None and line.strip().startswith("--hash="):
            current.extend(_HASH.findall(line))
        elif not line.strip().startswith("--hash="):
            current = None
    return entries


def applicable(path: Path) -> dict[str, str]:
    """``{name: version}`` the lock installs on this interpreter (markers evaluated here)."""
    out: dict[str, str] = {}
    for name, versions in lock_entries(path).items():
        for version, marker, _ in versions:
            if marker is None or Marker(marker).evaluate():
                assert name not in out, f"{path.name}: two versions of {name} apply here"
                out[name] = version
    return out


def top_level(requirements: Path) -> dict[str, str]:
    pins = {}
    for raw in requirements.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            name, version = line.split("==", 1)
            pins[canonicalize_name(name.split("[", 1)[0])] = version.strip()
    return pins


# -- the lock files as committed ------------------------------------------------------------------------------


@pytest.mark.parametrize("lock", [AGENT_LOCK, CORE_LOCK, DEV_LOCK], ids=lambda p: p.name)
def test_every_locked_distribution_carries_sha256_hashes(lock: Path) -> None:
    entries = lock_entries(lock)
    assert len(entries) > 20
    unhashed = [name for name, versions in entries.items() for _, _, hashes in versions if not hashes]
    assert unhashed == []
    assert "-e " not in lock.read_text() and "file:" not in lock.read_text(), "no local paths in a lock"


def test_the_lambda_locks_pin_requirements_txt_and_agree_on_every_version() -> None:
    agent, core = applicable(AGENT_LOCK), applicable(CORE_LOCK)
    for name, version in top_level(ROOT / "requirements.txt").items():
        assert agent.get(name) == version, name
    core_top = {canonicalize_name(line.split("==")[0].split("[")[0]) for line in requirement_lines(AGENT_ONLY_PACKAGES)}
    assert core_top <= set(core)
    assert {canonicalize_name(p) for p in AGENT_ONLY_PACKAGES}.isdisjoint(core)
    assert "strands-agents" not in core and not any(n.startswith("opentelemetry") for n in core)
    assert {name: agent[name] for name in core} == core, "the core lock is a subset of the agent lock"
    # The Lambda locks are resolved for one interpreter: no markers left for pip to read on the build host.
    assert all(marker is None for v in lock_entries(AGENT_LOCK).values() for _, marker, _ in v)


def test_the_dev_lock_pins_requirements_dev_txt_and_the_runtime_versions() -> None:
    dev = applicable(DEV_LOCK)
    wanted = {**top_level(ROOT / "requirements.txt"), **top_level(ROOT / "requirements-dev.txt")}
    assert {name: dev.get(name) for name in wanted} == wanted
    agent = applicable(AGENT_LOCK)
    shared = set(agent) & set(dev)
    assert {name: dev[name] for name in shared} == {name: agent[name] for name in shared}
    for installer in ("pip", "setuptools", "uv"):
        assert installer in dev, f"{installer} is pinned too, so `make setup` installs nothing unhashed"


# -- what is installed is what is locked -------------------------------------------------------------------


def installed_in(folder: Path) -> dict[str, str]:
    """``{name: version}`` of the ``*.dist-info`` directories in an asset (what ``pip freeze --path`` lists)."""
    out = {}
    for info in folder.glob("*.dist-info"):
        meta = importlib.metadata.PathDistribution(info).metadata
        out[canonicalize_name(meta["Name"])] = meta["Version"]
    return out


@pytest.fixture(scope="module")
def assets() -> BuiltAssets:
    return built_assets()


def test_each_built_asset_holds_exactly_what_its_lock_pins(assets: BuiltAssets) -> None:
    assert installed_in(assets.asset_dirs["decide"]) == applicable(CORE_LOCK)
    assert installed_in(assets.asset_dirs["run_agent"]) == applicable(AGENT_LOCK)


def test_the_dev_environment_holds_exactly_what_the_dev_lock_pins() -> None:
    """``pip freeze`` of this venv (made by `make setup`) against requirements-dev.lock."""
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--all", "--exclude-editable", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installed = dict(
        (canonicalize_name(n), v) for n, v in (line.split("==", 1) for line in frozen.splitlines() if "==" in line)
    )
    installed.pop(PROJECT, None)
    assert installed == applicable(DEV_LOCK)


# -- the build refuses what the lock does not vouch for -----------------------------------------------------


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv(ENV_BUNDLE_CACHE, str(cache))
    return cache


def _build(tmp_path: Path, text: str) -> Path:
    lock = tmp_path / "requirements.lock"
    lock.write_text(text, encoding="utf-8")
    return dependencies(lock, PLATFORMS[host_architecture()])


def test_a_lock_installs_what_it_pins_and_nothing_else(tmp_path: Path, own_cache: Path) -> None:
    built = _build(tmp_path, SIX + DATEUTIL)
    assert installed_in(built) == {"six": "1.17.0", "python-dateutil": "2.9.0.post0"}
    assert built.parent == own_cache


def test_a_hand_edited_hash_stops_the_build_and_caches_nothing(tmp_path: Path, own_cache: Path) -> None:
    with pytest.raises(subprocess.CalledProcessError):
        _build(tmp_path, tampered(SIX) + DATEUTIL)
    assert [p for p in own_cache.glob("*") if not p.name.startswith(".")] == []
    assert list(own_cache.glob(".building-*")) == []


def test_a_dependency_missing_from_the_lock_stops_the_build(tmp_path: Path, own_cache: Path) -> None:
    """python-dateutil needs six: with --require-hashes pip refuses to fetch an unpinned, unhashed six."""
    with pytest.raises(subprocess.CalledProcessError):
        _build(tmp_path, DATEUTIL)
    assert [p for p in own_cache.glob("*") if not p.name.startswith(".")] == []


def test_the_asset_hash_follows_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text(SIX, encoding="utf-8")
    first = asset_hash(lock, "x86_64")
    assert asset_hash(lock, "x86_64") == first
    assert asset_hash(lock, "arm64") != first
    lock.write_text(SIX.replace("1.17.0", "1.16.0"), encoding="utf-8")
    assert asset_hash(lock, "x86_64") != first
    lock.write_text(tampered(SIX), encoding="utf-8")
    assert asset_hash(lock, "x86_64") != first, "a hash alone changed: another file, another asset"


def _deployed_key(lock: Path) -> str:
    """The S3 key CDK gives a function whose code is the asset of ``lock`` (bundling skipped: the key is
    derived from the custom asset hash, as in ``cdk synth``)."""
    from aws_cdk import App, Stack
    from aws_cdk import aws_lambda as lambda_

    app = App(context={"aws:cdk:bundling-stacks": []})
    stack = Stack(app, "LockProbe")
    lambda_.Function(
        stack,
        "Fn",
        runtime=lambda_.Runtime.PYTHON_3_12,
        handler="production_orchestrator.handlers.decide.handler",
        code=lambda_code("x86_64", lock),
    )
    template = app.synth().get_stack_by_name("LockProbe").template
    (function,) = (r for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function")
    return str(function["Properties"]["Code"]["S3Key"])


def test_the_deployed_asset_changes_with_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text(SIX, encoding="utf-8")
    first = _deployed_key(lock)
    assert _deployed_key(lock) == first
    lock.write_text(tampered(SIX), encoding="utf-8")
    assert _deployed_key(lock) != first


def test_the_strands_free_and_agent_assets_install_different_locks(assets: BuiltAssets) -> None:
    """Each function's asset directory is named after what its lock installs (tested as built above)."""
    agent_dirs = {assets.asset_dirs[m] for m in ("run_agent", "resume_agent")}
    assert len(agent_dirs) == 1 and assets.asset_dirs["decide"] not in agent_dirs
    assert asset_hash(CORE_LOCK, host_architecture()) != asset_hash(AGENT_LOCK, host_architecture())


def test_the_quality_bench_reference_is_dev_only() -> None:
    """OR-Tools (the planner bench's CP-SAT reference) and what only it needs stay out of every Lambda asset."""
    dev_only = {"ortools", "pandas", "protobuf", "absl-py", "immutabledict"}
    assert "ortools" in lock_entries(DEV_LOCK)
    for path in (AGENT_LOCK, CORE_LOCK):
        assert not dev_only & {canonicalize_name(n) for n in lock_entries(path)}, path.name
    named = {canonicalize_name(re.split(r"[=<>\[ ;]", line, maxsplit=1)[0]) for line in requirement_lines(())}
    assert not dev_only & named
