"""Builds the CDK app the same way for ``app.py``, ``npx cdk synth`` and the tests: stack + cdk-nag."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from .stack import ProductionOrchestratorStack

STACK_ID = "ProductionOrchestrator"
# Template tests and the local workflow runner synthesize without building the Lambda assets.
SKIP_BUNDLING: dict[str, Any] = {"aws:cdk:bundling-stacks": []}
CDK_JSON = Path(__file__).resolve().parent.parent / "cdk.json"


def project_context() -> dict[str, Any]:
    """The ``context`` of ``cdk.json`` (the feature flags): the CLI passes it to the app, and the tests
    and ``python app.py`` must synthesize the same template, so the app reads it too."""
    return dict(json.loads(CDK_JSON.read_text(encoding="utf-8")).get("context", {}))


def build_app(*, outdir: str | None = None, context: Mapping[str, Any] | None = None) -> cdk.App:
    """The app with the stack and AwsSolutions checks; ``app.synth()`` raises on an unacknowledged finding.

    ``context`` and the CLI's (``-c``, ``CDK_CONTEXT_JSON``) take precedence over ``cdk.json``'s.
    """
    app = cdk.App(outdir=outdir, context={**project_context(), **dict(context or {})})
    ProductionOrchestratorStack(app, STACK_ID, description="Production Orchestrator: human-approved agent plans")
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def stack_of(app: cdk.App) -> ProductionOrchestratorStack:
    """The one stack of an app built by :func:`build_app`."""
    stack = app.node.find_child(STACK_ID)
    assert isinstance(stack, ProductionOrchestratorStack)
    return stack
