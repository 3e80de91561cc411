"""The command line as gh's: ``--help`` lists the commands under their groups, ``help COMMAND [SUBCOMMAND]``
prints a command's help, ``--table`` is refused by a command with no AWS meaning, and the operator commands'
old dashed spellings are hidden aliases that name the new spelling and run it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from production_orchestrator.cli import main
from production_orchestrator.cli.main import COMMAND_MODULES
from production_orchestrator.cli.parser import GROUPS, build_parser

ROOT = Path(__file__).resolve().parents[2]
SHOP_FILE = ROOT / "docs" / "examples" / "print-shop.json"
AWS_LEAVES = [
    ("shop", "import"),
    ("shop", "export"),
    ("shop", "receive"),
    ("order", "complete"),
    ("order", "cancel"),
    ("order", "progress"),
    ("audit", "verify"),
    ("approvals", "relink"),
    ("approvals", "wake"),
]
ALIASES = ("shop-import", "shop-export", "shop-receive", "order-complete", "order-cancel", "order-progress",
           "audit-verify", "relink", "wake-decided")  # fmt: skip


def _help_of(*words: str) -> str:
    parser = build_parser(COMMAND_MODULES)
    for word in words:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[word]
    return parser.format_help()


def _sections(text: str) -> dict[str, list[str]]:
    """Each ``heading:`` of the top-level help and the command names listed under it."""
    found: dict[str, list[str]] = {}
    heading = ""
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            heading = line[:-1]
            found[heading] = []
        elif heading and line.startswith("    ") and not line.startswith("     "):
            found[heading].append(line.split()[0])
    return found


def test_help_lists_every_command_once_under_its_group_in_order() -> None:
    text = _help_of()
    sections = _sections(text)
    groups = [g for g in sections if g in GROUPS]
    assert groups == list(GROUPS)
    listed = [name for g in GROUPS for name in sections[g]]
    parser = build_parser(COMMAND_MODULES)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    visible = [a.dest for a in sub._choices_actions if a.help is not argparse.SUPPRESS]
    assert sorted(listed) == sorted(visible) and len(listed) == len(set(listed))
    assert sections["runs and decisions"][:1] == ["start"] and "help" in sections["operations"]
    assert {"shop", "order"} == set(sections["the shop"])


def test_the_old_spellings_are_hidden_from_help() -> None:
    text = _help_of()
    for alias in ALIASES:
        assert f" {alias} " not in text and f" {alias}\n" not in text, alias
    assert "==SUPPRESS==" not in text


@pytest.mark.parametrize("words", [(), ("status",), ("shop",), ("shop", "import"), ("approvals", "wake")])
def test_help_command_prints_that_commands_help(words: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help", *words]) == 0
    captured = capsys.readouterr()
    assert captured.out == _help_of(*words) and captured.err == ""


@pytest.mark.parametrize("words", [("nope",), ("shop", "nope"), ("status", "extra")])
def test_help_of_an_unknown_command_is_one_error_line(
    words: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["help", *words]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: unknown command")
    assert " ".join(words) in captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ("--table", "T", "status"),
        ("--table", "T", "shop", "show"),
        ("--table", "T", "order", "list"),
        ("--table", "T", "start"),
        ("status", "--table", "T"),
        ("shop", "show", "--table", "T"),
    ],
    ids=" ".join,
)
def test_a_command_with_no_aws_meaning_refuses_table(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code: int | str | None
    try:
        code = main(["--data-dir", str(tmp_path / "none"), *argv])
    except SystemExit as exc:  # a usage error after the command words is argparse's own exit
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("error:") and "--table" in line and "no AWS meaning" in line and "audit verify" in line
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("words", AWS_LEAVES, ids=" ".join)
def test_each_aws_command_documents_table(words: tuple[str, ...]) -> None:
    assert "--table NAME" in _help_of(*words)


def test_wake_needs_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["approvals", "wake"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: approvals wake runs on a deployed stack: pass --table NAME")


def test_relink_on_a_table_needs_the_topic(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--table", "T", "approvals", "relink", "--approval", "appr-1", "--approver", "ben@example.com"]
    assert main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--topic-arn" in line and "--link-base" in line


def test_an_old_spelling_says_the_new_one_and_runs_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "shop-import", str(SHOP_FILE)]) == 0
    captured = capsys.readouterr()
    assert "`production-orchestrator shop-import` is now `production-orchestrator shop import`" in captured.err
    assert "SHOP=" in captured.out and (data / "shop.sqlite3").is_file()
    assert main(["order-progress", "--data-dir", str(data), "ORD-1003", "--minutes", "60"]) == 0
    captured = capsys.readouterr()
    assert "is now `production-orchestrator order progress`" in captured.err and "ORDER=ORD-1003" in captured.out
