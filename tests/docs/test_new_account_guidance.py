"""What a brand-new account needs from the deploy guide, and the licence the package declares (issue 29): the
guide names the SES receiving regions and says to check the live list, describes Bedrock as it is in 2026
(first-use enablement, quotas, cross-region inference; the retired Model access page only as retired), lists the
AWS CLI and activates the virtualenv; LICENSE is Apache-2.0 and the package metadata says so."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from tests.support.deploy_guide import DEPLOY_GUIDE

ROOT = Path(__file__).resolve().parents[2]
GUIDE = DEPLOY_GUIDE.read_text(encoding="utf-8")
RECEIVING = ("us-east-1", "us-west-2", "eu-west-1")  # receiving regions since SES offered it


def _step(title: str) -> str:
    found = re.search(rf"^\d+\. \*\*{re.escape(title)}[^*]*\*\*(.*?)(?=^\d+\. \*\*|\Z)", GUIDE, re.S | re.M)
    assert found is not None, title
    return " ".join(found.group(1).split())  # the prose as one line: line breaks fall anywhere


def test_the_region_step_names_the_receiving_regions_and_where_to_check_them() -> None:
    step = _step("Bootstrap")
    assert all(f"`{region}`" in step for region in RECEIVING)
    assert "receiving" in step.lower() and "docs.aws.amazon.com/general/latest/gr/ses.html" in step
    assert "any region that has SES" not in GUIDE


def test_the_bedrock_step_is_about_first_use_quotas_and_inference_profiles() -> None:
    step = _step("Bedrock").lower()
    assert "no longer has a *model access* page" in step  # named only as gone
    for fact in ("first use", "service quotas", "cross-region", "inference profile", "throttl"):
        assert fact in step, fact


def test_the_tools_step_lists_the_aws_cli_and_activates_the_virtualenv() -> None:
    step = _step("Tools and credentials")
    assert "AWS CLI" in step and "source .venv/bin/activate" in step


def test_the_licence_is_apache_2_and_the_package_says_so() -> None:
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").split()[:4] == ["Apache", "License", "Version", "2.0,"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (project["license"], project["license-files"], project["readme"]) == ("Apache-2.0", ["LICENSE"], "README.md")
    assert {"Homepage", "Source", "Issues", "Documentation"} <= set(project["urls"])
    assert any(c.startswith("Programming Language :: Python :: 3.12") for c in project["classifiers"])
    installed = metadata.metadata("production-orchestrator")
    assert installed.get("License-Expression") == "Apache-2.0" or installed.get("License") == "Apache-2.0"
