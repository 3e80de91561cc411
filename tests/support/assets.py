"""The Lambda assets built as ``cdk synth`` builds them, for this machine's architecture, and each function's
environment as the template gives it.

    built_assets() -> BuiltAssets(template, {handler module -> asset dir}, environments)

Synthesized into one directory under the bundle cache, under a file lock (pytest workers and ``make bench``
may ask at once): CDK reuses an ``asset.<hash>`` directory that exists, and the installed dependencies are
cached per requirements and platform (infra/bundling.py), so a rebuild after a code change only copies
and compiles the package. Asset directories the current template no longer names are removed.
"""

from __future__ import annotations

import fcntl
import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.application import STACK_ID, build_app
from infra.bundling import cache_root, host_architecture
from tests.support.cdk_template import inputs_digest, render, resources_of_type

REGION = "us-east-1"
ACCOUNT = "123456789012"
CONTEXT = {
    "approverEmails": "approver@example.com",
    "operatorEmail": "ops@example.com",
    "senderEmail": "orders@shop.example.com",
    "inboundAddress": "requests@shop.example.com",
}
# What the Lambda service sets in every Python 3.12 function's environment (besides credentials).
LAMBDA_ENV = {
    "AWS_REGION": REGION,
    "AWS_DEFAULT_REGION": REGION,
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
    "AWS_ACCESS_KEY_ID": "probe",
    "AWS_SECRET_ACCESS_KEY": "probe",
    "AWS_SESSION_TOKEN": "probe",
    "AWS_CONFIG_FILE": "/dev/null",
    "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
    "AWS_EC2_METADATA_DISABLED": "true",
    "LANG": "C.UTF-8",
    "PATH": "/usr/bin:/bin",
}


@dataclass(frozen=True)
class BuiltAssets:
    """One synthesized stack with its assets on disk."""

    template: dict[str, Any]
    outdir: Path
    asset_dirs: dict[str, Path]  # handler module -> its asset directory
    handlers: dict[str, str]  # handler module -> handler path (module.function)
    environments: dict[str, dict[str, str]]  # handler module -> the Lambda environment it runs with


def _fake(logical_id: str, attribute: str | None) -> str:
    """Stand-ins of the deploy-time values the environment refers to, shaped as the settings require."""
    pseudo = {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::Partition": "aws", "AWS::URLSuffix": "x"}
    if logical_id in pseudo:
        return pseudo[logical_id]
    if "Role" in logical_id and attribute == "Arn":
        return f"arn:aws:iam::{ACCOUNT}:role/probe-{logical_id.lower()[:40]}"
    if "Topic" in logical_id:
        return f"arn:aws:sns:{REGION}:{ACCOUNT}:probe-topic"
    if "Url" in logical_id:
        return "https://probe.lambda-url.us-east-1.on.aws/"
    if "Key" in logical_id:
        return "00000000-0000-0000-0000-000000000000"
    if "StateMachine" in logical_id:
        return f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:probe"
    return f"probe-{logical_id.lower()[:40]}"


def _assets_present(outdir: Path, template: Mapping[str, Any]) -> bool:
    return all(
        (outdir / f"asset.{str(fn['Properties']['Code']['S3Key']).removesuffix('.zip')}").is_dir()
        for fn in resources_of_type(template, "AWS::Lambda::Function").values()
    )


def built_assets(context: Mapping[str, Any] | None = None) -> BuiltAssets:
    """Synthesize with bundling for the host architecture (built once per code change, then reused)."""
    architecture = host_architecture()
    outdir = cache_root().parent / f"synth-{architecture}"
    outdir.mkdir(parents=True, exist_ok=True)
    full_context = {**CONTEXT, **dict(context or {}), "architecture": architecture}
    with open(outdir.parent / f".synth-{architecture}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Another worker may have built exactly this a moment ago (same sources, same context): reuse it.
        key = inputs_digest(json.dumps(full_context, sort_keys=True))
        done = outdir / "built-for.json"
        previous = json.loads(done.read_text()) if done.exists() else {}
        if previous.get("key") == key and _assets_present(outdir, previous["template"]):
            template = previous["template"]
        else:
            app = build_app(outdir=str(outdir), context=full_context)
            template = app.synth().get_stack_by_name(STACK_ID).template
            done.write_text(json.dumps({"key": key, "template": template}))
        keep = set()
        asset_dirs, handlers, environments = {}, {}, {}
        for fn in resources_of_type(template, "AWS::Lambda::Function").values():
            props = fn["Properties"]
            module = props["Handler"].split(".")[-2]
            asset = outdir / f"asset.{str(props['Code']['S3Key']).removesuffix('.zip')}"
            keep.add(asset.name)
            asset_dirs[module] = asset
            handlers[module] = props["Handler"]
            variables = render(props["Environment"]["Variables"], _fake)
            environments[module] = {
                **LAMBDA_ENV,
                **{k: str(v) for k, v in variables.items()},
                "AWS_LAMBDA_FUNCTION_NAME": f"probe-{module}",
            }
        for stale in outdir.glob("asset.*"):
            if stale.name not in keep and stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
    return BuiltAssets(
        template=json.loads(json.dumps(template)),
        outdir=outdir,
        asset_dirs=asset_dirs,
        handlers=handlers,
        environments=environments,
    )
