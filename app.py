#!/usr/bin/env python3
"""CDK app entry point: ``npx cdk synth`` or ``python app.py`` (writes to ``cdk.out``)."""

from __future__ import annotations

import os

import aws_cdk as cdk

from infra.stack import ProductionOrchestratorStack

app = cdk.App(outdir=os.environ.get("CDK_OUTDIR", "cdk.out"))
ProductionOrchestratorStack(app, "ProductionOrchestrator")
app.synth()
