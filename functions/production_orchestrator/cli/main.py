"""The entry point: build the parser from the command modules, run one command, map failures to exit codes.

A command imports only its own module: when the words name a command, the parser holds that command alone
(``--help``, ``help``, an old spelling or a typo get every command). Every expected failure is one ``error:``
line on stderr and exit 2, never a traceback. A closed stdout (``| head``) ends quietly; Ctrl-C prints one line
saying what state was left and exits 130.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from ..domain.errors import OrchestratorError, ResumeRefusedError
from .config import apply_config
from .output import EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, guard_terminal, say
from .parser import GLOBAL_VALUE_FLAGS, CommandModule, build_parser, check_runtime, data_dir

# The modules of cli/commands/, one per top-level command (``start`` in start.py, ``resume-approval`` in
# resume_approval.py). Each adds its commands through ``register(subparsers)`` and names its GROUP; --help lists
# the groups in the order their first command comes here.
COMMAND_NAMES: tuple[str, ...] = (
    "start", "plan", "show", "resume", "resume_approval", "repropose", "revise",  # runs and decisions
    "status", "history", "request",
    "shop", "order",  # the shop
    "serve", "approvals", "remind", "outbox",  # approvers and messages
    "audit", "submit", "completion",  # operations
)  # fmt: skip


def command_modules(names: Sequence[str] = COMMAND_NAMES) -> tuple[CommandModule, ...]:
    """The command modules ``names`` names, imported (their definitions only: see cli/parser.py)."""
    # __import__, not importlib.import_module: the interpreter's own import, which -X importtime reports.
    return tuple(__import__(f"{__package__}.commands.{name}", fromlist=["register"]) for name in names)


def root_parser() -> argparse.ArgumentParser:
    """The parser with every command (what ``--help``, the reference pages and completion read)."""
    return build_parser(command_modules())


def __getattr__(name: str) -> tuple[CommandModule, ...]:
    if name == "COMMAND_MODULES":  # every command module, for who reads the whole parser (docs, tests)
        return command_modules()
    raise AttributeError(name)


def command_word(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (global flags and their values skipped), or None: no command, or ``--help``
    before it."""
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help"):
            return None
        if word in GLOBAL_VALUE_FLAGS:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of ``argv``: the named command's module alone, else every command (help, aliases, typos)."""
    word = command_word(argv)
    module = word.replace("-", "_") if word and "_" not in word else None
    return build_parser(command_modules((module,) if module in COMMAND_NAMES else COMMAND_NAMES))


# Failures of the model's transport that are the environment's, not ours: named by class so the CLI needs
# neither httpx nor botocore imported to recognise them.
_UNREACHABLE = frozenset({"ConnectError", "ConnectTimeout", "EndpointConnectionError", "ConnectTimeoutError"})
_NO_CREDENTIALS = frozenset({"NoCredentialsError", "PartialCredentialsError", "UnauthorizedSSOTokenError"})


def _expected(exc: BaseException) -> str | None:
    """The ``error:`` line for an exception that is the environment's fault, or None."""
    if isinstance(exc, ResumeRefusedError):  # show/status on an invalid checkpoint
        return f"{exc.code.value}: {exc.human_message}"
    if isinstance(exc, OrchestratorError | ValueError):
        code = getattr(exc, "code", None)  # a refusal's stable code leads its line, once
        return f"{code}: {exc}" if isinstance(code, str) and not str(exc).startswith(f"{code}") else str(exc)
    name = type(exc).__name__
    if name in _UNREACHABLE:
        return f"the model could not be reached ({exc}): check the server or endpoint, then run the command again"
    if name in _NO_CREDENTIALS:
        return f"the model's AWS credentials are missing or expired ({name}): log in again, then run the command again"
    return None


def _interrupted(args: argparse.Namespace | None) -> str:
    hook = getattr(args, "on_interrupt", None)
    return str(hook(args)) if hook is not None else "interrupted: nothing was changed"


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush into a closed pipe cannot complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _leave(code: int) -> NoReturn:
    """End a command that only read, without tearing the interpreter down: freeing every module and model
    costs a read-only command a fifth of its CPU, and nothing of it is left to flush, close or commit."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away: nothing more to say
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; never a traceback for an expected failure."""
    args: argparse.Namespace | None = None
    guard_terminal()  # every string that reaches the terminal is escaped in one place (cli/output.py)
    # No pydantic plugin serves a command: looking for one scans every installed package's entry points, a
    # cost each command paid before it read a byte (set the variable to load plugins anyway).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    console = argv is None  # the console script: this process is the command's alone
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        try:
            args = parser_for(words).parse_args(words)
        except SystemExit as ended:  # --help, --version, a usage error: printed, and nothing else was done
            if console:
                _leave(ended.code if isinstance(ended.code, int) else EXIT_USAGE)
            raise
        if getattr(args, "global_now", None):
            os.environ["PO_NOW"] = args.global_now  # the one clock of the local runtime (bootstrap.local_now)
            from ..bootstrap import local_now

            local_now()  # a clock that is not a time is a usage error before anything runs
        check_runtime(args)
        apply_config(args, data_dir(args))
        code = int(args.handler(args))
        sys.stdout.flush()  # inside the try: a reader that went away is reported here, not at exit
        if console and getattr(args, "read_only", False):
            _leave(code)
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        say(_interrupted(args))
        return EXIT_INTERRUPTED
    except Exception as exc:
        message = _expected(exc)
        if message is not None:
            say(f"error: {message}")
            return EXIT_USAGE
        if os.environ.get("PO_DEBUG"):
            raise
        say(f"internal error: {type(exc).__name__}: {exc}")
        return EXIT_INTERNAL
