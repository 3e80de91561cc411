"""`make cost` runs on the stack as synthesized: every function in the template has its assumptions, and the
report is computed from the template and the bench figures (a new function without an assumed duration, or a
bench report it cannot read, fails here instead of in the hands of whoever runs it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cdk_template import resources_of_type, synthesize

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = {
    "approvalWindow": "2h",
    "approverEmails": "a@example.com,b@example.com",
    "senderEmail": "orders@shop.example",
}


def test_the_monthly_cost_covers_every_function_of_the_template(tmp_path: Path) -> None:
    template = synthesize(CONTEXT)
    (tmp_path / "template.json").write_text(json.dumps(template))
    script = ROOT / "scripts" / "cost_estimate.py"
    command = [sys.executable, str(script), "--template", str(tmp_path / "template.json")]
    done = subprocess.run(
        [*command, "--out", str(tmp_path / "cost.json")], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "cost.json").read_text())
    handlers = {
        fn["Properties"]["Handler"].split(".")[-2]
        for fn in resources_of_type(template, "AWS::Lambda::Function").values()
    }
    assert handlers <= set(report["assumptions"]["duration_s"]), handlers - set(report["assumptions"]["duration_s"])
    usage = report["per_run_from_template"]
    assert usage["kms_keys"] == len(resources_of_type(template, "AWS::KMS::Key"))
    assert usage["kms_requests"] > report["assumptions"]["kms_requests_fixed_per_run"]  # the audit chain's MACs
    for runs, estimate in report["monthly"].items():
        items = estimate["line_items_usd"]
        assert all(value >= 0 for value in items.values()), runs
        assert estimate["total_usd"] == round(sum(items.values()), 2)
    assert report["monthly"]["1000"]["total_usd"] > report["monthly"]["10"]["total_usd"]
