"""Progress for a person at a terminal: while a long command works (reading the e-mail, planning, waiting for
the model) each step is one line on stderr, ``… planning``. Only when stderr is a terminal: piped or captured,
a command prints exactly what it printed before, and stdout never carries progress."""

from __future__ import annotations

import sys
from typing import TextIO


class TerminalProgress:
    """Each new step as one line on ``stream`` (a step repeated at once is shown once)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._last = ""

    def __call__(self, step: str) -> None:
        if step == self._last:
            return
        self._last = step
        self._stream.write(f"\u2026 {step}\n")
        self._stream.flush()


def terminal_progress(stream: TextIO | None = None) -> TerminalProgress | None:
    """Progress on ``stream`` (stderr) when it is a terminal, else None: nothing extra is printed."""
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    return TerminalProgress(stream) if isatty is not None and isatty() else None
