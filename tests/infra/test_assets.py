"""The built Lambda assets, imported as Lambda imports them: what the stack deploys is what is tested.

The assets are built the way ``cdk synth`` builds them (infra/bundling.py; for this machine's architecture,
so they can run here), then each handler is imported by the Lambda runtime's Python (3.12, found the same
way the bundling finds it) with ``-S -I``, only its own asset on ``sys.path``, and the environment the
template gives its function. The first build needs the package registry (about a minute); later runs
reuse the cached dependencies.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from infra.bundling import LAMBDA_PYTHON_VERSION, lambda_python
from tests.support.assets import BuiltAssets, built_assets

PROBE = Path(__file__).resolve().parents[1] / "support" / "asset_probe.py"
STRANDS_FREE = (
    "decide",
    "request_approval",
    "record_expiry",
    "report_pending_age",
    "send_outbox",
    "submit",
    "receive_email",
    "remind",
    "receipt_rule_set",
    "sign_operator_audit",
)
AGENT = ("run_agent", "resume_agent")


@pytest.fixture(scope="module")
def assets() -> BuiltAssets:
    return built_assets()


def probe(assets: BuiltAssets, module: str) -> dict[str, Any]:
    """What importing ``module``'s handler from its asset found (see tests/support/asset_probe.py)."""
    done = subprocess.run(
        [lambda_python(), "-S", "-I", str(PROBE), str(assets.asset_dirs[module]), assets.handlers[module]],
        capture_output=True,
        text=True,
        env=assets.environments[module],
        cwd=assets.asset_dirs[module],
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_every_handler_imports_and_builds_its_root_from_its_own_asset(assets: BuiltAssets) -> None:
    assert set(assets.handlers) == {*STRANDS_FREE, *AGENT}
    problems = {}
    for module in assets.handlers:
        report = probe(assets, module)
        assert report["python"] == LAMBDA_PYTHON_VERSION
        found = {key: report[key] for key in ("import_error", "root_error", "outside_asset") if report.get(key)}
        if report.get("invoked", {}).get("raised") not in (None, "ValidationError"):
            found["invoked"] = report["invoked"]
        if found:
            problems[module] = found
    assert problems == {}


def test_the_decision_endpoint_answers_from_its_asset(assets: BuiltAssets) -> None:
    """A GET without a link renders the neutral page: the page code and event models load on 3.12."""
    report = probe(assets, "decide")
    assert report["invoked"] == {"status": 404}
    assert report["strands_loaded"] is False


def test_strands_free_assets_do_not_ship_strands_and_agent_assets_do(assets: BuiltAssets) -> None:
    for module in STRANDS_FREE:
        assert not (assets.asset_dirs[module] / "strands").exists(), module
    for module in AGENT:
        assert (assets.asset_dirs[module] / "strands").is_dir(), module
    assert assets.asset_dirs["decide"] != assets.asset_dirs["run_agent"]


def test_assets_ship_bytecode_the_runtime_trusts(assets: BuiltAssets) -> None:
    """Precompiled for 3.12 as unchecked-hash .pyc (the zip's fixed timestamps would invalidate others)."""
    tag = f"cpython-{LAMBDA_PYTHON_VERSION.replace('.', '')}"
    for asset in set(assets.asset_dirs.values()):
        compiled = asset / "production_orchestrator" / "handlers" / "__pycache__" / f"decide.{tag}.pyc"
        assert compiled.is_file(), asset
        flags = int.from_bytes(compiled.read_bytes()[4:8], "little")
        assert flags == 0b01, "hash-based, unchecked"


PLAN_ON_ASSET = (
    "import json, sys; from production_orchestrator.domain.scenarios import SCENARIOS; "
    "from production_orchestrator.domain.planning.propose import build_proposal; "
    "s = SCENARIOS['rush-order']; p = build_proposal(s.taken_in(), s.target_order_id, s.planning_day); "
    "print(json.dumps({'planned_by': p.planned_by, 'hash': p.proposal_hash(), "
    "'highspy': sys.modules['highspy'].__file__}))"
)


def test_the_agent_asset_plans_with_the_solver_and_the_others_do_not_ship_it(assets: BuiltAssets) -> None:
    """The solver runs on the runtime's Python from the agent's own asset and gives the same plan as here."""
    from production_orchestrator.domain.planning.propose import build_proposal
    from production_orchestrator.domain.scenarios import SCENARIOS

    asset = assets.asset_dirs["run_agent"]
    done = subprocess.run(
        [lambda_python(), "-S", "-I", "-c", f"import sys; sys.path[:0] = [{str(asset)!r}]; " + PLAN_ON_ASSET],
        capture_output=True,
        text=True,
        env=assets.environments["run_agent"],
        cwd=asset,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    rush = SCENARIOS["rush-order"]
    here = build_proposal(rush.taken_in(), rush.target_order_id, rush.planning_day)
    assert report["planned_by"] == "solver" and report["hash"] == here.proposal_hash()
    assert report["highspy"].startswith(str(asset))
    for module in STRANDS_FREE:
        assert not (assets.asset_dirs[module] / "highspy").exists(), module
        assert not (assets.asset_dirs[module] / "numpy").exists(), module
