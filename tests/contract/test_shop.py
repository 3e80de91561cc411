"""Your shop through the real CLI: import, export, show --json, and requests written by people."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.clidriver import Run, cli, command, env
from tests.support.localstore import audit_types, fingerprint, shop_state
from tests.support.refusal_cases import Pending, observed_code, start_into

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SHOP_FILE = EXAMPLES / "print-shop.json"
TOTES = EXAMPLES / "request-totes.eml"
CAPS = EXAMPLES / "request-caps.txt"
AS_OF = "2026-12-01"


def shop_doc() -> dict[str, Any]:
    return dict(json.loads(SHOP_FILE.read_text()))


def write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


def imported(data_dir: Path) -> Run:
    run = cli("shop", "--data-dir", str(data_dir), "import", str(SHOP_FILE))
    assert run.returncode == 0, run.stderr
    return run


def piped(stdin: str, *args: str) -> Run:
    done = subprocess.run(command(*args), input=stdin, capture_output=True, text=True, env=env(), timeout=120)
    return Run(tuple(args), done.returncode, done.stdout, done.stderr)


def test_import_export_round_trip_gives_the_same_digest(tmp_path: Path) -> None:
    first = imported(tmp_path / "a")
    assert (first["SHOP"], first["STATE_REVISION"], first["STALE_PLANS"]) == ("Harbour Print & Stitch", "1", "0")
    exported = cli("shop", "--data-dir", str(tmp_path / "a"), "export", "-")
    assert exported.returncode == 0
    again = piped(exported.stdout, "shop", "--data-dir", str(tmp_path / "b"), "import", "-")
    assert again.returncode == 0, again.stderr
    assert again["DOMAIN_DIGEST"] == first["DOMAIN_DIGEST"] == shop_state(tmp_path / "b")["digest"]
    shown = json.loads(cli("shop", "--data-dir", str(tmp_path / "b"), "show", "--json").stdout)
    assert shown.pop("pending") == []  # requests held beside the shop are listed apart from its orders
    assert shown.pop("held") == []  # and so are requests waiting for a person
    assert shown == json.loads(exported.stdout)
    assert shown["revision"] == 1 and shown["procurement"] == []
    # Re-importing what is there already changes nothing, not even the audit trail.
    before = fingerprint(tmp_path / "b")
    same = cli("shop", "--data-dir", str(tmp_path / "b"), "import", str(SHOP_FILE))
    assert same.returncode == 0 and "nothing changed" in same.stderr
    assert fingerprint(tmp_path / "b") == before


def test_array_order_does_not_change_the_digest(tmp_path: Path) -> None:
    doc = shop_doc()
    for key in ("machines", "materials", "products", "orders"):
        doc[key].reverse()
    reordered = cli("shop", "--data-dir", str(tmp_path / "r"), "import", str(write(tmp_path / "r.json", doc)))
    assert reordered["DOMAIN_DIGEST"] == imported(tmp_path / "o")["DOMAIN_DIGEST"]


def test_a_bad_shop_file_lists_every_problem_by_path_and_changes_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "shop"
    imported(data_dir)
    before = fingerprint(data_dir)
    doc = shop_doc()
    doc["machines"][1]["id"] = "PRESS-A"  # duplicate id
    doc["orders"][0]["product"] = "MUG"  # unknown product
    doc["orders"][1]["quantity"] = -5  # negative quantity
    doc["orders"][2]["schedule"][0]["machine"] = "EMB-01"  # a machine the product cannot use
    doc["orders"][3]["schedule"][0]["machine"] = "GHOST"  # unknown machine
    doc["products"][2]["materials"][0]["id"] = "FELT"  # unknown material
    doc["timezone"] = "Mars/Olympus"  # not a time zone (the model finds it, beside the schema's findings)
    doc["orders"][4]["due"] = "2026-02-30"  # shaped like a day, but none
    run = cli("shop", "--data-dir", str(data_dir), "import", str(write(tmp_path / "bad.json", doc)))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    for path in (  # each record named by its id beside its path
        "$.machines[1] (PRESS-A).id",
        "$.orders[0] (ORD-1001).product: unknown product 'MUG'",
        "$.orders[1] (ORD-1002).quantity",
        "$.orders[2] (ORD-1003).schedule[0].machine",
        "$.orders[3] (ORD-1004).schedule[0].machine",
        "$.products[2] (CAP-LOGO).materials[0].id",
        "$.timezone",
        "$.orders[4] (ORD-1005).due",
    ):
        assert path in run.stderr, (path, run.stderr)
    # each field once, however many checks found it (the negative quantity: schema and references)
    listed = [line.split(":")[0].strip() for line in run.stderr.splitlines()[1:]]
    assert len(listed) == len(set(listed)), run.stderr
    assert f"the shop file has {len(listed)} problem(s)" in run.stderr.splitlines()[0]
    assert fingerprint(data_dir) == before


@pytest.mark.parametrize("text", ["{not json", '{"name": "x"}', "[]", ""])
def test_invalid_json_or_shape_exits_2_without_a_shop(tmp_path: Path, text: str) -> None:
    run = piped(text, "shop", "--data-dir", str(tmp_path / "d"), "import", "-")
    assert run.returncode == 2 and run.stderr.startswith("error:") and "$" in run.stderr
    assert not (tmp_path / "d").exists()


def test_replacing_the_shop_makes_pending_plans_stale(tmp_path: Path) -> None:
    pending = start_into(tmp_path / "run", "rush-order")
    doc = json.loads(pending.cli("shop", "export", "-").stdout)
    first, *rest = doc["materials"]
    more = {**doc, "materials": [dict(first, on_hand=first["on_hand"] + 1), *rest]}
    assert pending.cli("shop", "import", str(write(tmp_path / "more.json", more))).returncode == 0  # stales nothing
    doc["materials"] = [m if m["id"] != "THREAD-RED-40" else dict(m, on_hand=0) for m in doc["materials"]]
    recount = str(write(tmp_path / "recount.json", doc))  # a recount with no red thread: the plan is short
    before = fingerprint(pending.data_dir)
    guarded = pending.cli("shop", "import", recount)
    assert guarded.returncode == 2 and "IMPORT_CONFLICT" in guarded.stderr and pending.checkpoint_id in guarded.stderr
    assert fingerprint(pending.data_dir) == before
    run = pending.cli("shop", "import", "--replace", recount)
    assert run.returncode == 0 and run["STALE_PLANS"] == "1" and pending.checkpoint_id in run.stderr
    assert "shop_imported" in audit_types(pending.data_dir)
    assert observed_code(pending.resume()) == "STALE_DOMAIN_STATE"


def test_a_request_email_is_planned_on_the_imported_shop(tmp_path: Path) -> None:
    data_dir = tmp_path / "shop"
    imported(data_dir)
    started = cli("start", "--data-dir", str(data_dir), "--request", str(TOTES), "--as-of", AS_OF)
    assert started.returncode == 0, started.stderr
    review = cli("show", "--data-dir", str(data_dir), "--checkpoint", started["CHECKPOINT_ID"])
    for expected in ("400 x TOTE-NAVY", "due 2026-12-04", "Move ORD-1003", "1600 units of INK-NAVY", "Allocations"):
        assert expected in review.stdout, (expected, review.stdout)
    approved = Pending.from_start(data_dir, started).resume()
    assert approved.returncode == 0 and approved["STATE_REVISION"] == "2", approved.stderr
    shown = json.loads(cli("shop", "--data-dir", str(data_dir), "show", "--json").stdout)
    assert shown["revision"] == 2
    assert [(p["material"], p["quantity"], p["needed_by"]) for p in shown["procurement"]] == [
        ("INK-NAVY", 1600, "2026-12-04")
    ]
    new = [o for o in shown["orders"] if o["product"] == "TOTE-NAVY" and o["quantity"] == 400]
    assert new and sum(a["minutes"] for a in new[0]["schedule"]) == 800


def test_a_plain_text_request_from_stdin(tmp_path: Path) -> None:
    data_dir = tmp_path / "shop"
    imported(data_dir)
    run = piped(CAPS.read_text(), "start", "--data-dir", str(data_dir), "--request", "-", "--as-of", AS_OF)
    assert run.returncode == 0, run.stderr
    review = cli("show", "--data-dir", str(data_dir), "--checkpoint", run["CHECKPOINT_ID"]).stdout
    assert "80 x CAP-LOGO" in review and "due 2026-12-11" in review and "[customer]" not in review


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("From: a@b.example\n\nHello, do you make mugs?", ("product", "quantity", "due date")),
        ("From: a@b.example\n\nWe need navy tote bags by Friday.", ("quantity",)),
        ("From: a@b.example\n\nWe need 40 x TOTE-NAVY and 30 x TOTE-RED by Friday.", ("product",)),
        ("From: a@b.example\n\nPlease print 40 x TOTE-NAVY.", ("due date",)),
    ],
)
def test_an_incomplete_request_plans_nothing_and_waits_naming_what_is_missing(
    tmp_path: Path, text: str, missing: tuple[str, ...]
) -> None:
    # Never lost, never guessed: the request waits as needs facts (issue 27), the shop as it was.
    data_dir = tmp_path / "shop"
    imported(data_dir)
    before, events = shop_state(data_dir), audit_types(data_dir)
    run = cli("start", "--data-dir", str(data_dir), "--request", str(write(tmp_path / "r.eml", text)), "--as-of", AS_OF)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert run["NEEDS_FACTS"] == "1"
    for fact in missing:
        assert f"{fact}:" in run.stderr, run.stderr
    assert "CHECKPOINT_ID" not in run.stdout
    assert shop_state(data_dir) == before and audit_types(data_dir) == [*events, "request_held"]
    held = cli("request", "--data-dir", str(data_dir), "list", "--json")
    assert held.returncode == 0 and len(json.loads(held.stdout)) == 1, held.stdout


def test_request_without_a_shop_and_bad_as_of_are_clear_errors(tmp_path: Path) -> None:
    no_shop = cli("start", "--data-dir", str(tmp_path / "empty"), "--request", str(TOTES))
    assert no_shop.returncode == 2 and "shop import" in no_shop.stderr
    imported(tmp_path / "shop")
    bad_day = cli("start", "--data-dir", str(tmp_path / "shop"), "--request", str(TOTES), "--as-of", "2026-13-01")
    assert bad_day.returncode == 2 and "--as-of" in bad_day.stderr
    missing = cli("start", "--data-dir", str(tmp_path / "shop"), "--request", str(tmp_path / "nope.eml"))
    assert missing.returncode == 2 and "cannot read the request" in missing.stderr


def test_a_scenario_still_starts_by_name_and_refuses_another_shop(tmp_path: Path) -> None:
    imported(tmp_path / "shop")
    run = cli("start", "--data-dir", str(tmp_path / "shop"), "--scenario", "team-jerseys")
    assert run.returncode == 2 and "Harbour Print & Stitch" in run.stderr
