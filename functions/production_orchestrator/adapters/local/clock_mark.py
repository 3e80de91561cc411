"""The data dir's clock mark: the latest time any command on it has seen (``clock.json``).

A rehearsal clock (``--now`` / ``PO_NOW``) earlier than the mark is refused (``CLOCK_BEHIND``), so a rehearsal
can never bring an expired approval back or decide in the past. The wall clock is refused only when it is more
than ``WALL_CLOCK_SLACK`` behind (a rehearsal moved the mark ahead): two commands started at once read the wall
clock in either order, and the later reader must not be refused for the other's second. The mark only moves
forward, written whole (temporary file, then rename). The AWS runtime never reads it.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timedelta
from pathlib import Path

from ...domain.errors import ClockBehindError
from ...domain.records import parse_utc, utc_iso

MARK_FILE = "clock.json"
# How far behind the mark the wall clock may read: processes racing, a clock slewed by NTP (not a rehearsal's days).
WALL_CLOCK_SLACK = timedelta(minutes=1)


def latest(data_dir: Path) -> datetime | None:
    """The latest time recorded in ``data_dir`` (None when none is, or the file is unreadable)."""
    try:
        return parse_utc(json.loads((data_dir / MARK_FILE).read_text(encoding="utf-8"))["latest"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_and_keep(data_dir: Path, now: datetime, *, slack: timedelta = timedelta(0)) -> None:
    """Refuse ``now`` when it is more than ``slack`` earlier than the mark (nothing written); else move the mark
    forward to ``now`` (a ``now`` within the slack behind it leaves it where it is)."""
    mark = latest(data_dir)
    if mark is not None and now + slack < mark:
        raise ClockBehindError(
            f"the clock says {utc_iso(now)}, earlier than {utc_iso(mark)}, the latest time a command on "
            f"{data_dir} has seen: a rehearsal clock only moves forward (give --now {utc_iso(mark)} or later)"
        )
    if mark is not None and now <= mark:
        return
    # Its own temporary file per writer: threads of one process (a test's stand-in processes) share a pid.
    temporary = data_dir / f".{MARK_FILE}.{os.getpid()}.{threading.get_ident()}"
    temporary.write_text(json.dumps({"latest": utc_iso(now)}), encoding="utf-8")
    temporary.replace(data_dir / MARK_FILE)
