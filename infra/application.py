"""Builds the CDK app the same way for ``app.py``, ``npx cdk synth`` and the tests: stack + cdk-nag.

One stack per shop: ``-c shopName=<name>`` names the stack ``ProductionOrchestrator-<name>`` (without it, the
one shop's stack is ``ProductionOrchestrator``), and every physical name (table, bucket, functions, topics,
keys, log groups, rule names) derives from the stack's name, so two shops deploy side by side in one account and
region with nothing in common but the region's active SES receipt rule set (infra/constructs/inbound_mail.py).
Every resource is tagged ``project`` and ``shop``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from production_orchestrator.domain.errors import ConfigurationError

from .settings import DEFAULT_SHOP, parse_shop_name
from .stack import ProductionOrchestratorStack

STACK_ID = "ProductionOrchestrator"
PROJECT_TAG = "production-orchestrator"
# Template tests and the local workflow runner synthesize without building the Lambda assets. The CDK CLI refuses
# user context keys under ``aws:`` (``-c aws:cdk:bundling-stacks=[]``), so on the command line it is
# ``-c bundling=off``, which the app turns into the same key.
SKIP_BUNDLING: dict[str, Any] = {"aws:cdk:bundling-stacks": []}
BUNDLING_CONTEXT = "bundling"
CDK_JSON = Path(__file__).resolve().parent.parent / "cdk.json"


def project_context() -> dict[str, Any]:
    """The ``context`` of ``cdk.json`` (the feature flags): the CLI passes it to the app, and the tests
    and ``python app.py`` must synthesize the same template, so the app reads it too."""
    return dict(json.loads(CDK_JSON.read_text(encoding="utf-8")).get("context", {}))


def stack_id_for(shop: str) -> str:
    """The stack (and CloudFormation stack name) of ``shop``: the default shop keeps the unsuffixed name."""
    return STACK_ID if shop == DEFAULT_SHOP else f"{STACK_ID}-{shop}"


def build_app(*, outdir: str | None = None, context: Mapping[str, Any] | None = None) -> cdk.App:
    """The app with the shop's stack and AwsSolutions checks; ``app.synth()`` raises on an unacknowledged finding.

    ``context`` and the CLI's (``-c``, ``CDK_CONTEXT_JSON``) take precedence over ``cdk.json``'s.
    """
    app = cdk.App(outdir=outdir, context={**project_context(), **dict(context or {})})
    bundling = str(app.node.try_get_context(BUNDLING_CONTEXT) or "on").strip().lower()
    if bundling not in ("on", "off"):
        raise ConfigurationError("bundling must be on or off (off: the template only, no Lambda assets built)")
    if bundling == "off":
        app.node.set_context(next(iter(SKIP_BUNDLING)), [])
    shop = parse_shop_name(app.node.try_get_context("shopName"))
    stack = ProductionOrchestratorStack(
        app,
        stack_id_for(shop),
        description=f"Production Orchestrator ({shop}): human-approved agent plans",
    )
    cdk.Tags.of(stack).add("project", PROJECT_TAG)
    cdk.Tags.of(stack).add("shop", shop)
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def stack_of(app: cdk.App) -> ProductionOrchestratorStack:
    """The one stack of an app built by :func:`build_app`."""
    stacks = [child for child in app.node.children if isinstance(child, ProductionOrchestratorStack)]
    assert len(stacks) == 1, stacks
    return stacks[0]
