"""``submit``'s AWS session (for ``--stack``'s CloudFormation read and the signature): ``--region``, else
``$AWS_REGION`` (which boto3 itself does not read), else the profile's; ``--profile`` names the profile."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from production_orchestrator.cli.commands.submit import _session


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    config = tmp_path / "config"
    config.write_text("[profile shop-ops]\nregion = ap-south-1\n", encoding="utf-8")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    return "shop-ops"


def test_the_region_comes_from_the_flag_then_aws_region_then_the_profile(
    profile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _session(argparse.Namespace(profile=profile, region=None)).region_name == "ap-south-1"
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert _session(argparse.Namespace(profile=profile, region=None)).region_name == "eu-central-1"
    assert _session(argparse.Namespace(profile=profile, region="us-west-2")).region_name == "us-west-2"
