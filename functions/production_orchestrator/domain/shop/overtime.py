"""Overtime on a machine's calendar: minutes it runs beyond its daily capacity on one day, added by the
approved plan that asked for them (domain/planning/guidance.py), in the plan's one write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

MINUTES_PER_DAY = 24 * 60


class ExtraMinutes(BaseModel):
    """``minutes`` a machine runs beyond its daily capacity on ``day``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    day: str = Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # checked as a calendar day where it is added
    minutes: int = Field(ge=1, le=MINUTES_PER_DAY)


class Overtimed(BaseModel):
    """A machine's calendar beyond its daily capacity: the days it runs longer (left out while there are none,
    so a machine that never ran overtime serializes and hashes as before)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    overtime: tuple[ExtraMinutes, ...] = Field(default=(), exclude_if=lambda value: not value)
    if TYPE_CHECKING:
        minutes_per_day: int  # the machine's own field

    def minutes_on(self, day: str) -> int:
        """The capacity on ``day`` (a working day): the daily minutes plus any overtime that day."""
        return self.minutes_per_day + sum(x.minutes for x in self.overtime if x.day == day)
