"""Building the parser: one top-level parser, and one sub-parser per command registered by a command module.

A command module exposes ``register(subparsers)`` and, in it, calls :func:`command` for each command it
adds, with a description and an example (help that teaches). :func:`command` adds ``--data-dir`` to every
command, nested ones included, so it may stand before or after the command words; the value is resolved
once, flag over ``PO_DATA_DIR`` over the default (:func:`data_dir`).

A module may also name its ``GROUP`` (the heading ``--help`` lists its commands under, as gh does) and its
``ALIASES`` (old spellings kept hidden: each says the new one on stderr and runs it). :func:`build_parser`
adds ``help COMMAND [SUBCOMMAND]`` itself.
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
from ..domain.errors import ValidationError
from .aws import AWS_COMMANDS, add_global_table_flags, table_of
from .config import explained as config_explained
from .output import EXIT_CODES, EXIT_USAGE, PROG, say

DEFAULT_DATA_DIR = ".production-orchestrator"
Handler = Callable[[argparse.Namespace], int]

DESCRIPTION = """\
An AI agent proposes a production plan for the shop and stops; a person approves or rejects that exact
plan later, from another process; only then does the plan apply, exactly once.

  start -> (the agent exits; the approval waits on disk) -> show / serve -> resume -> status

Results are printed as KEY=value lines on stdout (--json for one JSON object where offered); messages for
people go to stderr.
"""
USAGE = f"""{PROG} [-h] [--version] [--data-dir DIR] [--now TIME] COMMAND ...
       {PROG} --table NAME [--audit-key ID] [--receipt-key ID] COMMAND ...  (on AWS)"""
HELP_HINT = f"`{PROG} help COMMAND [SUBCOMMAND]` (or COMMAND --help) shows a command's options and examples."

GROUP_RUNS = "runs and decisions"
GROUP_SHOP = "the shop"
GROUP_MESSAGES = "approvers and messages"
GROUP_OPERATIONS = "operations"
GROUPS = (GROUP_RUNS, GROUP_SHOP, GROUP_MESSAGES, GROUP_OPERATIONS)
# The options before the command words that take a value (the command word is the first word after them).
GLOBAL_VALUE_FLAGS = ("--data-dir", "--now", "--table", "--audit-key", "--receipt-key")
# What a hidden old spelling carries over from before it to the command it stands for.
_GLOBALS = ("data_dir", "global_now", "table", "audit_key", "receipt_key")


class CommandModule(Protocol):
    """A module of the CLI that adds its commands to the parser."""

    def register(self, subparsers: Any) -> None:
        """Add this module's commands (each through :func:`command`)."""
        ...


class Parser(argparse.ArgumentParser):
    """Usage errors are one ``error:`` line and exit 2, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments: --table"):  # after a command with no AWS meaning
            message += f": that command has no AWS meaning; on a table run {AWS_COMMANDS}"
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
) -> argparse.ArgumentParser:
    """A sub-parser for ``name`` with its description, examples and ``--data-dir``; ``handler`` runs it."""
    epilog = ("examples:\n" if len(examples) > 1 else "example:\n") + "\n".join(f"  {PROG} {e}" for e in examples)
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=Formatter,
    )
    add_data_dir(parser)
    parser.set_defaults(command_words=parser.prog.removeprefix(f"{PROG} "), aws=False)
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
    group.add_argument(
        "--provider", default=None, choices=PROVIDERS, help=f"which model runs the agent (default: {PROVIDERS[0]})"
    )
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


class RootParser(Parser):
    """The top level: the commands listed under their groups (``groups``: heading -> command names)."""

    groups: dict[str, list[str]]

    def format_help(self) -> str:
        """Usage, description, each group's commands, the options, the exit codes."""
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        listed = {a.dest: a for a in _subcommands(self)._choices_actions if a.help is not argparse.SUPPRESS}
        for title, names in self.groups.items():
            formatter.start_section(title)
            _add_listing(formatter, [listed[name] for name in names if name in listed])
            formatter.end_section()
        formatter.add_text(HELP_HINT)
        for group in self._action_groups:
            shown = [a for a in group._group_actions if not isinstance(a, argparse._SubParsersAction)]
            if shown:
                formatter.start_section(group.title)
                formatter.add_text(group.description)
                formatter.add_arguments(shown)
                formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def _add_listing(formatter: Any, commands: list[argparse.Action]) -> None:
    """Commands one step in under their heading, as argparse lists sub-commands (the help column shared)."""
    for action in commands:
        width = len(formatter._format_action_invocation(action)) + formatter._current_indent + 2
        formatter._action_max_length = max(formatter._action_max_length, width)

    def listing() -> str:
        formatter._indent()
        try:
            return "".join(formatter._format_action(action) for action in commands)
        finally:
            formatter._dedent()

    formatter._add_item(listing, [])


