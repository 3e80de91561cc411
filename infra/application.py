"""Builds the CDK app the same way for ``app.py``, ``npx cdk synth`` and the tests: stack + cdk-nag."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from .stack import ProductionOrchestratorStack

STACK_ID = "ProductionOrchestrator"
# Template tests and the local workflow runner synthesize without building the Lambda assets.
SKIP_BUNDLING: dict[str, Any] = {"aws:cdk:bundling-stacks": []}


def build_app(*, outdir: str | None = None, context: Mapping[str, Any] | None = None) -> cdk.App:
    """The app with the stack and AwsSolutions checks; ``app.synth()`` raises on an unacknowledged finding."""
    app = cdk.App(outdir=outdir, context=dict(context or {}))
    ProductionOrchestratorStack(app, STACK_ID, description="Production Orchestrator: human-approved agent plans")
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def stack_of(app: cdk.App) -> ProductionOrchestratorStack:
    """The one stack of an app built by :func:`build_app`."""
    stack = app.node.find_child(STACK_ID)
    assert isinstance(stack, ProductionOrchestratorStack)
    return stack
