"""Possible duplicates through the console script (issue 27): the same words in another envelope are held, listed,
started with --again or dropped; a refused drop writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.clidriver import cli
from tests.support.localstore import audit_types, fingerprint
from tests.support.provider_runs import EXAMPLE_DAY, EXAMPLES

TOTES = EXAMPLES / "request-totes.eml"


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    run = cli("--data-dir", str(data), "shop", "import", str(EXAMPLES / "print-shop.json"))
    assert run.returncode == 0, run.stderr
    return data


def _start(data: Path, request: Path, *flags: str) -> dict[str, str]:
    run = cli("--data-dir", str(data), "start", "--request", str(request), "--as-of", EXAMPLE_DAY, *flags)
    assert run.returncode == 0, run.stderr
    return run.values


def test_a_resent_request_is_held_listed_and_dropped(shop_dir: Path, tmp_path: Path) -> None:
    first = _start(shop_dir, TOTES)
    resent = tmp_path / "resent.eml"
    resent.write_text(TOTES.read_text().replace("festival-totes-0001", "festival-totes-0099"))
    before, events = fingerprint(shop_dir), audit_types(shop_dir)
    held = _start(shop_dir, resent)
    assert held["POSSIBLE_DUPLICATE"] == "1" and held["DUPLICATE_OF"] == first["CHECKPOINT_ID"]
    after = {k: v for k, v in fingerprint(shop_dir).items() if k != "audit"}
    assert "CHECKPOINT_ID" not in held and after == {k: v for k, v in before.items() if k != "audit"}  # no run
    assert audit_types(shop_dir) == [*events, "request_held"]  # the hold's event is its only other write
    listed = cli("--data-dir", str(shop_dir), "request", "list", "--json")
    [entry] = json.loads(listed.stdout)["held"]
    assert (entry["held_id"], entry["duplicate_of"]) == (held["HELD_ID"], first["CHECKPOINT_ID"])
    status = cli("--data-dir", str(shop_dir), "status", "--json")
    assert [h["held_id"] for h in json.loads(status.stdout)["held"]] == [held["HELD_ID"]]
    drop = cli("--data-dir", str(shop_dir), "request", "drop", held["HELD_ID"], "--by", "olga", "--reason", "resent")
    assert drop.returncode == 0 and drop.values["STATUS"] == "dropped", drop.stderr
    events = audit_types(shop_dir)
    again = cli("--data-dir", str(shop_dir), "request", "drop", held["HELD_ID"])
    assert again.returncode == 2 and "REQUEST_NOT_HELD" in again.stderr
    unknown = cli("--data-dir", str(shop_dir), "request", "drop", "not-an-id")
    assert unknown.returncode == 2 and "HELD_ID_INVALID" in unknown.stderr
    assert audit_types(shop_dir) == events
    assert json.loads(cli("--data-dir", str(shop_dir), "request", "list", "--json").stdout)["held"] == []


def test_a_held_request_starts_with_again(shop_dir: Path, tmp_path: Path) -> None:
    first = _start(shop_dir, TOTES)
    pasted = tmp_path / "pasted.txt"
    pasted.write_text(TOTES.read_text().split("\n\n", 1)[1])  # the body, pasted without its headers
    held = _start(shop_dir, pasted)
    assert held["DUPLICATE_OF"] == first["CHECKPOINT_ID"]
    second = _start(shop_dir, pasted, "--again")
    assert second["CHECKPOINT_ID"] != first["CHECKPOINT_ID"]
    listed = json.loads(cli("--data-dir", str(shop_dir), "request", "list", "--all", "--json").stdout)["held"]
    assert [(h["status"], h["started_as"]) for h in listed] == [("started", second["CHECKPOINT_ID"])]
