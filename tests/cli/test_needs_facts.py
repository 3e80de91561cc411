"""A request the intake cannot read is never lost: ``start`` holds it as *needs facts* with what was read and what
is missing (exit 0, nothing planned, the shop unchanged); ``request list`` shows it; ``request complete`` gives the
missing facts (recorded as given) and the run starts from there, closing the hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.clidriver import cli
from tests.support.localstore import shop_state
from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLES

NO_DATE = (
    "From: Lena Vogt <lena@harbour-books.example>\nDate: Tue, 1 Dec 2026 09:12:00 +0100\n"
    "Subject: totes\nMessage-ID: <nf1@harbour-books.example>\n\nPlease make 220 navy tote bags for our fair.\n"
)


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    run = cli("--data-dir", str(data), "shop", "import", str(EXAMPLES / "print-shop.json"))
    assert run.returncode == 0, run.stderr
    return data


def test_an_unreadable_request_waits_as_needs_facts_and_completing_it_starts_the_run(
    shop_dir: Path, tmp_path: Path
) -> None:
    d = ("--data-dir", str(shop_dir))
    request = tmp_path / "no-date.eml"
    request.write_text(NO_DATE)
    before = shop_state(shop_dir)["digest"]
    held = cli(*d, "start", "--request", str(request), "--as-of", EXAMPLE_DAY)
    assert held.returncode == 0 and held["NEEDS_FACTS"] == "1", held.stderr
    assert "due date" in held["MISSING"] and "request complete" in held.stderr
    assert "CHECKPOINT_ID" not in held.stdout and shop_state(shop_dir)["digest"] == before
    again = cli(*d, "start", "--request", str(request), "--as-of", EXAMPLE_DAY)
    assert again["HELD_ID"] == held["HELD_ID"]  # the same envelope finds its hold: one, never two
    listed = json.loads(cli(*d, "request", "list", "--json").stdout)["held"]
    assert [(h["held_id"], h["kind"]) for h in listed] == [(held["HELD_ID"], "needs_facts")]
    assert listed[0]["read"] == {"product": "TOTE-NAVY", "quantity": "220"}
    assert any(m.startswith("due date") for m in listed[0]["missing"])
    done = cli(*d, "request", "complete", held["HELD_ID"], "--due", "2026-12-18", "--as-of", EXAMPLE_DAY)
    assert done.returncode == 0 and done["CHECKPOINT_ID"].startswith("ckpt-"), done.stderr
    shown = cli(*d, "show", "--checkpoint", done["CHECKPOINT_ID"], "--json")
    assert '"2026-12-18"' in shown.stdout and "given" in shown.stdout
    after = json.loads(cli(*d, "request", "list", "--all", "--json").stdout)["held"]
    assert [(h["status"], h["started_as"]) for h in after] == [("started", done["CHECKPOINT_ID"])]
    refused = cli(*d, "request", "complete", held["HELD_ID"], "--due", "2026-12-18")
    assert refused.returncode == 2 and "REQUEST_NOT_HELD" in refused.stderr
