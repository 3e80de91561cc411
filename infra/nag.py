"""cdk-nag acknowledgements, each with the reason an auditor reads."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct


def acknowledge(scope: IConstruct, rule_id: str, reason: str) -> None:
    """Accept finding ``rule_id`` (e.g. ``AwsSolutions-IAM5[Resource::*]``) on ``scope`` and its children."""
    Validations.of(scope).acknowledge(Acknowledgment(id=rule_id, reason=reason))
