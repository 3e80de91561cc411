"""The direction of dependencies, and the size limit that keeps every module readable from the tree.

handlers/, cli/  ->  bootstrap (the composition root)  ->  services/, approval_web/  ->  domain/ (ports)  <-  adapters/
agent/ is below services/ (Strands wiring); contracts.py and faults.py are leaves.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

import production_orchestrator

PACKAGE = Path(production_orchestrator.__file__).parent
ROOT = PACKAGE.parents[1]
FORBIDDEN_IN_DOMAIN = ("boto3", "botocore", "strands", "aws_lambda_powertools", "os", "moto")

# Which first-level parts of the package each part may import (besides itself and the standard library).
ALLOWED = {
    "domain": set(),
    "contracts": set(),
    "faults": {"contracts"},
    "agent": {"domain", "contracts", "faults"},
    "adapters": {"domain", "contracts", "faults"},
    "services": {"domain", "agent", "contracts", "faults"},
    "approval_web": {"domain", "services", "contracts"},
    # The one composition root: it builds the adapters into the services' Runtime.
    "bootstrap": {"domain", "services", "adapters", "agent", "contracts"},
    "handlers": {"domain", "services", "approval_web", "adapters", "agent", "contracts", "bootstrap"},
    "cli": {"domain", "services", "approval_web", "adapters", "agent", "contracts", "bootstrap"},
}
# Third-party SDKs per part; anything else third-party in a part is a finding.
SDKS = {
    "domain": {"pydantic", "highspy"},  # highspy: imported by the solver only when a plan is made
    "contracts": set(),
    "faults": set(),
    "agent": {"strands", "pydantic", "botocore", "boto3", "ollama"},
    "adapters": {"boto3", "botocore", "pydantic", "strands"},
    "services": {"pydantic"},
    "approval_web": set(),
    "handlers": {"aws_lambda_powertools", "boto3", "botocore", "pydantic"},
    "cli": {"boto3", "botocore", "jsonschema"},
    "bootstrap": {"boto3"},
}
LOOSE_MODULE_LIMIT = 5
MODULE_LINE_LIMIT = 400


def imported_modules(path: Path) -> set[str]:
    """Absolute module names ``path`` imports; relative imports resolved against the package."""
    tree = ast.parse(path.read_text(), filename=str(path))
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names.add(node.module)
            elif node.level:
                cut = len(parts) - node.level + (1 if path.name == "__init__.py" else 0)
                base = parts[:cut]
                module = ".".join((*base, node.module)) if node.module else ".".join(base)
                names.add(module)
                if not node.module:  # ``from .. import faults``
                    names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def part_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def package_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def is_stdlib(name: str) -> bool:
    import sys

    return name.split(".")[0] in sys.stdlib_module_names or name == "__future__"


@pytest.mark.parametrize("path", package_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_each_module_imports_only_what_its_layer_may(path: Path) -> None:
    part = part_of(path)
    if part in ("__init__", "__main__"):
        return
    assert part in ALLOWED, f"{part} is not a known part of the package: add it to the architecture"
    offenders = []
    for name in imported_modules(path):
        top = name.split(".")
        if top[0] == "production_orchestrator":
            target = top[1] if len(top) > 1 else ""
            # The package's own metadata (``from .. import __version__``) is a leaf anyone may read.
            if target and target != part and target not in ALLOWED[part] and target != "__version__":
                offenders.append(name)
        elif not is_stdlib(name) and top[0] not in SDKS[part]:
            offenders.append(name)
    assert offenders == [], f"{path.relative_to(PACKAGE)} imports {offenders}"


def test_domain_reads_no_environment() -> None:
    for path in (PACKAGE / "domain").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            assert not (isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"}), path


def test_domain_imports_no_sdk() -> None:
    offenders = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in (PACKAGE / "domain").rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] in FORBIDDEN_IN_DOMAIN
    }
    assert offenders == set()


@pytest.mark.parametrize(
    "handler", ["decide", "request_approval", "record_expiry", "report_pending_age", "send_outbox", "submit"]
)
def test_strands_free_handlers_never_load_strands(handler: str) -> None:
    """Importing these handlers (their cold start) loads no strands module at all."""
    import subprocess
    import sys

    code = (
        f"import sys, production_orchestrator.handlers.{handler}; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'strands'))"
    )
    env = {"PYTHONPATH": str(PACKAGE.parent), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _domain_graph(level: str) -> dict[str, set[str]]:
    """Who imports whom inside domain/, per module (``level="module"``) or per concern folder (``"room"``):
    a concern's modules count as one room, the shared modules at domain/'s top as one room each."""
    domain = PACKAGE / "domain"

    def room(module: str) -> str:
        parts = module.split(".")[2:]  # production_orchestrator.domain.<...>
        if level == "module":
            return ".".join(parts)
        return parts[0] if parts else ""

    graph: dict[str, set[str]] = {}
    for path in domain.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        me = room(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"))
        for name in imported_modules(path):
            if name.startswith("production_orchestrator.domain.") and (other := room(name)) and other != me:
                graph.setdefault(me, set()).add(other)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle in ``graph`` (``[]`` when there is none)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


@pytest.mark.parametrize("level", ["module", "room"])
def test_the_domain_has_no_import_circles(level: str) -> None:
    """Neither two modules nor two concern folders of domain/ import each other, directly or around a loop
    (type-only imports count: a circle for the type checker is a circle for the reader)."""
    assert _cycle(_domain_graph(level)) == []


def test_the_shared_domain_modules_import_no_concern_but_through_ports() -> None:
    """canonical, errors, records, identity, durations are leaves the concerns stand on."""
    graph = _domain_graph("room")
    concerns = {"shop", "planning", "intake", "approval", "messages"}
    leaves = {"canonical", "errors", "records", "identity", "durations"}
    assert {leaf: graph.get(leaf, set()) & concerns for leaf in leaves if graph.get(leaf, set()) & concerns} == {}


def test_at_most_five_modules_loose_at_the_package_top() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= LOOSE_MODULE_LIMIT, loose


def test_no_module_is_over_the_line_limits() -> None:
    too_long = {
        str(p.relative_to(PACKAGE)): n
        for p in package_files()
        if (n := len(p.read_text().splitlines())) > MODULE_LINE_LIMIT
    }
    assert too_long == {}


def test_every_service_has_its_unit_tests() -> None:
    """tests/unit/services/<concern>/test_<module>.py for each service module (they run on the in-memory
    fakes), mirroring the tree."""
    services = PACKAGE / "services"
    tests = ROOT / "tests" / "unit" / "services"
    modules = {p.relative_to(services) for p in services.rglob("*.py") if p.name != "__init__.py"}
    tested = {p.relative_to(tests).with_name(p.name.removeprefix("test_")) for p in tests.rglob("test_*.py")}
    assert modules - tested == set()
    on_disk = [
        f"{path.relative_to(tests)}: {name}"
        for path in tests.rglob("*.py")
        for name in imported_modules_plain(path)
        if name.startswith(("sqlite3", "production_orchestrator.adapters", "production_orchestrator.cli"))
    ]
    assert on_disk == []


SERVICE_CONCERNS = ("runs", "asking", "deciding", "shop", "outbox")


def _services_graph(level: str) -> dict[str, set[str]]:
    """Who imports whom inside services/, per module or per room (a concern sub-package is one room, each
    module at services/' top one room of its own)."""
    services = PACKAGE / "services"
    prefix = "production_orchestrator.services."

    def room(module: str) -> str:
        rest = module.removeprefix(prefix).removesuffix(".__init__")
        return rest if level == "module" else rest.split(".")[0]

    graph: dict[str, set[str]] = {}
    for path in services.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        me = room(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        for name in imported_modules(path):
            if name.startswith(prefix) and (other := room(name)) and other != me:
                graph.setdefault(me, set()).add(other)
    return graph


@pytest.mark.parametrize("level", ["module", "room"])
def test_the_services_have_no_import_circles(level: str) -> None:
    """No two service modules, and no two concerns, import each other, directly or around a loop."""
    assert _cycle(_services_graph(level)) == []


def test_the_shared_service_modules_stand_below_every_concern() -> None:
    """runtime (what a run runs on) and evidence (the one checkpoint reader) import no concern: every concern
    may read them, none of them reaches back up."""
    graph = _services_graph("room")
    assert {m: graph.get(m, set()) & set(SERVICE_CONCERNS) for m in ("runtime", "evidence")} == {
        "runtime": set(),
        "evidence": set(),
    }


@pytest.mark.parametrize("concern", SERVICE_CONCERNS)
def test_each_service_concern_draws_its_steps(concern: str) -> None:
    """Each concern's package docstring names every one of its modules (the map a newcomer reads first)."""
    folder = PACKAGE / "services" / concern
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    missing = [p.stem for p in folder.glob("*.py") if p.stem != "__init__" and p.stem not in doc]
    assert missing == [], f"services/{concern}/__init__.py does not name {missing}"


def test_the_scripts_have_no_import_circles() -> None:
    """scripts/ import each other only one way (the torture runner's families are leaves of the runner)."""
    scripts = ROOT / "scripts"
    graph = {
        f"scripts.{path.stem}": {name for name in imported_modules_plain(path) if name.startswith("scripts.")}
        | {f"scripts.{name}" for name in imported_modules_plain(path) if (scripts / f"{name}.py").is_file()}
        for path in scripts.glob("*.py")
    }
    assert _cycle(graph) == []


def test_tests_do_not_import_conftest_modules() -> None:
    offenders = []
    for path in (ROOT / "tests").rglob("*.py"):
        for name in imported_modules_plain(path):
            if name.split(".")[-1] == "conftest":
                offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_tests_do_not_import_scripts() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / "tests").rglob("*.py")
        for name in imported_modules_plain(path)
        if name.split(".")[0] == "scripts"
    ]
    assert offenders == []


def imported_modules_plain(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_package_pins_what_the_lambda_assets_install() -> None:
    """pyproject's dependencies are requirements.txt's pins: the CLI runs what the functions run."""
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    pinned = {
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert declared == pinned
