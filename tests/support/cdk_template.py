"""The synthesized stack for tests and the local workflow runner: built once, rendered with fake ARNs.

synthesize(context) -> CloudFormation template dict (bundling skipped, cdk-nag checks applied)
render(value, refs) -> the value with Ref / Fn::GetAtt / Fn::Join / Fn::Sub resolved from ``refs``
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from importlib.metadata import version
from pathlib import Path
from typing import Any

from infra.application import SKIP_BUNDLING, build_app

ROOT = Path(__file__).resolve().parents[2]
# Synthesis takes seconds and every pytest worker needs the same templates: they are kept on disk under a
# key that changes with anything that could change them (the context, every source file the app imports,
# cdk.json, the requirements and the aws-cdk-lib version).
CACHE_DIR = Path(os.environ.get("PO_SYNTH_CACHE") or Path(tempfile.gettempdir()) / "po-synth-cache")


def inputs_digest(context_json: str) -> str:
    """A key for what a synthesis with ``context_json`` produces (see :data:`CACHE_DIR`)."""
    digest = hashlib.sha256(context_json.encode())
    digest.update(version("aws-cdk-lib").encode())
    digest.update(os.environ.get("CDK_CONTEXT_JSON", "").encode())  # the app reads it too
    sources = [ROOT / "cdk.json", ROOT / "requirements.txt", *sorted(ROOT.glob("requirements*.lock"))]
    sources += sorted((ROOT / "infra").rglob("*.py")) + sorted((ROOT / "functions").rglob("*.py"))
    for path in sources:
        if "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


Resolver = Callable[[str, str | None], str]  # (logical id or pseudo parameter, attribute) -> value


@functools.lru_cache(maxsize=4)
def _synthesize(context_json: str) -> str:
    cached = CACHE_DIR / f"{inputs_digest(context_json)}.json"
    if cached.exists():
        return cached.read_text(encoding="utf-8")
    context = {**SKIP_BUNDLING, **json.loads(context_json)}
    with tempfile.TemporaryDirectory(prefix="po-cdk-") as outdir:
        assembly = build_app(outdir=outdir, context=context).synth()
        (stack,) = assembly.stacks  # one stack per shop (shopName names it)
        template = json.dumps(stack.template)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(template, encoding="utf-8")
    partial.replace(cached)  # atomic: a reader sees the whole template or none
    return template


def synthesize(context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The stack's template (a fresh copy) for these context values; each context is synthesized once."""
    return json.loads(_synthesize(json.dumps(dict(context or {}), sort_keys=True)))  # type: ignore[no-any-return]


def resources_of_type(template: Mapping[str, Any], resource_type: str) -> dict[str, dict[str, Any]]:
    """Logical id -> resource, for every resource of ``resource_type``."""
    return {k: v for k, v in template["Resources"].items() if v["Type"] == resource_type}


def render(value: Any, resolve: Resolver) -> Any:
    """Resolve the intrinsic functions CDK emits in state machine definitions and environments."""
    if isinstance(value, list):
        return [render(item, resolve) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, arg),) = value.items()
        if key == "Ref":
            return resolve(arg, None)
        if key == "Fn::GetAtt":
            return resolve(arg[0], arg[1])
        if key == "Fn::Join":
            return str(arg[0]).join(str(render(part, resolve)) for part in arg[1])
        if key == "Fn::Sub":
            return re.sub(
                r"\$\{([^}]+)\}", lambda m: _sub(m.group(1), resolve), arg if isinstance(arg, str) else arg[0]
            )
        if key == "Fn::Select":
            return render(arg[1], resolve)[int(arg[0])]
        if key == "Fn::Split":
            return str(render(arg[1], resolve)).split(arg[0])
    return {k: render(v, resolve) for k, v in value.items()}


def _sub(name: str, resolve: Resolver) -> str:
    logical_id, _, attribute = name.partition(".")
    return resolve(logical_id, attribute or None)


def state_machine_definition(template: Mapping[str, Any], resolve: Resolver) -> dict[str, Any]:
    """The one state machine's ASL definition as a dict, intrinsics resolved."""
    (machine,) = resources_of_type(template, "AWS::StepFunctions::StateMachine").values()
    return json.loads(render(machine["Properties"]["DefinitionString"], resolve))  # type: ignore[no-any-return]


def placeholder(logical_id: str, attribute: str | None) -> str:
    """A readable stand-in: ``<Logical.Attr>`` / ``<AWS::Partition>``."""
    return f"<{logical_id}.{attribute}>" if attribute else f"<{logical_id}>"


def function_ids(template: Mapping[str, Any]) -> dict[str, str]:
    """Handler module name (``decide``...) -> the logical id of its function."""
    return {
        fn["Properties"]["Handler"].split(".")[-2]: logical_id
        for logical_id, fn in resources_of_type(template, "AWS::Lambda::Function").items()
    }


def role_statements(template: Mapping[str, Any], module: str) -> list[dict[str, Any]]:
    """Every policy statement attached to the role of ``module``'s function."""
    function = template["Resources"][function_ids(template)[module]]
    role_id = function["Properties"]["Role"]["Fn::GetAtt"][0]
    found: list[dict[str, Any]] = []
    for policy in resources_of_type(template, "AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"]["Roles"]:
            found.extend(policy["Properties"]["PolicyDocument"]["Statement"])
    return found
