"""Due dates as people write them, read against an anchor day (the e-mail's ``Date:``, else the planning day).

    "2026-12-04", "04.12.2026", "December 4", "4 Dec 2026", "Friday", "next Friday", "tomorrow", "today",
    "in 10 days", "within 2 weeks", "10 days from now"  ->  an ISO day

A weekday means the first such day after the anchor ("by Friday" written on a Friday is a week later); a
day and month without a year mean the next such date on or after the anchor. Anything else is unreadable
(None): the intake then names the due date as missing rather than guess.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAY_NAMES = {
    name: number
    for number, names in enumerate(
        (
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        )
    )
    for name in names
}
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30,
}  # fmt: skip

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY = "|".join(sorted(WEEKDAY_NAMES, key=len, reverse=True))
_COUNT = r"\d{1,3}|" + "|".join(NUMBER_WORDS)
_ORDINAL = r"(?:st|nd|rd|th)?"
# One date expression; every alternative is a named group so resolve() knows which form it saw.
DATE_EXPRESSION = (
    r"(?P<iso>\d{4}-\d{2}-\d{2})"
    r"|(?P<dotted>\d{1,2}\.\d{1,2}\.(?:\d{4})?)"
    rf"|(?P<month_day>(?:{_MONTH})\.?\s+\d{{1,2}}{_ORDINAL}(?:,?\s+\d{{4}})?)"
    rf"|(?P<day_month>\d{{1,2}}{_ORDINAL}\s+(?:of\s+)?(?:{_MONTH})\.?(?:,?\s+\d{{4}})?)"
    rf"|(?P<relative>(?:in|within)\s+(?:{_COUNT})\s+(?:days?|weeks?))"
    rf"|(?P<from_now>(?:{_COUNT})\s+(?:days?|weeks?)\s+from\s+(?:now|today))"
    r"|(?P<named>the\s+day\s+after\s+tomorrow|tomorrow|today)"
    rf"|(?P<weekday>(?:(?:next|this|coming)\s+)?(?:{_WEEKDAY})\b)"
)
_DATE = re.compile(rf"^(?:{DATE_EXPRESSION})\Z", re.IGNORECASE)
_LEAD = re.compile(
    r"^(?:(?:at\s+the\s+latest|no\s+later\s+than|latest|by|before|until|till|on|for|due|deadline)\s*:?\s+)+",
    re.IGNORECASE,
)


def _count(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def _month_day(anchor: date, month: int, day: int, year: str | None) -> date | None:
    try:
        if year:
            return date(int(year), month, day)
        found = date(anchor.year, month, day)
        return found if found >= anchor else date(anchor.year + 1, month, day)
    except ValueError:
        return None


def _calendar(kind: str, text: str, anchor: date) -> date | None:
    if kind == "iso":
        try:
            return date.fromisoformat(text)
        except ValueError:
            return None
    if kind == "dotted":
        day, month, year = [*text.split("."), ""][:3]
        return _month_day(anchor, int(month), int(day), year or None)
    words = re.findall(r"[a-z]+|\d+", text.lower())
    month_number = next(MONTHS[w] for w in words if w in MONTHS)
    numbers = [w for w in words if w.isdigit()]
    return _month_day(anchor, month_number, int(numbers[0]), numbers[1] if len(numbers) > 1 else None)


def _relative(kind: str, text: str, anchor: date) -> date:
    words = text.lower().split()
    if kind == "named":
        return anchor + timedelta(days={"today": 0, "tomorrow": 1}.get(" ".join(words), 2))
    if kind == "weekday":
        target = WEEKDAY_NAMES[words[-1]]
        ahead = (target - anchor.weekday()) % 7 or 7
        return anchor + timedelta(days=ahead)
    number = _count(words[1] if kind == "relative" else words[0])
    unit = 7 if any(w.startswith("week") for w in words) else 1
    return anchor + timedelta(days=number * unit)


def resolve_due(phrase: str, anchor: date) -> date | None:
    """The day ``phrase`` names, read against ``anchor``; None when it is not a date this reader knows."""
    text = _LEAD.sub("", " ".join(str(phrase).split())).rstrip(",;!")
    text = text if _DATE.match(text) else text.rstrip(".")
    match = _DATE.match(text)
    if match is None:
        return None
    kind = match.lastgroup or ""
    if kind in ("iso", "dotted", "month_day", "day_month"):
        return _calendar(kind, text, anchor)
    return _relative(kind, text, anchor)
