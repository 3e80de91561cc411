"""The data dir's clock mark: the latest time any command on it has seen (``clock.json``).

A rehearsal clock (``--now`` / ``PO_NOW``) earlier than the mark is refused (``CLOCK_BEHIND``), so a rehearsal
can never bring an expired approval back or decide in the past. The mark only moves forward, written whole
(temporary file, then rename). The AWS runtime never reads it.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime
from pathlib import Path

from ...domain.errors import ClockBehindError
from ...domain.records import parse_utc, utc_iso

MARK_FILE = "clock.json"


def latest(data_dir: Path) -> datetime | None:
    """The latest time recorded in ``data_dir`` (None when none is, or the file is unreadable)."""
    try:
        return parse_utc(json.loads((data_dir / MARK_FILE).read_text(encoding="utf-8"))["latest"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_and_keep(data_dir: Path, now: datetime) -> None:
    """Refuse ``now`` when it is earlier than the mark (nothing written); else move the mark to ``now``."""
    mark = latest(data_dir)
    if mark is not None and now < mark:
        raise ClockBehindError(
            f"the clock says {utc_iso(now)}, earlier than {utc_iso(mark)}, the latest time a command on "
            f"{data_dir} has seen: a rehearsal clock only moves forward (give --now {utc_iso(mark)} or later)"
        )
    if mark is not None and now == mark:
        return
    # Its own temporary file per writer: threads of one process (a test's stand-in processes) share a pid.
    temporary = data_dir / f".{MARK_FILE}.{os.getpid()}.{threading.get_ident()}"
    temporary.write_text(json.dumps({"latest": utc_iso(now)}), encoding="utf-8")
    temporary.replace(data_dir / MARK_FILE)
