"""What the CLI prints: exit codes, ``KEY=value`` lines or one JSON object on stdout, words on stderr.

stdout carries results only (``KEY=value`` lines a script can read, or ``--json``); everything meant for a
person (next steps, warnings, errors) goes to stderr, so piping stdout never mixes the two.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from ..domain.terminal import terminal_safe as terminal_safe  # one escaping for every command

PROG = "production-orchestrator"

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_NOT_APPLIED = 4
EXIT_AUDIT_BROKEN = 5
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # what a shell reports for a tool killed by SIGPIPE (128 + 13)

READ_ONLY = "interrupted: nothing was changed"  # what a Ctrl-C leaves of a command that only reads

EXIT_CODES = (
    (EXIT_OK, "done"),
    (EXIT_INTERNAL, "internal error: a bug; the message names it (PO_DEBUG=1 shows the traceback)"),
    (EXIT_USAGE, "bad input, or a state that forbids the command: one 'error:' line says what to do"),
    (EXIT_REFUSED, "resume refused (REFUSED=<CODE>); nothing was written"),
    (EXIT_NOT_APPLIED, "the decision was recorded but the plan could not be applied"),
    (EXIT_AUDIT_BROKEN, "audit verify: the audit trail's hash chain is broken"),
    (6, "outbox send: a message could not be delivered (it stays queued or failed; send again)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); one line says what state was left"),
    (EXIT_BROKEN_PIPE, "the reader of stdout went away (e.g. | head)"),
)


class TerminalSafeStream:
    """A text stream whose every write goes through :func:`terminal_safe` (newlines and tabs kept): whatever a
    command prints, a customer's or approver's text reaches the terminal shown, never obeyed."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write("\t".join(terminal_safe(part, keep_newlines=True) for part in str(text).split("\t")))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guard_terminal() -> None:
    """Route stdout and stderr through :class:`TerminalSafeStream` (once; the CLI's entry point calls it)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, TerminalSafeStream):
            setattr(sys, name, TerminalSafeStream(stream))


def say(message: str) -> None:
    """One line for a person, on stderr (control characters from user-supplied text shown escaped)."""
    print(terminal_safe(message, keep_newlines=True), file=sys.stderr)


def emit(values: Mapping[str, Any], *, as_json: bool) -> None:
    """``values`` as ``KEY=value`` lines (keys upper-cased, None left out), or as one JSON object."""
    if as_json:
        emit_json(dict(values))
        return
    for key, value in values.items():
        if value is None or isinstance(value, list | dict):
            continue
        print(f"{key.upper()}={terminal_safe(_text(value))}")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def emit_json(document: Any) -> None:
    """One JSON document on stdout, keys in the order built (the most important first)."""
    print(json.dumps(document, indent=2))


def refused(code: str, message: str, *, as_json: bool) -> int:
    """A refusal: ``REFUSED=<CODE>`` (or ``{"refused": CODE, "message": ...}``) and the reason on stderr."""
    if as_json:
        emit_json({"refused": code, "message": message})
    else:
        print(f"REFUSED={code}")
    say(f"refused: {message}")
    return EXIT_REFUSED
