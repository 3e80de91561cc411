"""One comparable form for people and AWS callers."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.identity import normalize_identity, requester_from_caller

ACCOUNT = "123456789012"


@pytest.mark.parametrize(
    ("arn", "requester"),
    [
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/ShopOperator/Olga@Shop.Example", "olga@shop.example"),
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/AWSReservedSSO_Ops_0123/ana@example.com", "ana@example.com"),
        (
            f"arn:aws:sts::{ACCOUNT}:assumed-role/Deployer/session-1",
            f"arn:aws:sts::{ACCOUNT}:assumed-role/deployer/session-1",
        ),
        (f"arn:aws:iam::{ACCOUNT}:user/CI-Bot", f"arn:aws:iam::{ACCOUNT}:user/ci-bot"),
        (f"arn:aws-us-gov:sts::{ACCOUNT}:assumed-role/R/bob@gov.example", "bob@gov.example"),
    ],
)
def test_a_caller_stands_for_its_session_email_or_its_arn(arn: str, requester: str) -> None:
    assert requester_from_caller(arn) == requester


@pytest.mark.parametrize("arn", ["", "olga@shop.example", "arn:aws:s3:::bucket", f"arn:aws:sts::{ACCOUNT}:"])
def test_anything_but_a_caller_arn_is_refused(arn: str) -> None:
    with pytest.raises(ValueError):
        requester_from_caller(arn)


def test_identities_compare_trimmed_and_case_folded() -> None:
    assert normalize_identity("  Ana@Example.COM ") == normalize_identity("ana@example.com") == "ana@example.com"
    assert normalize_identity("STRASSE") == normalize_identity("straße")
