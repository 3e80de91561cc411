"""Who someone is, in one comparable form: every identity comparison goes through :func:`normalize_identity`.

An e-mail address or a name compares case-folded and trimmed (``Ana@Example.com `` is ``ana@example.com``).
An AWS caller is named by the ARN the Function URL's IAM authorizer verified, and becomes a person only
through the deployment's submitter map (context ``submitters``, env ``PO_SUBMITTERS``); a caller it does not
name is refused (SUBMITTER_UNKNOWN). A role session name alone proves nothing: whoever may ``sts:AssumeRole``
picks it. Only IAM Identity Center's roles (``AWSReservedSSO_…``, assumable only through Identity Center, which
sets the session name to the signed-in user's username) may name people by session name, in one of two forms:

- :data:`IDENTITY_CENTER`: every username is the person's approver address; a session whose name is not an
  address is refused at run start (SUBMITTER_UNMAPPED), so a username ``ana`` never passes for someone who is
  not ``ana@shop.example`` and then approves her own run;
- an object ``{"<username>": "<address>"}``: the approver address each username is; a username it does not
  list is refused (SUBMITTER_UNMAPPED).

A person is the approver identity the submitter corresponds to: an address, compared with the approver list
(separation of duties). A bare name (``ci-bot``) has no approver identity synth could check: it is refused
under separation of duties (infra/settings.py), and at run start too (a hand-edited ``PO_SUBMITTERS``).

    submitters {"arn:aws:iam::123456789012:role/Operator": "olga@shop.example",
                "arn:aws:iam::123456789012:user/ci-bot": "ci-bot@shop.example",
                "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Ops_0a1b":
                    "identity-center",
                "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Sales_9f8e":
                    {"bo.k": "bo@shop.example"}}
    arn:aws:sts::123456789012:assumed-role/Operator/anything            ->  olga@shop.example
    arn:aws:iam::123456789012:user/ci-bot                               ->  ci-bot@shop.example
    arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Ops_0a1b/Ana@Example.com  ->  ana@example.com
    arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Ops_0a1b/ana  ->  refused (SUBMITTER_UNMAPPED)
    arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Sales_9f8e/Bo.K  ->  bo@shop.example
    arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Sales_9f8e/eve  ->  refused (SUBMITTER_UNMAPPED)
    arn:aws:sts::123456789012:assumed-role/Other/ana@example.com        ->  refused (not mapped)

A run started by a customer's e-mail received by SES was asked for by the inbound channel, not by the
customer: its requester is the channel (``inbound:orders@shop.example``), which no approver is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from .errors import SubmitterUnknownError, SubmitterUnmappedError

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
# An Identity Center username as a session name carries it (STS: letters, digits and +=,.@-, at most 64).
_USERNAME = re.compile(r"^[A-Za-z0-9+=,.@_-]{1,64}\Z")
# What a principal ARN maps to: a person (an address, or a bare name), IDENTITY_CENTER, or an Identity Center
# role's usernames, each with the address it is (sorted pairs: settings are frozen and hashed).
UsernameMap = tuple[tuple[str, str], ...]
Submitter = str | UsernameMap


def _is_identity_center_role(match: re.Match[str]) -> bool:
    return match.group("kind") == "role" and match.group("path").rsplit("/", 1)[-1].startswith(_IDENTITY_CENTER_ROLE)


def _username_map(arn: str, raw: Mapping[object, object]) -> UsernameMap:
    pairs: dict[str, str] = {}
    for username, address in raw.items():
        name = normalize_identity(str(username))
        if not _USERNAME.match(name):
            raise ValueError(f"{arn!r}: {str(username)!r} is not an Identity Center username")
        if not isinstance(address, str) or not is_email_address(address.strip()):
            raise ValueError(f"{arn!r}: username {name!r} must map to the person's approver e-mail address")
        if name in pairs:
            raise ValueError(f"{arn!r}: username {name!r} is named twice")
        pairs[name] = normalize_identity(address)
    if not pairs:
        raise ValueError(f"{arn!r}: the username map is empty")
    return tuple(sorted(pairs.items()))


def parse_submitter_map(raw: Mapping[str, object]) -> dict[str, Submitter]:
    """Validate a submitter map (IAM user or role ARN -> person, :data:`IDENTITY_CENTER` or, for an Identity
    Center role, an object of usernames -> addresses); the people in their normalized form. ``ValueError`` names
    the first bad entry."""
    mapping: dict[str, Submitter] = {}
    for arn, person in raw.items():
        match = _USER_OR_ROLE.match(str(arn))
        if match is None:
            raise ValueError(f"{arn!r} is not an IAM user or role ARN (arn:aws:iam::<account>:role/<name>)")
        by_session = isinstance(person, Mapping | list | tuple) or normalize_identity(str(person)) == IDENTITY_CENTER
        if by_session and not _is_identity_center_role(match):
            raise ValueError(
                f"{arn!r}: only IAM Identity Center roles (AWSReservedSSO_...) may name people by session name"
            )
        if isinstance(person, Mapping):
            mapping[str(arn)] = _username_map(str(arn), person)
            continue
        if isinstance(person, list | tuple):  # the pairs form, as PO_SUBMITTERS round-trips through settings
            mapping[str(arn)] = _username_map(str(arn), dict(person))
            continue
        value = normalize_identity(str(person))
        if value != IDENTITY_CENTER and not _PERSON.match(value):
            raise ValueError(f"{arn!r}: the person must be an e-mail address or a name without spaces")
        mapping[str(arn)] = value
    return mapping


def submitters_env(mapping: Mapping[str, Submitter]) -> str:
    """The map as one environment value (compact JSON, sorted; a username map as an object)."""
    plain = {arn: person if isinstance(person, str) else dict(person) for arn, person in mapping.items()}
    return json.dumps(plain, sort_keys=True, separators=(",", ":"))


def unaddressed_people(mapping: Mapping[str, Submitter]) -> list[str]:
    """The people of ``mapping`` that are no address (bare names): their approver identity cannot be checked."""
    return sorted(
        {p for p in mapping.values() if isinstance(p, str) and p != IDENTITY_CENTER and not is_email_address(p)}
    )


def mapped_addresses(mapping: Mapping[str, Submitter]) -> set[str]:
    """Every address the map can make a requester of, besides :data:`IDENTITY_CENTER` sessions (any address)."""
    found: set[str] = set()
    for person in mapping.values():
        if isinstance(person, str):
            if person != IDENTITY_CENTER:
                found.add(person)
        else:
            found.update(address for _, address in person)
    return found


def requester_from_caller(user_arn: str, submitters: Mapping[str, Submitter], *, addresses_only: bool = False) -> str:
    """The person the authenticated caller ``user_arn`` is, by the submitter map (see the module docstring).

    ``SubmitterUnknownError`` when it is not a caller ARN or the map does not name it; ``SubmitterUnmappedError``
    when it is an Identity Center session whose username maps to no address, or (``addresses_only``: separation
    of duties) a person who is no address."""
    if not is_caller_arn(user_arn):
        raise SubmitterUnknownError("the caller is not named by an IAM or STS ARN")
    person = _person_of(user_arn, submitters)
    if addresses_only and not is_email_address(person):
        raise SubmitterUnmappedError(
            f"this caller is mapped to {person!r}, which is no e-mail address: under separation of duties a "
            "submitter must be the approver address it is (context submitters); nothing was submitted"
        )
    return person


def _person_of(user_arn: str, submitters: Mapping[str, Submitter]) -> str:
    direct = submitters.get(user_arn)
    if isinstance(direct, str) and direct != IDENTITY_CENTER:
        return direct
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
                if isinstance(person, str) and person != IDENTITY_CENTER:
                    return person
                return _session_person(normalize_identity(assumed.group("session")), person)
    raise SubmitterUnknownError(
        "this caller is not a known submitter (context submitters maps principal ARNs to people)"
    )


def _session_person(username: str, person: Submitter) -> str:
    """The address of the Identity Center user ``username``: the map's, or (``identity-center``) the username
    itself when it is one; else refused, nothing written."""
    if isinstance(person, str):  # IDENTITY_CENTER: the username is the address, or no one
        if is_email_address(username):
            return username
        raise SubmitterUnmappedError(
            "this Identity Center username is no e-mail address, so it cannot be compared with the approvers: map "
            'each username to its address (submitters {"<role ARN>": {"<username>": "<address>"}}); nothing was '
            "submitted"
        )
    for name, address in person:
        if name == username:
            return address
    raise SubmitterUnmappedError(
        "this Identity Center username is not in the role's username map (context submitters), so who it is "
        "cannot be compared with the approvers; nothing was submitted"
    )


def is_email_address(value: str) -> bool:
    """True for one plain address (``name@domain.tld``), as approver lists and the inbound address hold."""
    return _EMAIL.fullmatch(value) is not None


def channel_identity(address: str) -> str:
    """The requester of runs started by e-mails to ``address``; ``ValueError`` if it is not an address."""
    if not is_email_address(address.strip()):
        raise ValueError("the inbound address is not an e-mail address")
    return INBOUND_CHANNEL_PREFIX + normalize_identity(address)
