"""When the people an open approval waits for are reminded, and when a backup approver list joins it.

    created ─────── halfway ─────────────── 24 h before ──── expires
               (escalate after T: backups added, once)
    at each point that has come: every approver who has not voted gets one reminder (only the latest
    point that has come counts, so a late run sends one reminder, not a burst)

A point is ``halfway``, a share of the window (``25%``) or a time before the end (``24h``, ``90m``). A point
that falls outside the window (24 h before the end of a 2-hour window) never comes. Pure: the times come
from the approval, ``now`` from the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from ..durations import parse_duration
from ..errors import ValidationError
from ..limits import DEFAULT_REMINDER_POINTS
from ..records import parse_utc

DEFAULT_POINTS = DEFAULT_REMINDER_POINTS
_SHARE = re.compile(r"^([1-9][0-9]?)%\Z")


class ReminderMark(BaseModel):
    """One reminder (``<point>|<approver>``) on an approval: held by a sender until ``until``, then sent."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when first used

    key: str = Field(min_length=3, max_length=200)
    claim: str = Field(default="", max_length=64)
    until: str = ""
    sent_at: str = ""


def parse_points(text: str) -> tuple[str, ...]:
    """``halfway,24h,25%`` as checked points (none twice); ``ValidationError`` naming a bad one."""
    points: list[str] = []
    for raw in text.split(","):
        point = raw.strip().lower()
        if point in ("halfway", "50%"):
            point = "halfway"
        elif not _SHARE.match(point):
            parse_duration(point)  # raises naming the point
        if point in points:
            raise ValidationError(f"reminder point {point!r} is given twice")
        points.append(point)
    if not points or points == [""]:
        raise ValidationError("give at least one reminder point (e.g. halfway,24h)")
    return tuple(points)


@dataclass(frozen=True)
class ReminderSchedule:
    """The reminder points, and (optionally) when backups join and who they are."""

    points: tuple[str, ...] = DEFAULT_POINTS
    escalate_after: timedelta | None = None
    backups: tuple[str, ...] = ()

    @staticmethod
    def moment(point: str, created_at: str, expires_at: str) -> datetime | None:
        """When ``point`` comes for a window from ``created_at`` to ``expires_at``; None if outside it."""
        start, end = parse_utc(created_at), parse_utc(expires_at)
        share = _SHARE.match(point)
        if point == "halfway":
            at = start + (end - start) / 2
        elif share:
            at = start + (end - start) * int(share.group(1)) / 100
        else:
            at = end - parse_duration(point)
        return at if start < at < end else None

    def due_point(self, created_at: str, expires_at: str, now: datetime) -> str | None:
        """The latest point that has come by ``now`` (None before the first, and after the window)."""
        if now >= parse_utc(expires_at):
            return None
        came = [
            (at, point)
            for point in self.points
            if (at := self.moment(point, created_at, expires_at)) is not None and at <= now
        ]
        return max(came)[1] if came else None

    def escalates(self, created_at: str, now: datetime) -> bool:
        """True once the backups are due to join (never without backups)."""
        return (
            bool(self.backups)
            and self.escalate_after is not None
            and now >= parse_utc(created_at) + self.escalate_after
        )
