"""Human durations such as ``90s``, ``30m``, ``12h`` or ``7d``."""

from __future__ import annotations

import re
from datetime import timedelta

from .errors import ValidationError

_DURATION = re.compile(r"^([1-9][0-9]{0,6})([smhd])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_WINDOW = timedelta(days=365)


def parse_duration(text: str) -> timedelta:
    """Parse ``<positive integer><s|m|h|d>``; anything else is a :class:`ValidationError`."""
    match = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if not match:
        raise ValidationError(f"duration {text!r} is not like 90s, 30m, 12h or 7d")
    window = timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[match.group(2)])
    if window > MAX_WINDOW:
        raise ValidationError(f"duration {text!r} is longer than {MAX_WINDOW.days} days")
    return window
