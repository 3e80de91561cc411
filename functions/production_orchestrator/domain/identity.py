"""Who someone is, in one comparable form: every identity comparison goes through :func:`normalize_identity`.

An e-mail address or a name compares case-folded and trimmed (``Ana@Example.com `` is ``ana@example.com``).
An AWS caller is named by the ARN the Function URL's IAM authorizer verified, and becomes a person only
through the deployment's submitter map (context ``submitters``, env ``PO_SUBMITTERS``); a caller it does not
name is refused. A role session name alone proves nothing: whoever may ``sts:AssumeRole`` picks it. Only IAM
Identity Center's roles (``AWSReservedSSO_…``, assumable only through Identity Center, which sets the session
name to the signed-in user) may be mapped to :data:`IDENTITY_CENTER`, "the session name is the person".

    submitters {"arn:aws:iam::123456789012:role/Operator": "olga@shop.example",
                "arn:aws:iam::123456789012:user/ci-bot": "ci-bot",
                "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Ops_0a1b":
                    "identity-center"}
    arn:aws:sts::123456789012:assumed-role/Operator/anything            ->  olga@shop.example
    arn:aws:iam::123456789012:user/ci-bot                               ->  ci-bot
    arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Ops_0a1b/Ana@Example.com  ->  ana@example.com
    arn:aws:sts::123456789012:assumed-role/Other/ana@example.com        ->  refused (not mapped)

A run started by a customer's e-mail received by SES was asked for by the inbound channel, not by the
customer: its requester is the channel (``inbound:orders@shop.example``), which no approver is.
"""

from __future__ import annotations

import json
import re

_ASSUMED_ROLE_PARTS = re.compile(
    r"^arn:aws[a-z-]*:sts::(?P<account>\d{12}):assumed-role/(?P<role>[^/]+)/(?P<session>[^/]+)\Z"
)
_EMAIL = re.compile(r"^[^@\s,]{1,64}@[A-Za-z0-9.-]{1,255}\.[A-Za-z]{2,}\Z")
INBOUND_CHANNEL_PREFIX = "inbound:"
_CALLER_ARN = re.compile(r"^arn:aws[a-z-]*:(iam|sts)::\d{12}:[A-Za-z0-9+=,.@_/-]{1,512}\Z")


def normalize_identity(value: str) -> str:
    """The comparable form of a person or caller: trimmed and case-folded."""
    return value.strip().casefold()


def is_caller_arn(value: str) -> bool:
    """True for an IAM user/role or STS assumed-role ARN (what an IAM-authorized caller is named by)."""
    return _CALLER_ARN.fullmatch(value) is not None


IDENTITY_CENTER = "identity-center"
_IDENTITY_CENTER_ROLE = "AWSReservedSSO_"
_USER_OR_ROLE = re.compile(
    r"^arn:(?P<partition>aws[a-z-]*):iam::(?P<account>\d{12}):(?P<kind>user|role)/(?P<path>[A-Za-z0-9+=,.@_/-]{1,512})\Z"
)
_PERSON = re.compile(r"^[^\s,]{1,254}\Z")


def parse_submitter_map(raw: dict[str, object]) -> dict[str, str]:
    """Validate a submitter map (IAM user or role ARN -> person); the people in their normalized form.
    ``ValueError`` names the first bad entry."""
    mapping: dict[str, str] = {}
    for arn, person in raw.items():
        match = _USER_OR_ROLE.match(str(arn))
        if match is None:
            raise ValueError(f"{arn!r} is not an IAM user or role ARN (arn:aws:iam::<account>:role/<name>)")
        value = normalize_identity(str(person))
        if value == IDENTITY_CENTER:
            if match.group("kind") != "role" or not match.group("path").rsplit("/", 1)[-1].startswith(
                _IDENTITY_CENTER_ROLE
            ):
                raise ValueError(
                    f"{arn!r}: only IAM Identity Center roles (AWSReservedSSO_...) may name people by session name"
                )
        elif not _PERSON.match(value):
            raise ValueError(f"{arn!r}: the person must be an e-mail address or a name without spaces")
        mapping[str(arn)] = value
    return mapping


def submitters_env(mapping: dict[str, str]) -> str:
    """The map as one environment value (compact JSON, sorted)."""
    return json.dumps(mapping, sort_keys=True, separators=(",", ":"))


def requester_from_caller(user_arn: str, submitters: dict[str, str]) -> str:
    """The person the authenticated caller ``user_arn`` is, by the submitter map; ``ValueError`` when it is not a
    caller ARN or the map does not name it (see the module docstring)."""
    if not is_caller_arn(user_arn):
        raise ValueError("the caller is not named by an IAM or STS ARN")
    if user_arn in submitters and submitters[user_arn] != IDENTITY_CENTER:
        return submitters[user_arn]
    assumed = _ASSUMED_ROLE_PARTS.match(user_arn)
    if assumed:
        for arn, person in submitters.items():
            role = _USER_OR_ROLE.match(arn)
            if (
                role is not None
                and role.group("kind") == "role"
                and role.group("account") == assumed.group("account")
                and role.group("path").rsplit("/", 1)[-1] == assumed.group("role")
            ):
                return normalize_identity(assumed.group("session")) if person == IDENTITY_CENTER else person
    raise ValueError("this caller is not a known submitter (context submitters maps principal ARNs to people)")


def is_email_address(value: str) -> bool:
    """True for one plain address (``name@domain.tld``), as approver lists and the inbound address hold."""
    return _EMAIL.fullmatch(value) is not None


def channel_identity(address: str) -> str:
    """The requester of runs started by e-mails to ``address``; ``ValueError`` if it is not an address."""
    if not is_email_address(address.strip()):
        raise ValueError("the inbound address is not an e-mail address")
    return INBOUND_CHANNEL_PREFIX + normalize_identity(address)
