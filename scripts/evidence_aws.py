"""``make evidence-aws``: evidence/aws-local-{approve,reject,expired}.json from the workflow run on moto.

Each report: the execution ARN, the states entered (from the execution history), the process id of each
state's Lambda invocation, the proposal hash, the revision before and after, the application count, and
whether the task token appeared in any captured log line, SNS message, URL or page.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support.cdk_template import synthesize  # noqa: E402
from tests.support.moto_workflow import EXPIRING_CONTEXT, LOCAL_CONTEXT, local_aws, run_case  # noqa: E402

EVIDENCE_DIR = ROOT / "evidence"
RUNS = (
    ("approve", "approve", LOCAL_CONTEXT),
    ("reject", "reject", LOCAL_CONTEXT),
    ("expired", "expire", EXPIRING_CONTEXT),
)
EXPECTED_FINAL_STATE = {"approve": "PlanApplied", "reject": "PlanRejected", "expired": "DecisionExpired"}


def main() -> int:
    EVIDENCE_DIR.mkdir(exist_ok=True)
    failures = 0
    with local_aws() as aws:
        for name, case, context in RUNS:
            run = run_case(aws.deploy(synthesize(context)), case)
            report = {
                "generated_by": "make evidence-aws (scripts/evidence_aws.py)",
                "approval_window": context["approvalWindow"],
                **run.evidence(),
            }
            path = EVIDENCE_DIR / f"aws-local-{name}.json"
            path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            ok = run.states[-1] == EXPECTED_FINAL_STATE[name] and not run.task_token_leaked
            failures += not ok
            print(
                f"{path.relative_to(ROOT)}: {' -> '.join(run.states)}; revision {run.revision_before} -> "
                f"{run.revision_after}; applied {run.plan_applied_count}; token leaked {run.task_token_leaked}"
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
