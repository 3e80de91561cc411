"""One comparable form for people; AWS callers become people only through the deployment's submitter map."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import SubmitterUnknownError, SubmitterUnmappedError
from production_orchestrator.domain.identity import (
    IDENTITY_CENTER,
    normalize_identity,
    parse_submitter_map,
    requester_from_caller,
    submitters_env,
)

ACCOUNT = "123456789012"
SSO_ROLE = "AWSReservedSSO_Ops_0123"
SALES_ROLE = "AWSReservedSSO_Sales_4567"
SUBMITTERS = parse_submitter_map(
    {
        f"arn:aws:iam::{ACCOUNT}:role/ShopOperator": "Olga@Shop.Example",
        f"arn:aws:iam::{ACCOUNT}:user/CI-Bot": "ci-bot",
        f"arn:aws:iam::{ACCOUNT}:role/aws-reserved/sso.amazonaws.com/{SSO_ROLE}": IDENTITY_CENTER,
        f"arn:aws-us-gov:iam::{ACCOUNT}:role/R": "bob@gov.example",
        # Identity Center usernames that are not addresses, each named with the approver address it is
        f"arn:aws:iam::{ACCOUNT}:role/aws-reserved/sso.amazonaws.com/{SALES_ROLE}": {
            "Ana": " ANA@Example.com ",
            "bo.k": "bo@example.com",
        },
    }
)


@pytest.mark.parametrize(
    ("arn", "requester"),
    [
        # a role is one person, whatever session name its caller picked
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/ShopOperator/Olga@Shop.Example", "olga@shop.example"),
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/ShopOperator/ana@example.com", "olga@shop.example"),
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/ShopOperator/build-42", "olga@shop.example"),
        # Identity Center sets the session name to the signed-in user
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/{SSO_ROLE}/Ana@Example.com", "ana@example.com"),
        (f"arn:aws:iam::{ACCOUNT}:user/CI-Bot", "ci-bot"),
        (f"arn:aws-us-gov:sts::{ACCOUNT}:assumed-role/R/someone", "bob@gov.example"),
        # the username map: each username (in any case) is the address it names
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/{SALES_ROLE}/ana", "ana@example.com"),
        (f"arn:aws:sts::{ACCOUNT}:assumed-role/{SALES_ROLE}/BO.K", "bo@example.com"),
    ],
)
def test_a_mapped_caller_is_its_person(arn: str, requester: str) -> None:
    assert requester_from_caller(arn, SUBMITTERS) == requester


@pytest.mark.parametrize(
    "arn",
    [
        "",
        "olga@shop.example",
        "arn:aws:s3:::bucket",
        f"arn:aws:sts::{ACCOUNT}:",
        # the trap: a session named after an approver, of a role nobody mapped
        f"arn:aws:sts::{ACCOUNT}:assumed-role/Deployer/ana@example.com",
        "arn:aws:sts::999999999999:assumed-role/ShopOperator/olga@shop.example",  # same role name, other account
        f"arn:aws:iam::{ACCOUNT}:user/ci-bot-2",
    ],
)
def test_anything_unmapped_is_refused(arn: str) -> None:
    with pytest.raises(SubmitterUnknownError) as refused:
        requester_from_caller(arn, SUBMITTERS)
    assert refused.value.code == "SUBMITTER_UNKNOWN"


@pytest.mark.parametrize(
    "arn",
    [
        # identity-center: a username that is no address cannot be compared with the approvers' addresses
        f"arn:aws:sts::{ACCOUNT}:assumed-role/{SSO_ROLE}/ana",
        f"arn:aws:sts::{ACCOUNT}:assumed-role/{SSO_ROLE}/ana@example",
        # a username map: a user it does not list, even one named like an approver's address
        f"arn:aws:sts::{ACCOUNT}:assumed-role/{SALES_ROLE}/eve",
        f"arn:aws:sts::{ACCOUNT}:assumed-role/{SALES_ROLE}/ben@example.com",
    ],
)
def test_an_identity_center_user_with_no_address_is_unmapped(arn: str) -> None:
    with pytest.raises(SubmitterUnmappedError) as refused:
        requester_from_caller(arn, SUBMITTERS)
    assert refused.value.code == "SUBMITTER_UNMAPPED"


def test_under_separation_of_duties_a_bare_name_is_unmapped_and_an_address_is_not() -> None:
    with pytest.raises(SubmitterUnmappedError):
        requester_from_caller(f"arn:aws:iam::{ACCOUNT}:user/CI-Bot", SUBMITTERS, addresses_only=True)
    olga = f"arn:aws:sts::{ACCOUNT}:assumed-role/ShopOperator/x"
    assert requester_from_caller(olga, SUBMITTERS, addresses_only=True) == "olga@shop.example"


def test_the_map_survives_its_environment_form() -> None:
    """PO_SUBMITTERS is the map as JSON; the submit function parses it back to the same map."""
    import json

    assert parse_submitter_map(json.loads(submitters_env(SUBMITTERS))) == SUBMITTERS


def test_nobody_may_submit_without_a_map() -> None:
    with pytest.raises(SubmitterUnknownError, match="not a known submitter"):
        requester_from_caller(f"arn:aws:sts::{ACCOUNT}:assumed-role/ShopOperator/olga@shop.example", {})


@pytest.mark.parametrize(
    "raw",
    [
        {"arn:aws:sts::123456789012:assumed-role/ShopOperator/olga": "olga"},  # sessions are not principals
        {"ShopOperator": "olga"},
        {f"arn:aws:iam::{ACCOUNT}:role/ShopOperator": IDENTITY_CENTER},  # only SSO roles name people by session
        {f"arn:aws:iam::{ACCOUNT}:role/ShopOperator": "two words"},
        {f"arn:aws:iam::{ACCOUNT}:role/ShopOperator": {"ana": "ana@example.com"}},  # usernames: SSO roles only
        {f"arn:aws:iam::{ACCOUNT}:role/{SSO_ROLE}": {"ana": "ana"}},  # a username maps to an address
        {f"arn:aws:iam::{ACCOUNT}:role/{SSO_ROLE}": {"ana": "a@example.com", "ANA": "b@example.com"}},
        {f"arn:aws:iam::{ACCOUNT}:role/{SSO_ROLE}": {"two words": "a@example.com"}},
        {f"arn:aws:iam::{ACCOUNT}:role/{SSO_ROLE}": {}},
    ],
)
def test_a_bad_map_is_refused(raw: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        parse_submitter_map(raw)


def test_identities_compare_trimmed_and_case_folded() -> None:
    assert normalize_identity("  Ana@Example.COM ") == normalize_identity("ana@example.com") == "ana@example.com"
    assert normalize_identity("STRASSE") == normalize_identity("straße")
