"""Held requests are shown wherever a person looks (issue 27): ``shop show``, ``status`` and ``show`` list the
requests waiting as *needs facts* and as *possible duplicates*, each with why it waits, their e-mail's strings
escaped; ``show --held`` shows one, and refuses an unknown or malformed id with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.clidriver import cli
from tests.support.localstore import fingerprint
from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLES

TOTES = EXAMPLES / "request-totes.eml"
# A sender name that would set the terminal's title and clear the screen if printed raw.
NO_DATE = (
    "From: \x1b]0;pwned\x07Lena\x1b[2J Vogt <lena@harbour-books.example>\nDate: Tue, 1 Dec 2026 09:12:00 +0100\n"
    "Subject: totes \x1b[31mred\nMessage-ID: <nf-listing@harbour-books.example>\n\n"
    "Please make 220 navy tote bags for our fair.\n"
)


@pytest.fixture
def held(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, str], dict[str, str]]:
    """A shop with one run, a resend of it held as a possible duplicate and an e-mail held as needs facts."""
    data = tmp_path / "data"
    assert cli("--data-dir", str(data), "shop", "import", str(EXAMPLES / "print-shop.json")).returncode == 0
    runs = []
    resent = tmp_path / "resent.eml"
    resent.write_text(TOTES.read_text().replace("festival-totes-0001", "festival-totes-0099"))
    no_date = tmp_path / "no-date.eml"
    no_date.write_text(NO_DATE)
    for request in (TOTES, resent, no_date):
        run = cli("--data-dir", str(data), "start", "--request", str(request), "--as-of", EXAMPLE_DAY)
        assert run.returncode == 0, run.stderr
        runs.append(run.values)
    first, duplicate, unread = runs
    assert duplicate["POSSIBLE_DUPLICATE"] == "1" and unread["NEEDS_FACTS"] == "1"
    return data, first, duplicate, unread


def _no_escapes(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text


def test_shop_show_lists_both_kinds_of_hold(held: tuple[Path, dict[str, str], dict[str, str], dict[str, str]]) -> None:
    data, first, duplicate, unread = held
    shown = cli("--data-dir", str(data), "shop", "show")
    assert shown.returncode == 0, shown.stderr
    _no_escapes(shown.stdout)
    section = shown.stdout.split("Requests held for a person", 1)[1].split("\n\n", 1)[0]
    dup_line = next(line for line in section.splitlines() if duplicate["HELD_ID"] in line)
    unread_line = next(line for line in section.splitlines() if unread["HELD_ID"] in line)
    assert f"possible duplicate of run {first['CHECKPOINT_ID']}" in dup_line
    assert "needs facts: due date" in unread_line and "quantity 220" in unread_line
    as_json = json.loads(cli("--data-dir", str(data), "shop", "show", "--json").stdout)
    kinds = {h["held_id"]: h["kind"] for h in as_json["held"]}
    assert kinds == {duplicate["HELD_ID"]: "possible_duplicate", unread["HELD_ID"]: "needs_facts"}


def test_status_lists_holds_with_why_they_wait(
    held: tuple[Path, dict[str, str], dict[str, str], dict[str, str]],
) -> None:
    data, first, duplicate, unread = held
    text = cli("--data-dir", str(data), "status")
    assert text.returncode == 0, text.stderr
    _no_escapes(text.stdout)
    assert f"{unread['HELD_ID']}  held" in text.stdout and "needs facts: due date" in text.stdout
    assert (
        f"{duplicate['HELD_ID']}  held" in text.stdout and f"duplicate of run {first['CHECKPOINT_ID']}" in text.stdout
    )
    report = json.loads(cli("--data-dir", str(data), "status", "--json").stdout)
    by_id = {h["held_id"]: h for h in report["held"]}
    assert by_id[unread["HELD_ID"]]["kind"] == "needs_facts"
    assert any(m.startswith("due date") for m in by_id[unread["HELD_ID"]]["missing"])
    assert by_id[duplicate["HELD_ID"]]["duplicate_of"] == first["CHECKPOINT_ID"]


def test_show_names_a_runs_duplicates_and_shows_one_hold(
    held: tuple[Path, dict[str, str], dict[str, str], dict[str, str]],
) -> None:
    data, first, duplicate, unread = held
    run = cli("--data-dir", str(data), "show", "--checkpoint", first["CHECKPOINT_ID"])
    assert f"Held as a possible duplicate of this run: {duplicate['HELD_ID']}" in run.stdout
    one = cli("--data-dir", str(data), "show", "--held", unread["HELD_ID"])
    assert one.returncode == 0, one.stderr
    _no_escapes(one.stdout)
    assert "needs facts: due date" in one.stdout and f"request complete {unread['HELD_ID']}" in one.stdout
    assert "220 navy tote bags" in one.stdout
    as_json = json.loads(cli("--data-dir", str(data), "show", "--held", unread["HELD_ID"], "--json").stdout)["held"]
    assert (as_json["kind"], as_json["status"], as_json["read"]["quantity"]) == ("needs_facts", "held", "220")


@pytest.mark.parametrize(("held_id", "code"), [("held-0000000000000000", "NOT_FOUND"), ("../x", "HELD_ID_INVALID")])
def test_show_held_refuses_what_is_not_a_hold(
    held: tuple[Path, dict[str, str], dict[str, str], dict[str, str]], held_id: str, code: str
) -> None:
    data = held[0]
    before = fingerprint(data)
    refused = cli("--data-dir", str(data), "show", "--held", held_id)
    assert refused.returncode == 2 and code in refused.stderr
    assert {k: v for k, v in fingerprint(data).items() if k != "clock"} == {
        k: v for k, v in before.items() if k != "clock"
    }
