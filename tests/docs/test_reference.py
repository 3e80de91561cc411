"""docs/reference/ is what scripts/gen_reference.py writes from the code, and it names everything the code defines.

The generator runs in a subprocess with ``--check`` (tests do not import scripts/): it regenerates every page in
memory, the template from the same on-disk synthesis cache the infra tests fill, and compares them with the
committed files. The names are gathered from the code here, independently of the generator, and each must appear
on its committed page.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "functions" / "production_orchestrator"
REFERENCE = ROOT / "docs" / "reference"


def committed(name: str) -> str:
    return (REFERENCE / name).read_text(encoding="utf-8")


def test_the_committed_reference_is_what_the_code_gives() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "functions"), str(ROOT)])}
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_reference.py"), "--check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    stale = [line for line in check.stderr.splitlines() if "out of date" in line]
    assert check.returncode == 0, "\n".join(stale) or check.stderr[-2000:] or "docs/reference: run make docs"


def root_parser() -> argparse.ArgumentParser:
    """The console script's root parser (as scripts/gen_reference.py's root_parser finds it)."""
    from production_orchestrator.cli.main import COMMAND_MODULES
    from production_orchestrator.cli.parser import build_parser

    return build_parser(COMMAND_MODULES)


def visible_commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[tuple[Any, ...]]:
    """(command words, parser) of every sub-command argparse shows."""
    found: list[tuple[Any, ...]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            hidden = {c.dest for c in action._choices_actions if c.help == argparse.SUPPRESS}
            listed = {c.dest for c in action._choices_actions}
            for name, sub in action.choices.items():
                if name in hidden or (listed and name not in listed):  # hidden, or an alias of a listed one
                    continue
                found.append(((*words, name), sub))
                found.extend(visible_commands(sub, (*words, name)))
    return found


def test_the_cli_reference_names_every_command_and_option() -> None:
    root = root_parser()
    text = committed("cli.md")
    commands = visible_commands(root)
    assert len(commands) > 10
    for words, sub in commands:
        heading = f"## {root.prog} {' '.join(words)} {{#"
        assert heading in text, f"cli.md has no section for {' '.join(words)}: run make docs"
        section = text[text.index(heading) :].split("\n## ", 1)[0]
        for action in sub._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
                continue
            for flag in action.option_strings:
                assert flag in section, f"cli.md: {' '.join(words)} lacks {flag}: run make docs"


def package_trees() -> list[ast.Module]:
    return [ast.parse(p.read_text(encoding="utf-8")) for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts]


def is_exit_constant(name: ast.expr, value: ast.expr) -> bool:
    return isinstance(name, ast.Name) and name.id.startswith("EXIT_") and isinstance(value, ast.Constant)


def test_the_exit_codes_page_names_every_exit_code() -> None:
    codes: set[int] = set()
    for tree in package_trees():
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                    for name, value in zip(names, values, strict=False):
                        if (
                            isinstance(name, ast.Name)
                            and name.id.startswith("EXIT_")
                            and isinstance(value, ast.Constant)
                        ):
                            codes.add(value.value)
    from production_orchestrator.cli.output import EXIT_CODES

    codes |= {code for code, _ in EXIT_CODES}
    assert {0, 1, 2, 3, 4, 5, 6, 130, 141} <= codes
    text = committed("exit-codes.md")
    for code in codes:
        assert f"| `{code}` |" in text, f"exit code {code} is not in docs/reference/exit-codes.md: run make docs"


def test_the_refusal_page_names_every_code() -> None:
    from enum import Enum

    from production_orchestrator.domain import errors

    codes: set[str] = set()
    classes = set()
    for value in vars(errors).values():
        if isinstance(value, type) and issubclass(value, Enum):
            codes |= {member.value for member in value}
        if isinstance(value, type) and issubclass(value, BaseException):
            classes.add(value.__name__)
            if isinstance(getattr(value, "code", None), str):
                codes.add(value.code)
    for tree in package_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                first = node.args[0].value
                if name in classes and isinstance(first, str) and re.fullmatch(r"[A-Z][A-Z_]+", first):
                    codes.add(first)
    assert {"STALE_DOMAIN_STATE", "SENDER_INVALID", "UNPLANNABLE", "IMPORT_CONFLICT"} <= codes
    text = committed("refusal-codes.md")
    for code in codes:
        assert f"`{code}`" in text, f"{code} is not in docs/reference/refusal-codes.md: run make docs"


def test_the_environment_page_names_every_variable() -> None:
    from production_orchestrator import contracts

    variables = {getattr(contracts, n) for n in dir(contracts) if n.startswith("ENV_")}
    assert len(variables) >= 37
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "infra").rglob("*.py")]:
        variables |= set(re.findall(r"[\"'](PO_[A-Z0-9_]+)[\"']", path.read_text(encoding="utf-8")))
    text = committed("environment.md")
    for variable in variables:
        assert f"`{variable}`" in text, f"{variable} is not in docs/reference/environment.md: run make docs"


def test_the_readme_opens_with_make_demo_and_make_test() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line.split()[1] for line in readme.splitlines() if line.startswith("make ")]
    assert commands[:2] == ["demo", "test"]
    assert len(readme.splitlines()) <= 220
