"""Building the parser: one top-level parser, and one sub-parser per command registered by a command module.

A command module exposes ``register(subparsers)`` and, in it, calls :func:`command` for each command it
adds, with a description and an example (help that teaches). :func:`command` adds ``--data-dir`` to every
command, nested ones included, so it may stand before or after the command words; the value is resolved
once, flag over ``PO_DATA_DIR`` over the default (:func:`data_dir`).
"""

from __future__ import annotations

import argparse
import os
import textwrap
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, Protocol

from .. import __version__
from ..agent.model_settings import DEFAULT_MODELS, DEFAULT_OLLAMA_HOST, DEFAULT_REGION, PROVIDERS
from ..contracts import ENV_DATA_DIR
from .output import EXIT_CODES, EXIT_USAGE, PROG

DEFAULT_DATA_DIR = ".production-orchestrator"
Handler = Callable[[argparse.Namespace], int]

DESCRIPTION = """\
An AI agent proposes a production plan for the shop and stops; a person approves or rejects that exact
plan later, from another process; only then does the plan apply, exactly once.

  start -> (the agent exits; the approval waits on disk) -> show / serve -> resume -> status

Results are printed as KEY=value lines on stdout (--json for one JSON object where offered); messages for
people go to stderr.
"""


class CommandModule(Protocol):
    """A module of the CLI that adds its commands to the parser."""

    def register(self, subparsers: Any) -> None:
        """Add this module's commands (each through :func:`command`)."""
        ...


class Parser(argparse.ArgumentParser):
    """Usage errors are one ``error:`` line and exit 2, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {message} (see {self.prog} --help)\n")


class Formatter(argparse.HelpFormatter):
    """Paragraphs are wrapped, indented blocks (examples, exit codes, diagrams) kept as written; every
    option with a default shows it."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for block in text.strip("\n").split("\n\n"):
            lines = block.splitlines()
            if any(line.startswith(" ") for line in lines):
                blocks.append("\n".join(indent + line for line in lines))
            else:
                blocks.append(
                    textwrap.fill(" ".join(block.split()), width, initial_indent=indent, subsequent_indent=indent)
                )
        return "\n\n".join(blocks)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "%(default)" in text
            or "default" in text
            or not action.option_strings
            or default in (None, argparse.SUPPRESS, False, "")
            or isinstance(action, argparse._HelpAction | argparse._VersionAction)
        ):
            return text
        return f"{text} (default: %(default)s)"


def _exit_codes() -> str:
    return "exit codes:\n" + "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES)


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    """``--data-dir`` on ``parser``; SUPPRESS as default, so a value given before the command survives."""
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="DIR",
        help=f"the data dir: one shop, its approvals and sessions (default: ${ENV_DATA_DIR}, else {DEFAULT_DATA_DIR})",
    )


def data_dir(args: argparse.Namespace) -> Path:
    """The data dir: ``--data-dir`` (before or after the command), else ``$PO_DATA_DIR``, else the default."""
    given = getattr(args, "data_dir", None)
    if given is not None:
        return Path(given)
    return Path(os.environ.get(ENV_DATA_DIR) or DEFAULT_DATA_DIR)


def command(
    subparsers: Any,
    name: str,
    *,
    summary: str,
    description: str,
    examples: Sequence[str],
    handler: Handler | None = None,
    aliases: Sequence[str] = (),
) -> argparse.ArgumentParser:
    """A sub-parser for ``name`` with its description, examples and ``--data-dir``; ``handler`` runs it."""
    epilog = ("examples:\n" if len(examples) > 1 else "example:\n") + "\n".join(f"  {PROG} {e}" for e in examples)
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=Formatter,
        aliases=list(aliases),
    )
    add_data_dir(parser)
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser


def actions(parser: argparse.ArgumentParser, *, metavar: str, title: str) -> Any:
    """The sub-commands of a command group (``shop show``, ``audit verify``), named ``metavar`` in usage."""
    return parser.add_subparsers(
        title=title,
        metavar=metavar,
        required=True,
        parser_class=Parser,
        help=f"`{parser.prog} {metavar} --help` for its options and examples",
    )


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """``--json``: one JSON object instead of ``KEY=value`` lines."""
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of KEY=value lines")


def add_provider_flags(parser: argparse.ArgumentParser) -> None:
    """Which model runs the agent. At resume these are the trusted runtime binding: they must match start's."""
    group = parser.add_argument_group("model provider (resume must use the same as start)")
    group.add_argument("--provider", default="deterministic", choices=PROVIDERS, help="which model runs the agent")
    models = ", ".join(f"{p}: {m}" for p, m in DEFAULT_MODELS.items())
    group.add_argument("--model", default=None, metavar="ID", help=f"model id (defaults: {models})")
    group.add_argument(
        "--region", default=None, metavar="REGION", help=f"bedrock's AWS region (default: {DEFAULT_REGION['bedrock']})"
    )
    group.add_argument("--profile", default=None, metavar="NAME", help="AWS profile for bedrock (default: none)")
    group.add_argument(
        "--bedrock-endpoint", default=None, metavar="URL", help="Bedrock Runtime endpoint override (private endpoint)"
    )
    group.add_argument(
        "--ollama-host", default=None, metavar="URL", help=f"Ollama server (default: {DEFAULT_OLLAMA_HOST})"
    )
    group.add_argument(
        "--bedrock-streaming",
        default=True,
        action=argparse.BooleanOptionalAction,
        help="bedrock: ConverseStream (on) or Converse (off); not part of the binding",
    )


def build_parser(modules: Iterable[CommandModule]) -> argparse.ArgumentParser:
    """The top-level parser with every module's commands."""
    parser = Parser(prog=PROG, description=DESCRIPTION, epilog=_exit_codes(), formatter_class=Formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    add_data_dir(parser)
    sub = parser.add_subparsers(
        title="commands",
        metavar="COMMAND",
        required=True,
        parser_class=Parser,
        help=f"`{PROG} COMMAND --help` for its options and examples",
    )
    for module in modules:
        module.register(sub)
    return parser
