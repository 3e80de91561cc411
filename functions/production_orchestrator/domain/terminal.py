"""Text shown on a terminal, never obeyed: the one escaping of what a customer, approver or server wrote.

Standard library only, so the CLI's output stream escapes every write without importing the shop model.
"""

from __future__ import annotations

import unicodedata

# Line and paragraph separators, and every control or format character (escape sequences, C1 controls such
# as CSI, bidi overrides, zero-width characters): what could move a cursor, recolour, hide or reorder text.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal_safe(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every character that could drive a terminal shown escaped (ESC as ``\\x1b``, a bidi
    override as ``\\u202e``): what a customer or approver wrote is shown, never obeyed. ``keep_newlines``
    keeps ``\\n`` for text that is several lines by design (a rendered plan); a value on one line escapes it.
    """
    return "".join(
        _escaped(c) if unicodedata.category(c) in _UNSAFE_CATEGORIES and not (keep_newlines and c == "\n") else c
        for c in str(text)
    )
