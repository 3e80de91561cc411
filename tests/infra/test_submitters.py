"""Separation of duties for every identity source, at synth: each submitter names the approver address it is
(an IAM role or user an address; an Identity Center role ``identity-center``, usernames being addresses, or a
map of usernames to addresses), compared with the approvers trimmed and case-folded; a mapping synth cannot
check is refused under separation of duties, in one line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.application import build_app
from infra.settings import DEFAULTS, Settings
from production_orchestrator.domain.errors import ConfigurationError
from tests.support.cdk_template import resources_of_type, synthesize

ACCOUNT = "123456789012"
SENDER = "orders@shop.example.com"
OPS_ROLE = f"arn:aws:iam::{ACCOUNT}:role/ShopOperator"
SSO_ROLE = f"arn:aws:iam::{ACCOUNT}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Sales_0a1b2c3d"
# One approver: a run one of them submits could never be approved by the others.
ONE_APPROVER = {**DEFAULTS, "approverEmails": "Ana@Example.com", "senderEmail": SENDER}


def _refused(raw: dict[str, Any]) -> str:
    with pytest.raises(ConfigurationError) as refused:
        Settings.parse(raw)
    message = str(refused.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("person", ["ci-bot", "olga", "Ops-Team"])
def test_an_iam_role_mapped_to_a_bare_name_is_refused_under_separation_of_duties(person: str) -> None:
    """``olga`` may be approver olga@shop.example: synth cannot tell, so it refuses; an address it can compare."""
    raw = {**ONE_APPROVER, "approverEmails": "ana@example.com,ben@example.com"}
    message = _refused({**raw, "submitters": json.dumps({OPS_ROLE: person})})
    assert person.casefold() in message and "no e-mail address" in message
    assert Settings.parse({**raw, "submitters": json.dumps({OPS_ROLE: f"{person}@shop.example"})})
    off = Settings.parse({**raw, "separationOfDuties": "false", "submitters": json.dumps({OPS_ROLE: person})})
    assert dict(off.submitters) == {OPS_ROLE: person.casefold()}


@pytest.mark.parametrize(
    "submitters",
    [
        {OPS_ROLE: "  ANA@example.COM "},  # an IAM role, the approver's address in another case and spacing
        {f"arn:aws:iam::{ACCOUNT}:user/ana": "ana@EXAMPLE.com"},  # an IAM user
        {SSO_ROLE: {"ana.s": "Ana@Example.Com"}},  # an Identity Center username that is no address
        {SSO_ROLE: {"bo": "bo@example.com", "ANA": " ana@example.com"}},
    ],
)
def test_an_approver_who_may_submit_is_seen_whatever_the_identity_source_or_case(submitters: dict[str, Any]) -> None:
    """The one approver may submit, so nobody could approve her runs: refused, naming her folded address."""
    message = _refused({**ONE_APPROVER, "submitters": json.dumps(submitters)})
    assert message.startswith("ana@example.com may submit runs")
    # With a second approver her runs are approvable by him.
    assert Settings.parse(
        {**ONE_APPROVER, "approverEmails": "Ana@Example.com,ben@example.com", "submitters": json.dumps(submitters)}
    )


@pytest.mark.parametrize(
    "person",
    [
        {"ana": "ana"},  # a username maps to an address
        {"ana": "a@example.com", "ANA": "b@example.com"},  # one username, two people
        {"two words": "a@example.com"},
        {},
        ["ana", "ana@example.com"],
    ],
)
def test_an_identity_center_username_map_synth_cannot_check_is_refused(person: Any) -> None:
    with pytest.raises(ConfigurationError, match="submitters"):
        Settings.parse({**ONE_APPROVER, "submitters": json.dumps({SSO_ROLE: person})})


def test_a_username_map_is_for_identity_center_roles_only() -> None:
    with pytest.raises(ConfigurationError, match="Identity Center roles"):
        Settings.parse({**ONE_APPROVER, "submitters": json.dumps({OPS_ROLE: {"ana": "ana@example.com"}})})


def test_the_submit_function_gets_the_username_map_folded() -> None:
    """What the submit function reads (PO_SUBMITTERS): usernames and addresses trimmed and case-folded."""
    submitters = {SSO_ROLE: {" Bo.K ": "BO@Shop.Example"}, OPS_ROLE: "Olga@Shop.Example"}
    template = synthesize(
        {
            "approverEmails": "ana@example.com,ben@example.com",
            "senderEmail": SENDER,
            "submitters": json.dumps(submitters),
        }
    )
    (env,) = [
        fn["Properties"]["Environment"]["Variables"]["PO_SUBMITTERS"]
        for fn in resources_of_type(template, "AWS::Lambda::Function").values()
        if fn["Properties"]["Handler"].endswith(".submit.handler")
    ]
    assert json.loads(env) == {SSO_ROLE: {"bo.k": "bo@shop.example"}, OPS_ROLE: "olga@shop.example"}


def test_synth_itself_refuses_a_bare_name_under_separation_of_duties(tmp_path: Any) -> None:
    """Not only Settings.parse: the app refuses to synthesize, so no template exists to deploy."""
    context = {
        "aws:cdk:bundling-stacks": [],
        "approverEmails": "ana@example.com,ben@example.com",
        "senderEmail": SENDER,
        "submitters": json.dumps({OPS_ROLE: "ana"}),
    }
    with pytest.raises(ConfigurationError, match="no e-mail address"):
        build_app(outdir=str(tmp_path), context=context).synth()
    assert not (tmp_path / "manifest.json").exists()


def test_an_identity_center_role_any_approver_may_submit_through_must_leave_the_quorum_reachable() -> None:
    """``identity-center`` makes any approver address a possible requester (synth cannot list the usernames): a
    quorum the shop set must be reachable by the other approvers, or synth refuses, naming the role."""
    raw = {
        **ONE_APPROVER,
        "approverEmails": "ana@example.com,ben@example.com",
        "quorum": "2",
        "quorumAboveQuantity": "100",
        "submitters": json.dumps({SSO_ROLE: "identity-center"}),
    }
    message = _refused(raw)
    assert "identity-center" in message and SSO_ROLE in message and "separationOfDuties=false" in message
    assert Settings.parse({**raw, "separationOfDuties": "false"})
    assert Settings.parse({**raw, "approverEmails": "ana@example.com,ben@example.com,cy@example.com"})
    # One approval (no quorum): a lone owner approves the staff's runs; a run she submitted herself is refused
    # at its start (nobody else may approve it), not at synth.
    assert Settings.parse({**ONE_APPROVER, "submitters": json.dumps({SSO_ROLE: "identity-center"})})
