"""Monthly cost of the stack at 10 and 1,000 runs a day, computed from the synthesized template.

    python scripts/cost_estimate.py [--template cdk.out/ProductionOrchestrator.template.json]
                                    [--bench evidence/bench.json] [--out evidence/cost.json]

From the template: the state machine's states on the approve path (state transitions), every function's
memory and architecture (GB-seconds), the report schedule, the KMS keys, the alarms (metrics per alarm), the
metric filters and the dashboard. From evidence/bench.json (when present): DynamoDB calls per handler of one
approved run. Everything else is an assumption, written into the report next to its value: durations,
item sizes, log volume, model tokens, and us-east-1 list prices. No free tier is subtracted.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

DAYS_PER_MONTH = 30.4
RUNS_PER_DAY = (10, 1_000)
# us-east-1 list prices (USD) used by the estimate; check the pricing pages before relying on them.
PRICES = {
    "sfn_per_transition": 0.025 / 1_000,
    "lambda_gb_s": {"arm64": 0.0000133334, "x86_64": 0.0000166667},
    "lambda_per_request": 0.20 / 1_000_000,
    "dynamodb_per_wru": 0.625 / 1_000_000,
    "dynamodb_per_rru": 0.125 / 1_000_000,
    "dynamodb_storage_gb_month": 0.25,
    "dynamodb_pitr_gb_month": 0.20,
    "kms_key_month": 1.00,
    "kms_per_request": 0.03 / 10_000,
    "alarm_per_metric_month": 0.10,
    "custom_metric_month": 0.30,
    "dashboard_month": 3.00,
    "logs_ingest_gb": 0.50,
    "logs_store_gb_month": 0.03,
    "s3_per_put": 0.005 / 1_000,
    "s3_per_get": 0.0004 / 1_000,
    "s3_gb_month": 0.023,
    "sns_per_publish": 0.50 / 1_000_000,
    "sns_per_email": 2.00 / 100_000,
    "ses_per_email": 0.10 / 1000,
    "bedrock_nova_pro_per_1k_input": 0.0008,
    "bedrock_nova_pro_per_1k_output": 0.0032,
}
# Assumptions per approved run (one approver, quorum 1).
ASSUMED = {
    "duration_s": {
        "run_agent": 20.0,  # several model turns on Bedrock
        "request_approval": 0.5,
        "decide": 0.4,  # each of GET (page) and POST (decision)
        "resume_agent": 8.0,
        "record_expiry": 0.5,
        "report_pending_age": 0.5,
        "send_outbox": 1.0,  # one SES call per message
        "submit": 0.3,
        "remind": 0.5,  # arm, disarm, or one wake-up (a few table calls, one SNS publish per approver)
        "sign_operator_audit": 0.2,  # two KMS GenerateMac per operator write; none per run
        "receipt_rule_set": 1.0,  # at deploy and teardown only
    },
    "invocations_per_run": {
        "submit": 1,
        "run_agent": 1,
        "request_approval": 1,
        "decide": 2,
        "resume_agent": 1,
        "send_outbox": 1,
        "remind": 3,  # ArmReminders, one wake-up (halfway), DisarmReminders
    },
    "messages_per_run": 3,  # the approved plan's drafts: customer, floor lead, supplier (SES)
    "report_runs_per_month": 12 * 24 * DAYS_PER_MONTH,  # every 5 minutes, whatever the load
    "item_kb": 2,  # average item written (state ~1-2 KB, proposal ~1.7 KB, audit events < 1 KB)
    "items_per_transaction": 4,
    "items_per_batch_get": 4,
    "table_gb_per_run": 6 / 1e6,  # checkpoint, proposal, approval, decision, audit, snapshot: ~6 KB
    "session_kb_per_run": 15,  # S3 session objects (bench: 14,157 bytes)
    "s3_puts_per_run": 14,
    "s3_gets_per_run": 24,
    "log_kb_per_run": 40,  # JSON Lambda logs at INFO + the state machine at level ALL without data
    # receipt GenerateMac + VerifyMac and one SNS data key, plus the audit key's GenerateMac for each chained
    # link and each new head: about two per audited transaction (counted from the workflow, see per_run)
    "kms_requests_fixed_per_run": 3,
    "kms_requests_per_audited_write": 2,
    "emf_metrics": 7,  # ProposalCreated, DecisionRecorded, PlanApplied, ResumeRefused(+code), ...
    "model_tokens_per_run": {"input": 25_000, "output": 1_500},  # both agent runs together
    "dynamodb_calls_per_run": {  # used when evidence/bench.json has no workflow count
        "run_agent": {"GetItem": 3, "PutItem": 2, "TransactWriteItems": 4},
        "request_approval": {"BatchGetItem": 1, "GetItem": 1, "TransactWriteItems": 1},
        "decide": {"BatchGetItem": 2, "GetItem": 8, "UpdateItem": 1, "TransactWriteItems": 1},
        "resume_agent": {"BatchGetItem": 1, "GetItem": 5, "TransactWriteItems": 3},
    },
}


def _template(path: Path | None) -> dict[str, Any]:
    default = ROOT / "cdk.out" / "ProductionOrchestrator.template.json"
    chosen = path or default
    if chosen.exists():
        return json.loads(chosen.read_text())  # type: ignore[no-any-return]
    from infra.application import SKIP_BUNDLING, STACK_ID, build_app

    with tempfile.TemporaryDirectory(prefix="po-cost-") as outdir:
        assembly = build_app(outdir=outdir, context=SKIP_BUNDLING).synth()
        return assembly.get_stack_by_name(STACK_ID).template  # type: ignore[no-any-return]


def _of_type(template: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in template["Resources"].values() if r["Type"] == kind]


def _approve_path(template: dict[str, Any]) -> list[str]:
    """The states an approved run enters: from StartAt along Next, the Choice's first branch (at the decision's
    own Choice, its default: a first version approved, no revision)."""
    from infra.constants import STATE_DECISION_KIND

    (machine,) = _of_type(template, "AWS::StepFunctions::StateMachine")
    definition = machine["Properties"]["DefinitionString"]
    if isinstance(definition, dict):  # Fn::Join of strings and ARNs: the ARNs do not matter here
        definition = "".join(p if isinstance(p, str) else "x" for p in definition["Fn::Join"][1])
    states = json.loads(definition)
    path, name = [], states["StartAt"]
    while name and len(path) < 50:
        path.append(name)
        state = states["States"][name]
        if name == STATE_DECISION_KIND:
            name = state["Default"]
        else:
            name = state["Choices"][0]["Next"] if state["Type"] == "Choice" else state.get("Next")
    return path


def _functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        fn["Properties"]["Handler"].split(".")[-2]: {
            "memory_mb": fn["Properties"].get("MemorySize", 128),
            "architecture": fn["Properties"].get("Architectures", ["x86_64"])[0],
        }
        for fn in _of_type(template, "AWS::Lambda::Function")
    }


def _alarm_metrics(template: dict[str, Any]) -> int:
    """Metrics billed for the alarms: one per single-metric alarm, one per metric a math alarm reads."""
    total = 0
    for alarm in _of_type(template, "AWS::CloudWatch::Alarm"):
        metrics = alarm["Properties"].get("Metrics")
        total += sum(1 for m in metrics if "MetricStat" in m) if metrics else 1
    return total


def _dynamodb_calls(bench: Path) -> tuple[dict[str, dict[str, int]], str]:
    if bench.exists():
        report = json.loads(bench.read_text()).get("dynamodb_round_trips_workflow", {})
        if report.get("by_handler"):
            return report["by_handler"], "evidence/bench.json (one approved run on moto)"
    return ASSUMED["dynamodb_calls_per_run"], "assumed"  # type: ignore[return-value]


def per_run(template: dict[str, Any], bench: Path) -> dict[str, Any]:
    """What one approved run consumes, and the fixed monthly quantities."""
    functions = _functions(template)
    gb_s = {
        name: ASSUMED["invocations_per_run"].get(name, 0)  # type: ignore[attr-defined]
        * ASSUMED["duration_s"][name]  # type: ignore[index]
        * functions[name]["memory_mb"]
        / 1024
        for name in functions
    }
    calls, source = _dynamodb_calls(bench)
    wru = rru = 0.0
    for ops in calls.values():
        for op, count in ops.items():
            if op == "TransactWriteItems":
                wru += count * 2 * ASSUMED["items_per_transaction"] * ASSUMED["item_kb"]  # type: ignore[operator]
            elif op in ("PutItem", "UpdateItem"):
                wru += count * ASSUMED["item_kb"]  # type: ignore[operator]
            elif op == "BatchGetItem":
                rru += count * ASSUMED["items_per_batch_get"]  # type: ignore[operator]
            else:
                rru += count
    return {
        "approve_path_states": _approve_path(template),
        "state_transitions": len(_approve_path(template)),
        "lambda_gb_s": {k: round(v, 4) for k, v in gb_s.items() if v},
        "lambda_requests": sum(ASSUMED["invocations_per_run"].values()),  # type: ignore[attr-defined]
        "dynamodb_calls": calls,
        "dynamodb_calls_source": source,
        "dynamodb_wru": wru,
        # every transaction of the run carries audit events in this design (the outbox marks included)
        "kms_requests": ASSUMED["kms_requests_fixed_per_run"]
        + ASSUMED["kms_requests_per_audited_write"]  # type: ignore[operator]
        * sum(ops.get("TransactWriteItems", 0) for ops in calls.values()),
        "dynamodb_rru": rru,
        "functions": functions,
        "kms_keys": len(_of_type(template, "AWS::KMS::Key")),
        "alarm_metrics": _alarm_metrics(template),
        "alarms": len(_of_type(template, "AWS::CloudWatch::Alarm")),
        "metric_filters": len(_of_type(template, "AWS::Logs::MetricFilter")),
        "dashboards": len(_of_type(template, "AWS::CloudWatch::Dashboard")),
    }


def monthly(usage: dict[str, Any], runs_per_day: int) -> dict[str, float]:
    """Line items in USD per month."""
    runs = runs_per_day * DAYS_PER_MONTH
    p = PRICES
    arch = usage["functions"]["run_agent"]["architecture"]
    report = usage["functions"]["report_pending_age"]
    report_gb_s = ASSUMED["report_runs_per_month"] * ASSUMED["duration_s"]["report_pending_age"]  # type: ignore[index]
    report_gb_s *= report["memory_mb"] / 1024
    tokens = ASSUMED["model_tokens_per_run"]
    items = {
        "step_functions_transitions": runs * usage["state_transitions"] * p["sfn_per_transition"],
        "lambda_compute": (runs * sum(usage["lambda_gb_s"].values()) + report_gb_s) * p["lambda_gb_s"][arch],
        "lambda_requests": (runs * usage["lambda_requests"] + ASSUMED["report_runs_per_month"])
        * p["lambda_per_request"],
        "dynamodb_requests": runs
        * (usage["dynamodb_wru"] * p["dynamodb_per_wru"] + usage["dynamodb_rru"] * p["dynamodb_per_rru"]),
        "dynamodb_storage_and_pitr": runs
        * 12
        * ASSUMED["table_gb_per_run"]  # a year of runs kept
        * (p["dynamodb_storage_gb_month"] + p["dynamodb_pitr_gb_month"]),
        "kms_keys": usage["kms_keys"] * p["kms_key_month"],
        "kms_requests": runs * usage["kms_requests"] * p["kms_per_request"],
        "cloudwatch_alarms": usage["alarm_metrics"] * p["alarm_per_metric_month"],
        "cloudwatch_custom_metrics": (usage["metric_filters"] + ASSUMED["emf_metrics"]) * p["custom_metric_month"],
        "cloudwatch_dashboard": usage["dashboards"] * p["dashboard_month"],
        "cloudwatch_logs": runs * ASSUMED["log_kb_per_run"] / 1e6 * (p["logs_ingest_gb"] + p["logs_store_gb_month"]),
        "s3_sessions": runs
        * (
            ASSUMED["s3_puts_per_run"] * p["s3_per_put"]
            + ASSUMED["s3_gets_per_run"] * p["s3_per_get"]
            + 12 * ASSUMED["session_kb_per_run"] / 1e6 * p["s3_gb_month"]
        ),
        "sns_approval_mail": runs * (p["sns_per_publish"] + p["sns_per_email"]),
        "ses_plan_messages": runs * ASSUMED["messages_per_run"] * p["ses_per_email"],
        "bedrock_model_tokens": runs
        * (
            tokens["input"] / 1000 * p["bedrock_nova_pro_per_1k_input"]
            + tokens["output"] / 1000 * p["bedrock_nova_pro_per_1k_output"]
        ),
    }
    return {k: round(v, 2) for k, v in items.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--template", type=Path)
    parser.add_argument("--bench", type=Path, default=ROOT / "evidence" / "bench.json")
    parser.add_argument("--out", type=Path, default=ROOT / "evidence" / "cost.json")
    args = parser.parse_args(argv)
    usage = per_run(_template(args.template), args.bench)
    estimates = {}
    for runs_per_day in RUNS_PER_DAY:
        items = monthly(usage, runs_per_day)
        without_model = round(sum(v for k, v in items.items() if k != "bedrock_model_tokens"), 2)
        estimates[str(runs_per_day)] = {
            "line_items_usd": items,
            "total_usd": round(sum(items.values()), 2),
            "total_without_model_usd": without_model,
        }
    report = {
        "runs_per_day": list(RUNS_PER_DAY),
        "per_run_from_template": usage,
        "assumptions": ASSUMED,
        "prices_usd_us_east_1": PRICES,
        "monthly": estimates,
        "note": "no free tier subtracted; model tokens are the largest and least certain line",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    for runs_per_day, estimate in estimates.items():
        total, rest = estimate["total_usd"], estimate["total_without_model_usd"]
        print(f"{runs_per_day} runs/day: ${total}/month (${rest} without model tokens)")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
