"""The CLI's layout: one module per top-level command under cli/commands/, and no command module imports
another (what two commands share lives in the shared modules beside the package)."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

import production_orchestrator.cli.commands as commands_package
from production_orchestrator.cli.main import COMMAND_MODULES
from production_orchestrator.cli.parser import build_parser

COMMANDS = Path(commands_package.__file__).parent
PREFIX = "production_orchestrator.cli.commands"


def _command_modules() -> list[Path]:
    return sorted(p for p in COMMANDS.glob("*.py") if p.name != "__init__.py")


def imported(path: Path) -> set[str]:
    """Absolute names ``path`` imports (relative imports resolved; ``from .. import x`` names ``x`` too)."""
    parts = ("production_orchestrator", "cli", "commands", path.stem)
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(parts[: len(parts) - node.level]) if node.level else ""
            module = ".".join(filter(None, (base, node.module or "")))
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", _command_modules(), ids=lambda p: p.stem)
def test_no_command_module_imports_another(path: Path) -> None:
    others = {f"{PREFIX}.{p.stem}" for p in _command_modules() if p != path} | {PREFIX}
    assert sorted(imported(path) & others) == [], f"cli/commands/{path.name} imports another command module"


def test_the_import_check_sees_an_import_between_commands(tmp_path: Path) -> None:
    for line in ("from . import shop", "from .shop import register", "from ..commands import shop",
                 "from production_orchestrator.cli.commands.shop import register"):  # fmt: skip
        probe = tmp_path / "probe.py"
        probe.write_text(line + "\n")
        assert f"{PREFIX}.shop" in imported(probe), line


def test_one_module_per_top_level_command() -> None:
    parser = build_parser(COMMAND_MODULES)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    # Hidden old spellings (help SUPPRESS) are not commands; ``help`` is the parser kit's own.
    top = {a.dest for a in sub._choices_actions if a.help is not argparse.SUPPRESS} - {"help"}
    assert {p.stem.replace("_", "-") for p in _command_modules()} == top
    assert {m.__name__.rsplit(".", 1)[-1] for m in COMMAND_MODULES} == {p.stem for p in _command_modules()}
