"""`make evidence-providers`: one proposal across three backends, through their real clients.

For each reference scenario and each backend it runs both paths (start -> approve, start -> reject), each
step on a fresh runtime over the data dir, and writes ``evidence/providers.json``:

    {"label": "loopback" | "live",
     "scenarios": {"<scenario>": {"<backend>": {"proposal_hash", "tool_sequence", "interrupt_id", "usage",
                                                "approve": {...}, "reject": {...}},
                                  ...,
                                  "all_hashes_equal": <computed>}},
     "requests": {"<e-mail>": {... the same, on docs/examples/print-shop.json ...}},
     "all_scenarios_equal": <computed>, "all_requests_equal": <computed>, "tokens": {...}}

The requests are two e-mails written like customers write (docs/examples/): free text, a description
instead of a product code, relative due dates ("by Friday" counted from the Date: header, "in 10 days"
from the planning day), one .eml and one plain text without a sender. Each backend reads them through
its own client (the loopback models run the rule-based reader as their "understanding").

Loopback (default): deterministic, Bedrock (Strands BedrockModel -> ConverseStream on 127.0.0.1) and Ollama
(Strands OllamaModel -> /api/chat on 127.0.0.1). Token figures there are the loopback servers' estimates
(characters / 4 of what the real clients sent and received).

Live (``--live --provider bedrock|ollama``, `make evidence-live`): deterministic and the real service;
writes ``evidence/providers-live.json``. Fails fast, before any call, without credentials or a server.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support.provider_runs import (  # noqa: E402
    DUMMY_AWS_ENV,
    EXAMPLE_REQUESTS,
    Backend,
    backend,
    example_request,
    example_shop,
    resume,
    start,
    tool_sequence,
)

from production_orchestrator.agent.providers import ModelSettings, build_binding  # noqa: E402
from production_orchestrator.domain.errors import ConfigurationError  # noqa: E402
from production_orchestrator.domain.scenarios import SCENARIOS  # noqa: E402
from production_orchestrator.services.runs.plan_request import PlanRequest  # noqa: E402

LOOPBACK_OUT = ROOT / "evidence" / "providers.json"
LIVE_OUT = ROOT / "evidence" / "providers-live.json"
TOKEN_KEYS = ("inputTokens", "outputTokens", "totalTokens")


def _tokens(usage: dict[str, int]) -> dict[str, int]:
    return {key: int(usage.get(key, 0)) for key in TOKEN_KEYS}


def _add(*usages: dict[str, int]) -> dict[str, int]:
    return {key: sum(u.get(key, 0) for u in usages) for key in TOKEN_KEYS}


def run_backend(make: AbstractContextManager[Backend], case: str, workdir: Path) -> dict[str, Any]:
    """Both paths of one scenario (or one example e-mail, on the example shop) on one backend."""
    request: str | PlanRequest = example_request(case) if case in EXAMPLE_REQUESTS else case
    shop = example_shop() if case in EXAMPLE_REQUESTS else None
    with make as be:
        approve_dir, reject_dir = workdir / "approve", workdir / "reject"
        began = time.monotonic()
        started = start(approve_dir, request, be, shop=shop)
        sequence = tool_sequence(approve_dir, started.checkpoint.session_id)
        approved = resume(approve_dir, started, be, approve=True)
        rejected_start = start(reject_dir, request, be, shop=shop)
        rejected = resume(reject_dir, rejected_start, be, approve=False, reason="evidence: reject path")
        seconds = round(time.monotonic() - began, 2)
        model_calls = len(be.server.model_calls()) if be.server is not None else None
        binding = be.binding
    return {
        "proposal_hash": started.checkpoint.proposal_hash,
        "target_order": started.proposal.target_order.model_dump(mode="json"),
        "tool_sequence": sequence,
        "interrupt_id": started.checkpoint.interrupt_id,
        "usage": _tokens(started.usage),
        "binding": {"provider": binding.provider, "model_id": binding.model_id, "region": binding.region},
        "approve": {
            "outcome": approved.outcome,
            "revision": approved.revision,
            "plan_applied_count": approved.plan_applied_count,
            "usage": _tokens(approved.usage),
        },
        "reject": {
            "proposal_hash": rejected_start.checkpoint.proposal_hash,
            "outcome": rejected.outcome,
            "revision": rejected.revision,
            "plan_applied_count": rejected.plan_applied_count,
            "usage": _add(_tokens(rejected_start.usage), _tokens(rejected.usage)),
        },
        "both_paths_usage": _add(
            _tokens(started.usage), _tokens(approved.usage), _tokens(rejected_start.usage), _tokens(rejected.usage)
        ),
        "model_requests_seen_by_server": model_calls,
        "seconds": seconds,
    }


@contextmanager
def _live(binding_args: dict[str, Any]) -> Iterator[Backend]:
    yield Backend(binding_args["provider"], build_binding(**binding_args), ModelSettings(), None)


def _cases(backends: dict[str, Any], cases: list[str], tmp: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for case in cases:
        entry: dict[str, Any] = {}
        for name, make in backends.items():
            try:
                entry[name] = run_backend(make(), case, Path(tmp) / case / name)
            except Exception as exc:  # a live model that never reaches the gate is evidence too
                entry[name] = {"error": f"{type(exc).__name__}: {exc}"}
        hashes = [v.get("proposal_hash") for v in entry.values()]
        hashes += [v["reject"]["proposal_hash"] for v in entry.values() if "reject" in v]
        entry["all_hashes_equal"] = None not in hashes and len(set(hashes)) == 1
        found[case] = entry
    return found


def _token_summary(scenarios: dict[str, Any], name: str) -> dict[str, Any]:
    """One backend's tokens: a start plus its approving resume per scenario, and the whole report."""
    ran = {scenario: entry[name] for scenario, entry in scenarios.items() if "usage" in entry[name]}
    return {
        "start_and_approve": {s: _add(v["usage"], v["approve"]["usage"]) for s, v in ran.items()},
        "whole_report": _add(*(v["both_paths_usage"] for v in ran.values())),
    }