class AliasParser(Parser):
    """A hidden old spelling: it takes every argument as given, for the new spelling to parse."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Every argument goes to the new spelling, unparsed (``-h`` too)."""
        namespace = namespace if namespace is not None else argparse.Namespace()
        for name, value in self._defaults.items():
            setattr(namespace, name, value)
        namespace.alias_argv = list(args or ())
        return namespace, []


def _subcommands(parser: argparse.ArgumentParser) -> Any:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def check_runtime(args: argparse.Namespace) -> None:
    """``--table`` only on a command that has an AWS meaning (ValidationError: one line, exit 2)."""
    if table_of(args) is not None and not getattr(args, "aws", False):
        words = getattr(args, "command_words", "this command")
        raise ValidationError(f"--table: `{words}` has no AWS meaning; on a table run {AWS_COMMANDS}")


def _add_alias(root: argparse.ArgumentParser, sub: Any, old: str, new: Sequence[str]) -> None:
    spelled = " ".join(new)

    def run(args: argparse.Namespace) -> int:
        say(f"note: `{PROG} {old}` is now `{PROG} {spelled}`; the old spelling goes away in a later release")
        again = root.parse_args([*new, *args.alias_argv])
        for name in _GLOBALS:
            if hasattr(args, name) and not hasattr(again, name):
                setattr(again, name, getattr(args, name))
        check_runtime(again)
        return int(again.handler(again))

    parser_class, sub._parser_class = sub._parser_class, AliasParser
    try:
        alias = sub.add_parser(
            old,
            help=argparse.SUPPRESS,  # hidden: not in --help, still walked by who reads the parser
            description=f"The old spelling of `{spelled}`, kept for one release: it prints the new spelling on "
            "stderr, then runs it with the same arguments.",
            epilog=f"example:\n  {PROG} {old} ...  (now: {PROG} {spelled} ...)",
            formatter_class=Formatter,
        )
    finally:
        sub._parser_class = parser_class
    add_data_dir(alias)
    alias.add_argument("arguments", nargs="*", metavar="ARGS", help=f"the arguments of `{spelled}`")
    alias.set_defaults(handler=run, aws=True, command_words=old)


def _add_help(root: argparse.ArgumentParser, sub: Any) -> None:
    def run(args: argparse.Namespace) -> int:
        parser = root
        for number, word in enumerate(args.words, start=1):
            found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            if not found or word not in found[0].choices:
                asked = " ".join(args.words[:number])
                raise ValidationError(f"unknown command `{asked}`: `{PROG} --help` lists the commands")
            parser = found[0].choices[word]
        print(parser.format_help(), end="")
        return 0

    helper = command(
        sub,
        "help",
        summary="a command's options and examples (help COMMAND [SUBCOMMAND])",
        description="Print the help of a command or of one of its actions, as COMMAND --help does; with no "
        "command, the list of every command.",
        examples=["help", "help shop import"],
        handler=run,
    )
    helper.add_argument("words", nargs="*", metavar="COMMAND", help="the command, then its action (e.g. shop import)")
    helper.set_defaults(on_interrupt=lambda _: "interrupted: nothing was changed", read_only=True)


def build_parser(modules: Iterable[CommandModule]) -> argparse.ArgumentParser:
    """The top-level parser with every module's commands, grouped for ``--help``, and ``help``."""
    epilog = f"{config_explained()}\n\n{_exit_codes()}"
    parser = RootParser(prog=PROG, description=DESCRIPTION, epilog=epilog, formatter_class=Formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    add_data_dir(parser)
    parser.add_argument(
        "--now",
        dest="global_now",
        default=argparse.SUPPRESS,
        metavar="TIME",
        help="the clock every part of the command reads, for a rehearsal (ISO 8601, e.g. 2027-01-05T09:00:00Z; "
        "default: $PO_NOW, else the wall clock); never earlier than the latest time the data dir has seen",
    )
    add_global_table_flags(parser)
    sub = parser.add_subparsers(
        title="commands",
        metavar="COMMAND",
        required=True,
        parser_class=Parser,
        help=f"`{PROG} COMMAND --help` for its options and examples",
    )
    parser.usage = USAGE  # after add_subparsers: the commands' own usage starts with the plain program name
    parser.groups = {title: [] for title in GROUPS}
    aliases: dict[str, Sequence[str]] = {}
    for module in modules:
        before = set(sub.choices)
        module.register(sub)
        group = str(getattr(module, "GROUP", "commands"))
        parser.groups.setdefault(group, []).extend(n for n in sub.choices if n not in before)
        aliases.update(getattr(module, "ALIASES", {}))
    _add_help(parser, sub)
    parser.groups[GROUP_OPERATIONS].append("help")
    for old, new in aliases.items():
        _add_alias(parser, sub, old, new)
    parser.groups = {title: names for title, names in parser.groups.items() if names}
    return parser
