"""The operator's policy as the deploy guide states it (step 6 of "Deploying for real"), for the tests that run
the operator's commands against it and the synth test that checks its placeholders are stack outputs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

DEPLOY_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "deploy.md"


def operator_policy() -> list[dict[str, Any]]:
    """The statements of the one JSON policy block in the guide's "Import your shop" step."""
    text = DEPLOY_GUIDE.read_text(encoding="utf-8")
    step = re.search(r"^\d+\. \*\*Import your shop\*\*(.*?)(?=^\d+\. \*\*)", text, re.S | re.M)
    assert step is not None, "the deploy guide has no 'Import your shop' step"
    (block,) = re.findall(r"```json\n(.*?)\n\s*```", step.group(1), re.S)
    statements: list[dict[str, Any]] = json.loads(block)["Statement"]
    return statements


def placeholders(statement: dict[str, Any]) -> list[str]:
    """The stack outputs a statement's resources name (``<TableArn>/index/open-runs`` names ``TableArn``)."""
    resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
    return [re.fullmatch(r"<(\w+)>(/.*)?", r).group(1) for r in resources]  # type: ignore[union-attr]
