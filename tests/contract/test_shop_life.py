"""The shop's own life through the real CLI on SQLite: shop receive, order list/complete/cancel/progress,
and shop import as a guarded change. Each change is one audited write; each refusal exits 2 with its code and
leaves every table and session file as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.clidriver import Run, cli
from tests.support.localstore import audit_types, fingerprint, shop_state
from tests.support.refusal_cases import Pending

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SHOP_FILE = EXAMPLES / "print-shop.json"
AS_OF = "2026-12-01"


def _shop(tmp_path: Path) -> tuple[Path, tuple[str, str]]:
    data_dir = tmp_path / "shop"
    run = cli("shop", "--data-dir", str(data_dir), "import", str(SHOP_FILE))
    assert run.returncode == 0, run.stderr
    return data_dir, ("--data-dir", str(data_dir))


def _refused(data_dir: Path, code: str, *args: str) -> Run:
    before = fingerprint(data_dir)
    run = cli(*args[:2], "--data-dir", str(data_dir), *args[2:])
    assert run.returncode == 2, (args, run.stdout, run.stderr)
    assert run.error_lines and code in run.error_lines[0] and "Traceback" not in run.stderr, run.stderr
    assert fingerprint(data_dir) == before, f"{args} wrote something"
    return run


def test_a_delivery_grows_on_hand_in_one_audited_write(tmp_path: Path) -> None:
    data_dir, d = _shop(tmp_path)
    run = cli("shop", *d, "receive", "cap-blank", "200", "--ref", "delivery note 4711")
    assert run.returncode == 0, run.stderr
    assert (run["MATERIAL"], run["ON_HAND"], run["STATE_REVISION"], run["STALE_PLANS"]) == (
        "CAP-BLANK",
        "350",
        "2",
        "0",
    )
    state = shop_state(data_dir)
    assert state["digest"] == run["DOMAIN_DIGEST"]
    assert audit_types(data_dir)[-1] == "material_received"
    shown = json.loads(cli("shop", *d, "show", "--json").stdout)
    assert {m["id"]: m["on_hand"] for m in shown["materials"]}["CAP-BLANK"] == 350


@pytest.mark.parametrize(
    ("code", "args"),
    [
        ("UNKNOWN_MATERIAL", ("shop", "receive", "CAP-BLUE", "10")),
        ("INVALID_QUANTITY", ("shop", "receive", "CAP-BLANK", "0")),
        ("INVALID_QUANTITY", ("shop", "receive", "CAP-BLANK", "-3")),
        # Larger than every store keeps exactly (2**53 - 1): refused, never written as another number.
        ("INVALID_QUANTITY", ("shop", "receive", "CAP-BLANK", "1" + "0" * 41)),
        ("INVALID_QUANTITY", ("shop", "receive", "CAP-BLANK", str(2**53 - 1))),  # on hand would pass it
        ("INVALID_QUANTITY", ("shop", "set-inventory", "CAP-BLANK", "1" + "0" * 41)),
        ("INVALID_QUANTITY", ("order", "progress", "ORD-1001", "--minutes", "1" + "0" * 41)),
        ("INVALID_TEXT", ("shop", "receive", "CAP-BLANK", "10", "--ref", "x" * 201)),
        ("UNKNOWN_ORDER", ("order", "complete", "ORD-9999")),
        ("UNKNOWN_ORDER", ("order", "cancel", "ORD-9999", "--reason", "gone")),
        ("INVALID_TEXT", ("order", "cancel", "ORD-1001", "--reason", "   ")),
        ("INVALID_QUANTITY", ("order", "progress", "ORD-1001", "--minutes", "0")),
        ("PROGRESS_TOO_LARGE", ("order", "progress", "ORD-1001", "--minutes", "480")),
        ("ORDER_NOT_SCHEDULED", ("order", "progress", "ORD-1005", "--minutes", "10")),
    ],
)
def test_each_refusal_exits_2_with_its_code_and_writes_nothing(
    tmp_path: Path, code: str, args: tuple[str, ...]
) -> None:
    data_dir, _ = _shop(tmp_path)
    _refused(data_dir, code, *args)


def test_orders_complete_cancel_and_progress_and_order_list_shows_each_status(tmp_path: Path) -> None:
    data_dir, d = _shop(tmp_path)
    progressed = cli("order", *d, "progress", "ORD-1003", "--minutes", "60")
    assert progressed.returncode == 0 and progressed["SCHEDULED_MINUTES"] == "180", progressed.stderr
    done = cli("order", *d, "complete", "ORD-1002", "--as-of", "2026-12-03")
    assert done.returncode == 0 and (done["ORDER"], done["STATUS"], done["STATE_REVISION"]) == (
        "ORD-1002",
        "complete",
        "3",
    )
    cancelled = cli("order", *d, "cancel", "ord-1004", "--reason", "customer withdrew", "--as-of", "2026-12-02")
    assert cancelled.returncode == 0 and cancelled["ORDER"] == "ORD-1004" and cancelled["STATE_REVISION"] == "4"
    assert audit_types(data_dir)[-3:] == ["order_progressed", "order_completed", "order_cancelled"]
    _refused(data_dir, "ORDER_CLOSED", "order", "complete", "ORD-1002")
    listed = json.loads(cli("order", *d, "list", "--json", "--as-of", AS_OF).stdout)
    status = {o["order"]: o["status"] for o in listed["orders"]}
    assert status == {
        "ORD-1001": "scheduled",
        "ORD-1002": "complete",
        "ORD-1003": "scheduled",
        "ORD-1004": "cancelled",
        "ORD-1005": "at risk",
    }
    assert listed["pending"] == [] and listed["revision"] == 4
    # The machine-day ORD-1004 held is free, and the closed orders survive an export and re-import unchanged.
    exported = cli("shop", *d, "export", str(tmp_path / "week.json"))
    assert exported.returncode == 0
    doc = json.loads((tmp_path / "week.json").read_text())
    assert {c["order"]["id"]: c["status"] for c in doc["closed_orders"]} == {
        "ORD-1002": "complete",
        "ORD-1004": "cancelled",
    }
    again = cli("shop", "--data-dir", str(tmp_path / "copy"), "import", str(tmp_path / "week.json"))
    assert again["DOMAIN_DIGEST"] == shop_state(data_dir)["digest"]
    text = cli("order", *d, "list", "--as-of", AS_OF).stdout
    assert "ORD-1005         at risk" in text and "not scheduled" in text


def test_import_dry_run_prints_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    data_dir, d = _shop(tmp_path)
    doc = json.loads(SHOP_FILE.read_text())
    doc["orders"] = [o for o in doc["orders"] if o["id"] != "ORD-1005"]
    doc["materials"][0]["on_hand"] += 50
    doc["machines"].append({"id": "PRESS-C", "minutes_per_day": 480})
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(doc))
    before = fingerprint(data_dir)
    dry = cli("shop", *d, "import", "--dry-run", str(changed))
    assert dry.returncode == 0 and (dry["DRY_RUN"], dry["CHANGED"], dry["STATE_REVISION"]) == ("1", "1", "2")
    for line in ("orders removed (1): ORD-1005", "machines added (1): PRESS-C", "materials changed (1): INK-NAVY"):
        assert line in dry.stderr, dry.stderr
    assert fingerprint(data_dir) == before
    run = cli("shop", *d, "import", str(changed))
    assert run.returncode == 0 and run["STATE_REVISION"] == "2" and "orders removed (1): ORD-1005" in run.stderr


def test_import_errors_name_the_record_id_beside_the_path(tmp_path: Path) -> None:
    data_dir, d = _shop(tmp_path)
    doc = json.loads(SHOP_FILE.read_text())
    doc["orders"].append({**doc["orders"][0], "id": "ORD-9", "product": "HOODIE-RED"})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    before = fingerprint(data_dir)
    run = cli("shop", *d, "import", str(bad))
    assert run.returncode == 2 and "$.orders[5] (ORD-9).product: unknown product 'HOODIE-RED'" in run.stderr
    assert fingerprint(data_dir) == before


def test_reimporting_the_original_file_after_an_approved_plan_is_refused_unless_replace(tmp_path: Path) -> None:
    data_dir, d = _shop(tmp_path)
    started = cli("start", *d, "--request", str(EXAMPLES / "request-caps.txt"), "--as-of", AS_OF)
    assert started.returncode == 0, started.stderr
    pending = Pending.from_start(data_dir, started)
    approved = pending.resume("approve")
    assert approved.returncode == 0 and approved["STATE_REVISION"] == "2", approved.stderr
    target = json.loads(pending.cli("show", "--checkpoint", pending.checkpoint_id, "--json").stdout)["proposal"][
        "target_order"
    ]["id"]
    dry = cli("shop", *d, "import", "--dry-run", str(SHOP_FILE))
    assert dry["NEEDS_REPLACE"] == "1" and f"order {target}" in dry.stderr
    refused = _refused(data_dir, "IMPORT_CONFLICT", "shop", "import", str(SHOP_FILE))
    assert (
        f"order {target} (placed by the applied plan {pending.proposal_hash[:12]}) would be removed" in refused.stderr
    )
    replaced = cli("shop", *d, "import", "--replace", str(SHOP_FILE))
    assert replaced.returncode == 0 and replaced["STATE_REVISION"] == "3", replaced.stderr
    assert audit_types(data_dir)[-1] == "shop_imported"


def test_shortages_already_in_the_shop_are_a_warning_at_import_and_shown_apart(tmp_path: Path) -> None:
    doc = json.loads(SHOP_FILE.read_text())
    # ORD-1004 (60 caps, one CAP-BLANK each) runs on a Monday far ahead, so it reserves whatever today is.
    order = next(o for o in doc["orders"] if o["id"] == "ORD-1004")
    order["schedule"] = [{"machine": "EMB-01", "day": "2030-01-07", "minutes": order["schedule"][0]["minutes"]}]
    order["due"] = "2030-01-10"
    next(m for m in doc["materials"] if m["id"] == "CAP-BLANK")["on_hand"] = 20
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doc))
    run = cli("shop", "--data-dir", str(tmp_path / "shop"), "import", str(short))
    assert run.returncode == 0, run.stderr
    assert (
        "warning: already short before any new request: CAP-BLANK: short by 40 for ORD-1004 (first needed 2030-01-07)"
        in run.stderr
    )
    shown = cli("shop", "--data-dir", str(tmp_path / "shop"), "show").stdout
    apart = shown.split("Shortages already in the shop (not part of any plan):", 1)[1]
    assert "CAP-BLANK: short by 40 for ORD-1004" in apart
