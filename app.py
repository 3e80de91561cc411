#!/usr/bin/env python3
"""CDK app entry point: ``npx cdk synth`` or ``python app.py`` (writes to ``cdk.out`` or ``$CDK_OUTDIR``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The stack takes error class names and validation from the runtime package (functions/).
sys.path.insert(0, str(Path(__file__).resolve().parent / "functions"))

from infra.application import build_app

build_app(outdir=os.environ.get("CDK_OUTDIR", "cdk.out")).synth()
