"""The direction of dependencies: domain/ imports nothing from boto3, strands, powertools or the environment."""

from __future__ import annotations

import ast
from pathlib import Path

import production_orchestrator

PACKAGE = Path(production_orchestrator.__file__).parent
FORBIDDEN_IN_DOMAIN = ("boto3", "botocore", "strands", "aws_lambda_powertools", "os", "moto")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_domain_is_pure() -> None:
    offenders = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in (PACKAGE / "domain").rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] in FORBIDDEN_IN_DOMAIN
    }
    assert offenders == set()


def test_domain_reads_no_environment() -> None:
    for path in (PACKAGE / "domain").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            assert not (isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"}), path


def test_domain_does_not_import_outer_layers() -> None:
    for path in (PACKAGE / "domain").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                raise AssertionError(f"{path.name} imports from an outer layer: {node.module}")
