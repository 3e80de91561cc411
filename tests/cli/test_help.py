"""Help that teaches: every command has a description, an example and documented options; the top level
names the exit codes; ``--version`` and the program name are right however the CLI is started."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import production_orchestrator
from production_orchestrator.cli.main import COMMAND_MODULES
from production_orchestrator.cli.output import EXIT_CODES
from production_orchestrator.cli.parser import build_parser
from tests.support.clidriver import cli, env

INTERNAL_NAMES = ("shop_command", "audit_command", "==SUPPRESS==", "(default: None)", "{start,", "dest=")


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path, nested ones included (``shop set-inventory``)."""
    found: list[tuple[str, ...]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if sub.prog.split()[-1] != name:
                    continue  # an alias: its parser is listed under its own name
                found.append((*path, name))
                found += _commands(sub, (*path, name))
    return found


def _parser_of(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser(COMMAND_MODULES)
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


COMMANDS = _commands(build_parser(COMMAND_MODULES))


def test_the_command_list_is_complete() -> None:
    top = {path[0] for path in COMMANDS}
    assert top >= {"start", "resume", "show", "status", "history", "shop", "serve", "audit", "repropose"}
    assert ("shop", "set-inventory") in COMMANDS and ("audit", "verify") in COMMANDS
    assert ("audit", "show") in COMMANDS


def test_version_prints_the_package_version() -> None:
    run = cli("--version")
    assert run.returncode == 0
    assert run.stdout.strip() == f"production-orchestrator {production_orchestrator.__version__}"


def test_python_dash_m_is_the_same_program_without_pythonpath() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "production_orchestrator", "--help"],
        capture_output=True,
        text=True,
        env=env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: production-orchestrator ")
    assert "python -m" not in done.stdout


def test_top_level_help_lists_commands_and_every_exit_code() -> None:
    run = cli("--help")
    assert run.returncode == 0
    text = run.stdout
    assert text.startswith("usage: production-orchestrator [-h] [--version] [--data-dir DIR] [--now TIME] COMMAND")
    codes = text.split("exit codes:", 1)[1]
    for code, _ in EXIT_CODES:
        assert f"\n  {code} " in codes
    assert {c for c, _ in EXIT_CODES} >= {0, 1, 2, 3, 4, 5, 130}
    for name in ("start", "resume", "show", "status", "history", "serve", "audit"):
        assert f"\n    {name} " in text
    for internal in INTERNAL_NAMES:
        assert internal not in text


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_command_has_a_description_an_example_and_documented_options(path: tuple[str, ...]) -> None:
    parser = _parser_of(path)
    assert parser.description and len(parser.description) > 40, path
    assert parser.epilog and f"production-orchestrator {' '.join(path)}" in parser.epilog, path
    for action in parser._actions:
        assert action.help, f"{' '.join(path)}: {action.option_strings or action.dest} has no help"
        assert action.metavar != action.dest or not action.dest.endswith("_command")
    text = parser.format_help()
    assert "--data-dir DIR" in text, path
    for internal in INTERNAL_NAMES:
        assert internal not in text, (path, internal)


@pytest.mark.parametrize(
    ("path", "defaults"),
    [
        (
            ("start",),
            ["default rush-order when no --request", "(default: 7d)", "(default: 2)", "http://127.0.0.1:8765/approve"],
        ),
        (("resume",), ["(default: 10m)", "(default: deterministic)"]),
        (("serve",), ["(default: 8765)"]),
    ],
)
def test_help_shows_defaults(path: tuple[str, ...], defaults: list[str]) -> None:
    run = cli(*path, "--help")
    assert run.returncode == 0
    flat = " ".join(run.stdout.split())
    for default in defaults:
        assert default in flat, (path, default)
    assert "example" in run.stdout and f"production-orchestrator {path[0]}" in run.stdout


def test_a_nested_command_shows_its_full_name_and_no_internal_dest() -> None:
    run = cli("shop", "set-inventory", "--help")
    assert run.returncode == 0
    assert run.stdout.startswith("usage: production-orchestrator shop set-inventory")
    assert "MATERIAL QUANTITY" in run.stdout
    missing = cli("shop")
    assert missing.returncode == 2
    assert "ACTION" in missing.stderr and "shop_command" not in missing.stderr
