"""`make evidence` (local part): evidence/local-approve.json and evidence/local-reject.json.

Every value is read from what the run did: CLI output, the store on disk, the refusal log.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support import localstore
from tests.support.clidriver import ROOT, Run, cli
from tests.support.refusal_cases import CASES, EXPIRING_WINDOW, Pending, observed_code

SCENARIO = "rush-order"


def _start(data_dir: Path, *extra: str) -> tuple[Pending, Run]:
    run = cli("start", "--data-dir", str(data_dir), "--scenario", SCENARIO, *extra)
    if run.returncode != 0:
        sys.exit(f"start failed: {run.stderr}")
    return Pending.from_start(data_dir, run), run


def _refusals(work: Path, template: Pending) -> list[dict[str, Any]]:
    results = []
    for code, provoke in CASES.items():
        if code == "EXPIRED":
            pending, _ = _start(work / "expiring", "--approval-window", EXPIRING_WINDOW)
        else:
            target = work / f"refusal-{code.lower()}"
            shutil.copytree(template.data_dir, target)
            pending = template.moved_to(target)
        args = provoke(pending)
        before = localstore.fingerprint(pending.data_dir)
        refused = pending.cli(*args)
        results.append(
            {
                "code_expected": code,
                "code_observed": observed_code(refused),
                "exit_code": refused.returncode,
                "message": refused.stderr.strip(),
                "store_unchanged": localstore.fingerprint(pending.data_dir) == before,
            }
        )
    return results


def _report(work: Path, template: Pending, decision: str, refusals: list[dict[str, Any]]) -> dict[str, Any]:
    target = work / f"decide-{decision}"
    shutil.copytree(template.data_dir, target)
    pending = template.moved_to(target)
    before = localstore.shop_state(target)
    resumed = pending.resume(decision, "--reason", "evidence run" if decision == "reject" else "")
    if resumed.returncode != 0:
        sys.exit(f"resume failed: {resumed.stderr}")
    after = localstore.shop_state(target)
    start_values = dict(template.start_values)
    return {
        "scenario": SCENARIO,
        "decision": resumed["DECISION"],
        "session_id": pending.session_id,
        "checkpoint_id": pending.checkpoint_id,
        "interrupt_id": pending.interrupt_id,
        "proposal_hash": pending.proposal_hash,
        "start_pid": int(start_values["START_PID"]),
        "resume_pid": int(resumed["RESUME_PID"]),
        "first_stop_reason": start_values["STOP_REASON"],
        "final_stop_reason": resumed["FINAL_STOP_REASON"],
        "revision_before": before["revision"],
        "revision_after": after["revision"],
        "plan_applied_count": localstore.application_count(target),
        "audit_event_types": localstore.audit_types(target),
        "domain_digest_before": before["digest"],
        "domain_digest_after": after["digest"],
        "refusals": refusals,
    }


def main() -> None:
    out = ROOT / "evidence"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="po-evidence-") as tmp:
        work = Path(tmp)
        template, _ = _start(work / "template")
        refusals = _refusals(work, template)
        for decision, name in (("approve", "local-approve.json"), ("reject", "local-reject.json")):
            report = _report(work, template, decision, refusals)
            (out / name).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
            print(
                f"wrote evidence/{name}: revision {report['revision_before']} -> {report['revision_after']}, "
                f"applied {report['plan_applied_count']}"
            )
    failed = [r for r in refusals if r["code_observed"] != r["code_expected"] or not r["store_unchanged"]]
    if failed:
        sys.exit(f"refusals not as expected: {failed}")


if __name__ == "__main__":
    main()
