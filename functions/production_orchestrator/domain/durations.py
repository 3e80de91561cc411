"""Human durations such as ``90s``, ``30m``, ``1h30m``, ``7d`` or ``2w``."""

from __future__ import annotations

import re
from datetime import timedelta

from .errors import ValidationError

# Units largest first, each at most once: "1h30m" and "2w3d" read as written; "30m1h" is a typo.
_DURATION = re.compile(r"^(?:([0-9]{1,7})w)?(?:([0-9]{1,7})d)?(?:([0-9]{1,7})h)?(?:([0-9]{1,7})m)?(?:([0-9]{1,7})s)?\Z")
_UNIT_SECONDS = (7 * 86400, 86400, 3600, 60, 1)
MAX_WINDOW = timedelta(days=365)
EXAMPLES = "90s, 30m, 1h30m, 12h, 7d or 2w"


def parse_duration(text: str) -> timedelta:
    """Parse ``[<n>w][<n>d][<n>h][<n>m][<n>s]`` (at least one part, any case, total above zero).

    Anything else, and anything longer than :data:`MAX_WINDOW`, is a :class:`ValidationError`.
    """
    cleaned = text.strip().lower() if isinstance(text, str) else ""
    match = _DURATION.fullmatch(cleaned) if cleaned else None
    if not match:
        raise ValidationError(f"duration {text!r} is not like {EXAMPLES}")
    seconds = sum(int(part) * unit for part, unit in zip(match.groups(), _UNIT_SECONDS, strict=True) if part)
    if seconds <= 0:
        raise ValidationError(f"duration {text!r} must be longer than zero")
    window = timedelta(seconds=seconds)
    if window > MAX_WINDOW:
        raise ValidationError(f"duration {text!r} is longer than {MAX_WINDOW.days} days")
    return window
