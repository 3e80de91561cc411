"""``make demo-aws``: the synthesized Step Functions workflow, executed locally on a moto server.

synthesize the CDK stack (no asset bundling) -> moto on 127.0.0.1 with Step Functions execution on
-> table, bucket, topic and functions from the template -> state machine from the template's definition
-> start -> the e-mailed link (secret redacted here) -> GET the page -> POST approve -> the outcome.
Each Lambda invocation is a fresh Python process running our handler.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support.cdk_template import synthesize  # noqa: E402
from tests.support.moto_workflow import LOCAL_CONTEXT, local_aws, run_case  # noqa: E402


def main() -> int:
    started = time.monotonic()
    print("synthesizing the CDK stack (cdk-nag checks on, asset bundling skipped)...")
    template = synthesize(LOCAL_CONTEXT)
    with local_aws() as aws:
        print(f"moto server on {aws.endpoint} (127.0.0.1 only), Step Functions execution enabled")
        deployment = aws.deploy(template)
        print(f"state machine {deployment.state_machine_arn}")
        print(f"  states: {', '.join(deployment.definition['States'])}")
        print(f"decision endpoint (stands in for the Function URL): {deployment.endpoint.base_url}")
        run = run_case(deployment, "approve", say=lambda line: print(f"  {line}"))
    print()
    print(f"execution {run.status}: {' -> '.join(run.states)}")
    print(f"proposal {run.proposal_hash}")
    print(f"revision {run.revision_before} -> {run.revision_after}, plan applied {run.plan_applied_count} time(s)")
    print("process ids: " + ", ".join(f"{state}={pid}" for state, pid in run.lambda_pids.items()))
    print(f"task token found in any log line, message, URL or page: {run.task_token_leaked}")
    print(f"({time.monotonic() - started:.1f}s)")
    ok = run.status == "SUCCEEDED" and run.plan_applied_count == 1 and not run.task_token_leaked
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