def _report(label: str, backends: dict[str, Any], scenarios: list[str], requests: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {
        "label": label,
        "generated_at": datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
    }
    with tempfile.TemporaryDirectory(prefix="po-evidence-providers-") as tmp:
        report["scenarios"] = _cases(backends, scenarios, tmp)
        report["requests"] = _cases(backends, requests, tmp)
    report["all_scenarios_equal"] = all(s["all_hashes_equal"] for s in report["scenarios"].values())
    report["all_requests_equal"] = all(s["all_hashes_equal"] for s in report["requests"].values())
    report["tokens"] = {name: _token_summary(report["scenarios"], name) for name in backends}
    return report


def _check_bedrock_credentials(profile: str | None) -> None:
    import boto3
    from botocore.exceptions import BotoCoreError

    try:
        credentials = boto3.Session(profile_name=profile).get_credentials()
    except BotoCoreError as exc:
        sys.exit(f"evidence-live: cannot load AWS credentials ({type(exc).__name__}); check PROFILE= or AWS_PROFILE")
    if credentials is None:
        sys.exit(
            "evidence-live: no AWS credentials found. Configure them (aws configure / aws sso login, or "
            "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and enable model access in the Bedrock console."
        )


def _check_ollama(host: str) -> None:
    try:
        with urllib.request.urlopen(f"{host}/api/tags", timeout=3) as answer:
            answer.read()
    except OSError as exc:
        sys.exit(f"evidence-live: no Ollama server answers at {host} ({exc}); start it with `ollama serve`")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--live", action="store_true", help="use the real service instead of loopback servers")
    parser.add_argument("--provider", choices=("bedrock", "ollama"), default="bedrock")
    parser.add_argument("--model", default=None)
    parser.add_argument("--region", default=None)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--bedrock-endpoint", default=None)
    parser.add_argument("--ollama-host", default=None)
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="default: all three")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    scenarios = args.scenario or sorted(SCENARIOS)

    backends: dict[str, Any]
    if args.live:
        bedrock = args.provider == "bedrock"
        # Only the chosen provider's settings: an OLLAMA_HOST in the environment must not break a Bedrock run.
        binding_args: dict[str, Any] = {
            "provider": args.provider,
            "model_id": args.model,
            "region": args.region if bedrock else None,
            "profile": args.profile if bedrock else None,
            "bedrock_endpoint": args.bedrock_endpoint if bedrock else None,
            "ollama_host": None if bedrock else args.ollama_host,
        }
        try:
            binding = build_binding(**binding_args)
        except ConfigurationError as exc:
            sys.exit(f"evidence-live: {exc}")
        if args.provider == "bedrock":
            _check_bedrock_credentials(args.profile)
        else:
            _check_ollama(binding.endpoint)
        backends = {"deterministic": lambda: backend("deterministic"), args.provider: lambda: _live(binding_args)}
        label, out = "live", args.out or LIVE_OUT
        print(f"live run on {binding.describe()}: {len(scenarios)} scenario(s), approve and reject paths each")
    else:
        # SigV4 needs credentials to sign with; the loopback server accepts any. Never real ones here.
        os.environ.update(DUMMY_AWS_ENV)
        backends = {
            "deterministic": lambda: backend("deterministic"),
            "bedrock": lambda: backend("bedrock"),
            "ollama": lambda: backend("ollama"),
        }
        label, out = "loopback", args.out or LOOPBACK_OUT

    report = _report(label, backends, scenarios, sorted(EXAMPLE_REQUESTS))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    for case, entry in {**report["scenarios"], **report["requests"]}.items():
        runs = {name: v for name, v in entry.items() if isinstance(v, dict)}
        hashes = {name: str(v.get("proposal_hash") or v.get("error"))[:16] for name, v in runs.items()}
        print(f"{case:<18} all_hashes_equal={entry['all_hashes_equal']}  {hashes}")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0 if report["all_scenarios_equal"] and report["all_requests_equal"] else 1


if __name__ == "__main__":
    sys.exit(main())
