"""Days as ISO dates (``YYYY-MM-DD``): parsed, checked, counted. The shop model re-exports them."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta


def parse_day(value: str) -> date:
    """An ISO calendar day ``YYYY-MM-DD``; ``ValueError`` for anything else."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError(f"{value!r} is not a day (YYYY-MM-DD)")
    return date.fromisoformat(value)


def check_day(value: str) -> str:
    """``value`` if it is a valid ISO day."""
    parse_day(value)
    return value


def add_days(day: str, days: int) -> str:
    """The ISO day ``days`` after ``day``."""
    return (parse_day(day) + timedelta(days=days)).isoformat()


def day_range(first: str, count: int) -> list[str]:
    """``count`` consecutive ISO days from ``first``."""
    start = parse_day(first)
    return [(start + timedelta(days=i)).isoformat() for i in range(count)]


def plan_from(local: datetime, cutoff: str | None) -> str:
    """The day a request received at ``local`` (the shop's wall time) is planned from: that day, or the next one
    at or after ``cutoff`` (``HH:MM``; None: never). A plan made late in the day books no hour of it that will be
    gone by the time a person decides next morning (it would be stale by time, staleness.md)."""
    day = local.date()
    if cutoff is not None and local.strftime("%H:%M") >= cutoff:
        day += timedelta(days=1)
    return day.isoformat()
