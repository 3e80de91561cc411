"""docs/reference/ is what scripts/gen_reference.py writes from the code, and it names everything the code defines.

The pages are regenerated in memory (the template from the same on-disk synthesis cache the infra tests use) and
compared with the committed files; a difference fails with "run make docs". The names are gathered from the code
here, apart from the generator's page text, and each must appear on its page.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

import pytest
from scripts import gen_reference as gen

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def built() -> dict[str, str]:
    return gen.pages(gen.template())


def committed(name: str) -> str:
    return (gen.REFERENCE / name).read_text(encoding="utf-8")


def test_the_committed_reference_is_what_the_code_gives(built: dict[str, str]) -> None:
    out_of_date = gen.stale(built)
    assert not out_of_date, f"docs/reference is out of date ({', '.join(out_of_date)}): run make docs"


def visible_commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[tuple[Any, ...]]:
    """(command words, parser) of every sub-command argparse shows, gathered without the generator's walker."""
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


@pytest.mark.parametrize(("page", "parser"), [("cli.md", gen.root_parser), ("operator-cli.md", gen.operator_parser)])
def test_the_cli_reference_names_every_command_and_option(page: str, parser: Any) -> None:
    root = parser()
    text = committed(page)
    commands = visible_commands(root)
    assert commands
    for words, sub in commands:
        heading = f"## {root.prog} {' '.join(words)} {{#"
        assert heading in text, f"{page} has no section for {' '.join(words)}: run make docs"
        section = text[text.index(heading) :].split("\n## ", 1)[0]
        for action in sub._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
                continue
            for flag in action.option_strings:
                assert flag in section, f"{page}: {' '.join(words)} lacks {flag}: run make docs"


def test_the_exit_codes_page_names_every_exit_code() -> None:
    text = committed("exit-codes.md")
    output = importlib.import_module("production_orchestrator.cli.output")
    codes = {code for code, _ in output.EXIT_CODES} | {code for code, _, _ in gen.exit_constants()}
    assert {0, 1, 2, 3, 4, 5, 6, 130, 141} <= codes
    for code in codes:
        assert f"| `{code}` |" in text, f"exit code {code} is not in docs/reference/exit-codes.md: run make docs"


def test_the_refusal_page_names_every_code() -> None:
    text = committed("refusal-codes.md")
    errors = importlib.import_module("production_orchestrator.domain.errors")
    codes = {member.value for member in errors.RefusalCode} | {member.value for member in errors.ShopChangeCode}
    codes |= {member.value for member in errors.InboundRefusalCode} | gen.all_codes()
    for name in dir(errors):
        value = getattr(errors, name)
        if isinstance(value, type) and isinstance(getattr(value, "code", None), str):
            codes.add(value.code)
    assert "SENDER_INVALID" in codes and "UNPLANNABLE" in codes
    for code in codes:
        assert f"`{code}`" in text, f"{code} is not in docs/reference/refusal-codes.md: run make docs"


def test_the_environment_page_names_every_variable() -> None:
    text = committed("environment.md")
    contracts = importlib.import_module("production_orchestrator.contracts")
    variables = {getattr(contracts, n) for n in dir(contracts) if n.startswith("ENV_")} | gen.all_variables()
    assert len([n for n in dir(contracts) if n.startswith("ENV_")]) >= 37
    for variable in variables:
        assert f"`{variable}`" in text, f"{variable} is not in docs/reference/environment.md: run make docs"


def test_the_readme_opens_with_make_demo_and_make_test() -> None:
    readme = (gen.ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line.split()[1] for line in readme.splitlines() if line.startswith("make ")]
    assert commands[:2] == ["demo", "test"]
    assert len(readme.splitlines()) <= 220
