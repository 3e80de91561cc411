"""``show --html PATH``: the approval page as a file (summary card, the timeline drawn and in words, no buttons),
written whole; a path it cannot use is one error line and no file; status and show read the shop's clock."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.support.refusal_cases import Pending


def test_show_writes_the_page_and_refuses_what_it_cannot_write(pending: Callable[..., Pending], tmp_path: Path) -> None:
    run = pending()
    target = tmp_path / "plan.html"
    done = run.cli("show", "--checkpoint", run.checkpoint_id, "--html", str(target))
    assert done.returncode == 0, done.stderr
    page = target.read_text()
    assert page.count("<svg") == 2 and 'id="timeline-text"' in page and "<button" not in page
    assert "RUSH-200" in page and "Status: pending" in page and "(+0" in page  # the shop's offset
    assert [p.name for p in tmp_path.iterdir()] == ["plan.html"]  # no temp file left behind
    for flags, words in (
        (("--html", str(tmp_path / "missing" / "plan.html")), "does not exist"),
        (("--html", str(tmp_path)), "is a directory"),
        (("--html", str(tmp_path / "x.html"), "--json"), "choose one"),
    ):
        refused = run.cli("show", "--checkpoint", run.checkpoint_id, *flags)
        assert refused.returncode == 2 and words in refused.stderr, (flags, refused.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.html"]


def test_status_and_show_use_the_shops_clock(pending: Callable[..., Pending]) -> None:
    run = pending()
    status = run.cli("status").stdout
    assert "times in the shop's time zone, Europe/Berlin" in status
    line = next(x for x in status.splitlines() if run.checkpoint_id in x)
    assert line.split("expires ")[1].endswith(("+01:00", "+02:00")), line
    shown = run.cli("show", "--checkpoint", run.checkpoint_id).stdout
    assert "Decide before:" in shown and ("CET (+01:00)" in shown or "CEST (+02:00)" in shown)
