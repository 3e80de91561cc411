"""Human durations: one unit or several, largest first, any case; nothing else."""

from __future__ import annotations

from datetime import timedelta

import pytest

from production_orchestrator.domain.durations import MAX_WINDOW, parse_duration
from production_orchestrator.domain.errors import ValidationError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90s", timedelta(seconds=90)),
        ("30m", timedelta(minutes=30)),
        ("12h", timedelta(hours=12)),
        ("7d", timedelta(days=7)),
        ("2w", timedelta(weeks=2)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("2w3d4h5m6s", timedelta(weeks=2, days=3, hours=4, minutes=5, seconds=6)),
        ("1H30M", timedelta(hours=1, minutes=30)),
        (" 10m ", timedelta(minutes=10)),
        ("0h45m", timedelta(minutes=45)),
        ("52w", timedelta(weeks=52)),
        ("365d", MAX_WINDOW),
    ],
)
def test_durations_people_write(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", " ", "10", "m", "1h30", "30m1h", "1h1h", "1.5h", "-5m", "+5m", "1 h", "1h 30m", "5y", "0s", "0h0m", "P1D"],
)
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValidationError, match="duration"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["366d", "53w", "8761h", "1w359d"])
def test_longer_than_a_year_is_refused(text: str) -> None:
    with pytest.raises(ValidationError, match="365 days"):
        parse_duration(text)


def test_a_non_string_is_refused() -> None:
    with pytest.raises(ValidationError):
        parse_duration(7)  # type: ignore[arg-type]
