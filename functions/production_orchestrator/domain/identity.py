"""Who someone is, in one comparable form: every identity comparison goes through :func:`normalize_identity`.

An e-mail address or a name compares case-folded and trimmed (``Ana@Example.com `` is ``ana@example.com``).
An AWS caller is named by the ARN the Function URL's IAM authorizer verified; a role session whose name
is an e-mail address (IAM Identity Center, most SSO set-ups) is that person, so it is the address, which is
what the approver list holds and what separation of duties compares against.

    arn:aws:sts::123456789012:assumed-role/Operator/Olga@Shop.example  ->  olga@shop.example
    arn:aws:iam::123456789012:user/ci-bot                               ->  arn:aws:iam::123456789012:user/ci-bot

A run started by a customer's e-mail received by SES was asked for by the inbound channel, not by the
customer: its requester is the channel (``inbound:orders@shop.example``), which no approver is.
"""

from __future__ import annotations

import re

_ASSUMED_ROLE = re.compile(r"^arn:aws[a-z-]*:sts::\d{12}:assumed-role/[^/]+/(?P<session>[^/]+)\Z")
_EMAIL = re.compile(r"^[^@\s,]{1,64}@[A-Za-z0-9.-]{1,255}\.[A-Za-z]{2,}\Z")
INBOUND_CHANNEL_PREFIX = "inbound:"
_CALLER_ARN = re.compile(r"^arn:aws[a-z-]*:(iam|sts)::\d{12}:[A-Za-z0-9+=,.@_/-]{1,512}\Z")


def normalize_identity(value: str) -> str:
    """The comparable form of a person or caller: trimmed and case-folded."""
    return value.strip().casefold()


def is_caller_arn(value: str) -> bool:
    """True for an IAM user/role or STS assumed-role ARN (what an IAM-authorized caller is named by)."""
    return _CALLER_ARN.fullmatch(value) is not None


def requester_from_caller(user_arn: str) -> str:
    """The requester an authenticated AWS caller stands for (see the module docstring); ``ValueError`` if
    ``user_arn`` is not a caller ARN."""
    if not is_caller_arn(user_arn):
        raise ValueError("the caller is not named by an IAM or STS ARN")
    assumed = _ASSUMED_ROLE.fullmatch(user_arn)
    if assumed and _EMAIL.fullmatch(assumed.group("session")):
        return normalize_identity(assumed.group("session"))
    return normalize_identity(user_arn)


def is_email_address(value: str) -> bool:
    """True for one plain address (``name@domain.tld``), as approver lists and the inbound address hold."""
    return _EMAIL.fullmatch(value) is not None


def channel_identity(address: str) -> str:
    """The requester of runs started by e-mails to ``address``; ``ValueError`` if it is not an address."""
    if not is_email_address(address.strip()):
        raise ValueError("the inbound address is not an e-mail address")
    return INBOUND_CHANNEL_PREFIX + normalize_identity(address)
