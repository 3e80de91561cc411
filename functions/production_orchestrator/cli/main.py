"""The entry point: build the parser from the command modules, run one command, map failures to exit codes.

Every expected failure is one ``error:`` line on stderr and exit 2, never a traceback. A closed stdout
(``| head``) ends quietly; Ctrl-C prints one line saying what state was left and exits 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..domain.errors import OrchestratorError, ResumeRefusedError
from .commands import (
    approvals,
    audit,
    history,
    order,
    outbox,
    plan,
    remind,
    repropose,
    resume,
    resume_approval,
    serve,
    shop,
    show,
    start,
    status,
    submit,
)  # fmt: skip
from .output import EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, guard_terminal, say
from .parser import CommandModule, build_parser, check_runtime

# Each module adds its commands through ``register(subparsers)`` and names its GROUP; --help lists the groups in
# the order their first command comes here.
COMMAND_MODULES: tuple[CommandModule, ...] = (
    start, plan, show, resume, resume_approval, repropose, status, history,  # runs and decisions
    shop, order,  # the shop
    serve, approvals, remind, outbox,  # approvers and messages
    audit, submit,  # operations
)  # fmt: skip

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


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; never a traceback for an expected failure."""
    args: argparse.Namespace | None = None
    guard_terminal()  # every string that reaches the terminal is escaped in one place (cli/output.py)
    try:
        args = build_parser(COMMAND_MODULES).parse_args(argv)
        check_runtime(args)
        code = int(args.handler(args))
        sys.stdout.flush()  # inside the try: a reader that went away is reported here, not at exit
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
