"""Overtime on a machine's calendar: minutes it runs beyond its daily capacity on one day, added by the
approved plan that asked for them (domain/planning/guidance.py), in the plan's one write."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MINUTES_PER_DAY = 24 * 60


class ExtraMinutes(BaseModel):
    """``minutes`` a machine runs beyond its daily capacity on ``day``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    day: str = Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # checked as a calendar day where it is added
    minutes: int = Field(ge=1, le=MINUTES_PER_DAY)
