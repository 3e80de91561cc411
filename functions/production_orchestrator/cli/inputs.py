"""Argument types: each turns one command-line string into a checked value or an argparse error (exit 2).

Ids and hashes are accepted in either case and used lower-cased; durations read like ``1h30m`` or ``2w``;
lists of names must not hold empty or repeated names; URLs must be http(s). Nothing here touches a store.
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from urllib.parse import urlsplit

from ..domain.durations import parse_duration
from ..domain.errors import ValidationError
from ..domain.limits import MAX_REASON_CHARS, MAX_VERSIONS

MAX_PORT = 65535


def proposal_hash(text: str) -> str:
    """A full 64-hex SHA-256, any case, returned lower-case."""
    from ..domain.records import require_hash

    try:
        return require_hash(text.strip().lower(), "the hash")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a full proposal hash (64 hex characters, as printed by start as PROPOSAL_HASH)"
        ) from None


def identifier(text: str) -> str:
    """An id as printed (ckpt-…, appr-…, sess-…), any case, returned lower-case and trimmed."""
    return text.strip().lower()


def duration(text: str) -> timedelta:
    """``90s``, ``30m``, ``1h30m``, ``12h``, ``7d``, ``2w``."""
    try:
        return parse_duration(text)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def whole(text: str) -> int:
    """A whole number; the command itself judges its range (and names the refusal's code)."""
    return _int(text)


def at_least_one(text: str) -> int:
    """A whole number of 1 or more."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def versions(text: str) -> int:
    """How many versions a plan may have: 1 (no revisions) to :data:`~..domain.limits.MAX_VERSIONS`."""
    value = at_least_one(text)
    if value > MAX_VERSIONS:
        raise argparse.ArgumentTypeError(f"{value} is more than {MAX_VERSIONS}")
    return value


def zero_or_more(text: str) -> int:
    """A whole number of 0 or more."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return value


def day(text: str) -> str:
    """A ``--since`` day: YYYY-MM-DD (compared with the UTC time a run or an event was recorded)."""
    from ..domain.shop.model import parse_day

    try:
        parse_day(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def port(text: str) -> int:
    """A TCP port, 1-65535 (0: any free port)."""
    value = _int(text)
    if not 0 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"port {value} is out of range (1-{MAX_PORT}, or 0 for any free port)")
    return value


def names(text: str) -> tuple[str, ...]:
    """A comma-separated list of names or e-mail addresses: none empty, none twice (case-insensitive)."""
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        raise argparse.ArgumentTypeError(f"{text!r} has an empty name (write a@x,b@y without empty entries)")
    seen: set[str] = set()
    for item in items:
        if item.casefold() in seen:
            raise argparse.ArgumentTypeError(f"{item!r} is listed twice")
        seen.add(item.casefold())
    return tuple(items)


def link_base(text: str) -> str:
    """The http(s) URL approval links start with (no credentials, query or fragment)."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"{text!r} is not an http:// or https:// URL")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"{text!r} must not carry credentials, a query or a fragment")
    try:
        parts.port  # noqa: B018 - raises ValueError on a port out of range
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} has an invalid port") from None
    return text.strip()


def reason(text: str) -> str:
    """A decision's reason, at most :data:`MAX_REASON_CHARS` characters."""
    if len(text) > MAX_REASON_CHARS:
        raise argparse.ArgumentTypeError(f"is {len(text)} characters long; the limit is {MAX_REASON_CHARS}")
    return text
