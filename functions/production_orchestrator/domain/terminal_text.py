"""Text from customers and approvers shown on a terminal: every character that could drive it escaped. A leaf
module (the standard library only), so the CLI can escape everything it prints without importing the domain."""

from __future__ import annotations

import unicodedata

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
