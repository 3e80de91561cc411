"""``shop show --html PATH``: the whole shop's schedule as a file (every machine drawn and in words, the
pending plan over it, how to reach its approval without any link secret), written whole; a path it cannot
use, or no shop, is one error line with exit 2 and no file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.support.clidriver import cli
from tests.support.refusal_cases import Pending


def test_shop_show_html_writes_the_schedule_with_the_pending_plan(
    pending: Callable[..., Pending], tmp_path: Path
) -> None:
    run = pending()
    target = tmp_path / "schedule.html"
    done = run.cli("shop", "show", "--html", str(target))
    assert done.returncode == 0, done.stderr
    assert done.values["HTML"] == str(target)
    page = target.read_text()
    assert page.count('<div class="tl"><svg') == 1 and 'id="schedule-text"' in page
    assert 'id="plan-1"' in page and '<a href="#plan-1" tabindex="-1">' in page  # the overlay links its entry
    assert "RUSH-200" in page and "EMB-01" in page and "Due Wed 12 Aug: RUSH-200 (plan 1)." in page
    assert f"show --checkpoint {run.checkpoint_id}" in page
    assert "<script" not in page and "<button" not in page and "<form" not in page
    assert "/approve" not in page and "&amp;s=" not in page and "&s=" not in page  # no approval link: no secret
    assert [p.name for p in tmp_path.iterdir()] == ["schedule.html"]  # no temp file left behind


def test_shop_show_html_refuses_what_it_cannot_write_and_writes_nothing(
    pending: Callable[..., Pending], tmp_path: Path
) -> None:
    run = pending()
    out = tmp_path / "out"
    out.mkdir()
    for flags, words in (
        (("--html", str(out / "missing" / "schedule.html")), "does not exist"),
        (("--html", str(out)), "is a directory"),
        (("--html", str(out / "x.html"), "--json"), "choose one"),
    ):
        refused = run.cli("shop", "show", *flags)
        assert refused.returncode == 2 and words in refused.stderr, (flags, refused.stderr)
        assert refused.stdout == ""
    no_shop = cli("shop", "--data-dir", str(tmp_path / "none"), "show", "--html", str(out / "s.html"))
    assert no_shop.returncode == 2 and "no shop" in no_shop.stderr, no_shop.stderr
    assert list(out.iterdir()) == [] and not (tmp_path / "none").exists()
