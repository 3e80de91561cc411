"""The data dir's clock mark is written whole by every caller at once: threads of one process (the tests' stand-ins
for processes, a server's handlers) each write their own temporary file, so none loses its rename."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from production_orchestrator.adapters.local.clock_mark import check_and_keep, latest
from production_orchestrator.domain.errors import ClockBehindError

T0 = datetime(2026, 8, 12, 8, 0, tzinfo=UTC)


def test_threads_moving_the_mark_at_once_all_succeed(tmp_path: Path) -> None:
    failures: list[BaseException] = []
    start = threading.Barrier(4)

    def move(offset: int) -> None:
        start.wait(timeout=30)
        for step in range(150):
            try:
                check_and_keep(tmp_path, T0 + timedelta(seconds=step * 4 + offset))
            except ClockBehindError:
                continue  # another thread moved the mark past this time first: refused, as it should be
            except OSError as exc:  # a rename that lost its temporary file to another writer
                failures.append(exc)
                return

    threads = [threading.Thread(target=move, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    assert latest(tmp_path) is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clock.json"]  # no temporary file left behind


def test_the_wall_clock_a_moment_behind_another_commands_is_taken_a_rehearsal_days_behind_is_not(
    tmp_path: Path,
) -> None:
    check_and_keep(tmp_path, T0 + timedelta(seconds=2))
    # Two commands read the wall clock in either order: the one that reads a second earlier is no rehearsal.
    check_and_keep(tmp_path, T0 + timedelta(seconds=1), slack=timedelta(minutes=1))
    assert latest(tmp_path) == T0 + timedelta(seconds=2)  # the mark never moves back
    # A rehearsal clock gets no slack, and the wall clock none past a rehearsal that moved the mark a day ahead.
    try:
        check_and_keep(tmp_path, T0 + timedelta(seconds=1))
    except ClockBehindError:
        pass
    else:
        raise AssertionError("a rehearsal clock a second behind the mark was taken")
    check_and_keep(tmp_path, T0 + timedelta(days=1))
    try:
        check_and_keep(tmp_path, T0 + timedelta(seconds=3), slack=timedelta(minutes=1))
    except ClockBehindError:
        pass
    else:
        raise AssertionError("the wall clock a day behind a rehearsal was taken")
