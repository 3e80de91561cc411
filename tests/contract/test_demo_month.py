"""`make demo-month` in small (scripts/demo_month.py --days 2 --emails 2): the month's story runs end to end through
the CLI (a cancellation, the ERP re-import without the committed purchases refused, then with them), its checks
pass and every count in the report is consistent with the others and with what the data dir holds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.clidriver import ROOT


def test_a_small_month_passes_its_checks_and_counts_what_happened(tmp_path: Path) -> None:
    out = tmp_path / "month.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo_month.py"), "--days", "2", "--emails", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line[:6] for line in done.stdout.splitlines() if line.startswith("day ")] == ["day  1", "day  2"]
    report = json.loads(out.read_text())
    c, checks = report["counts"], report["checks"]
    assert c["received"] == 4 == sum(c["received_by_language"].values())
    assert c["received"] == c["planned"] + c["needs_facts"] + c["duplicates"] + c["start_refused"]
    assert c["pending_plans"] == c["planned"] + c["holds_completed"] + c["reproposed"]
    assert c["stale"] == len(report["stale_plans"]) == c["reproposed"]
    assert all("no longer holds" in s["message"] for s in report["stale_plans"])
    statuses = checks["run_statuses"]
    assert statuses.get("approved", 0) == c["approved"] == checks["plan_applied_count"]
    assert statuses.get("superseded", 0) == c["reproposed"]
    assert sum(statuses.values()) == c["pending_plans"]
    assert c["cancelled"] == 1 and c["reimports"] == 1
    reimport = report["reimport"]
    if reimport["committed_purchases"]:  # an ERP file without them is refused; with them nothing is dropped
        assert reimport["without_purchases_exit"] == 2 and "IMPORT_CONFLICT" in reimport["without_purchases_refusal"]
    assert reimport["merged_exit"] == 0 and reimport["committed_purchases_dropped"] == 0
    assert checks["machine_days_over_capacity"] == 0 and checks["requests_lost"] == 0
    assert checks["messages_sent_twice"] == 0 and checks["messages_delivered"] == c["messages"] > 0
    assert checks["messages_queued"] == c["messages"] and checks["audit"] == 0
    assert report["step_failures"] == []
