"""`make demo-week` asserted step by step: the same story (tests/support/shop_week.py, which
scripts/demo_week.py tells), run once per module on a temporary data dir, every step a real CLI process."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.clidriver import cli
from tests.support.localstore import audit_types, rows, shop_state
from tests.support.shop_week import week as the_week

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return the_week(tmp_path_factory.mktemp("week") / "shop", tell=False)


def test_the_shop_is_imported_and_three_plans_wait_beside_it(week: Any) -> None:
    imported = week.runs["import"]
    assert imported.returncode == 0 and imported["STATE_REVISION"] == "1"
    hashes = {week.runs[f"start-{i}"]["PROPOSAL_HASH"] for i in (1, 2, 3)}
    assert len(hashes) == 3
    listing = week.runs["list-pending"]
    pending = [line for line in listing.stdout.splitlines() if " pending " in line]
    assert len(pending) == 3
    for plan in week.plans:
        assert any(plan.checkpoint_id in line for line in pending), listing.stdout


def test_a_rejected_plan_changes_nothing_in_the_shop(week: Any) -> None:
    rejected = week.runs["reject-red"]
    assert rejected.returncode == 0 and rejected["DECISION"] == "rejected"
    red = week.plans[2].proposal_hash
    events = [json.loads(raw) for (_, raw) in rows(week.data_dir, "audit")]
    assert [e["event_type"] for e in events if e["proposal_hash"] == red and e["event_type"].startswith("plan_")] == [
        "plan_rejected"
    ]
    assert not any(r[0] == red for r in rows(week.data_dir, "applications"))


def test_a_delivery_arrives_and_an_order_completes(week: Any) -> None:
    received = week.runs["receive"]
    assert received.returncode == 0 and (received["MATERIAL"], received["ON_HAND"]) == ("CAP-BLANK", "350")
    done = week.runs["complete"]
    assert done.returncode == 0 and (done["ORDER"], done["STATUS"]) == ("ORD-1002", "complete")
    assert int(done["STATE_REVISION"]) == int(received["STATE_REVISION"]) + 1
    row = next(line for line in week.runs["list-end"].stdout.splitlines() if line.startswith("ORD-1002"))
    assert " complete " in row and "complete on 2026-12-03" in row
    events = audit_types(week.data_dir)
    assert events.index("material_received") < events.index("order_completed")


def test_the_reimport_dry_run_shows_the_diff_and_writes_nothing(week: Any) -> None:
    dry = week.runs["reimport-dry-run"]
    assert dry.returncode == 0 and dry["DRY_RUN"] == "1" and dry["CHANGED"] == "1"
    # The completed order would come back as open, and the delivery would be undone: the diff says so.
    assert "orders added (1): ORD-1002" in dry.stderr and "closed orders removed (1): ORD-1002" in dry.stderr
    assert "CAP-BLANK" in dry.stderr
    last_change = week.runs.get("reimport") or week.runs["complete"]
    assert audit_types(week.data_dir)[-1] != "shop_imported"
    assert shop_state(week.data_dir)["revision"] == int(week.runs["complete"]["STATE_REVISION"]), last_change.stderr
    if dry["NEEDS_REPLACE"] == "1":
        assert week.runs["reimport"].returncode == 2 and "IMPORT_CONFLICT" in week.runs["reimport"].stderr


def test_approve_one_and_the_third_is_still_approvable(week: Any) -> None:
    totes, caps = week.runs["approve-totes"], week.runs["approve-caps"]
    assert totes.returncode == 0 and totes["DECISION"] == "approved", totes.stderr
    assert caps.returncode == 0 and caps["DECISION"] == "approved", caps.stderr
    listed = json.loads(cli("order", "--data-dir", str(week.data_dir), "list", "--json").stdout)
    assert listed["pending"] == []
    # Both applied plans placed orders: the original spreadsheet would remove them, so it needs --replace.
    assert week.runs["reimport-dry-run"]["NEEDS_REPLACE"] == "1"
    assert week.runs["reimport"].returncode == 2
