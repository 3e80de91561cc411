"""Numbers as written: a whole number with its thousands ("1,200", "1.200", "1 200", "1'200"), the units a count
is said in ("60 Stück", "x 40"); the forms every intake module reads counts by."""

from __future__ import annotations

import re

# A whole number as people write it: 1,200 / 1.200 / 1 200 (a space, no-break or narrow no-break) / 1'200.
NUMBER_CORE = (
    r"(?<![\w.,'#-])(\d{1,3}(?:,\d{3}){1,4}|\d{1,3}(?:\.\d{3}){1,4}|\d{1,3}(?:[ \u00a0\u202f']\d{3}){1,4}|\d{1,8})"
)
NUMBER = NUMBER_CORE + r"(?![\w-]|[.,]\d)"
UNITS = (
    r"x|\u00d7|pcs|pc|pieces|piece|units|unit|items|stueck|stuck|stk|st|pieces|pcs|exemplaires|ex|unites|"
    r"unidades|unidad|uds|ud|piezas|pzas|ejemplares|stuks|stuk|ea|pairs|pair|paar|paires|pares|off(?!\s+(?:the|your|our|a|an|list|price)\b)"
)


def whole_number(text: str) -> int | None:
    """A whole number as written (``1,000``, ``1.000``, ``1 000``, ``1'000``); None for anything else."""
    text = text.strip()
    if re.fullmatch(r"[+-]?\d{1,12}", text):
        return int(text)
    grouped = re.fullmatch(r"\d{1,3}(?P<sep>[,.\u00a0\u202f' ])\d{3}(?:(?P=sep)\d{3}){0,3}", text)
    return int(re.sub(r"\D", "", text)) if grouped else None
