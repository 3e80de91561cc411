"""Recorded AWS calls (tests/support/lambda_process.py) as the IAM requests they are, checked against a role.

    [signing name, operation, keys] -> (IAM action, partition key or list prefix) per authorized item
    -> allowed by an Allow statement naming the action whose condition (if any) matches that value

Only what the stack's policies use is evaluated: Allow statements, actions, ForAllValues:StringLike on
dynamodb:LeadingKeys, StringLike on s3:prefix and StringEquals on ses:FromAddress (resources are this
stack's own and are asserted by the template tests).
"""

from __future__ import annotations

import glob
from collections.abc import Iterable, Iterator, Sequence
from fnmatch import fnmatchcase
from typing import Any

# Operations authorized under another action name.
RENAMED = {
    ("s3", "ListObjectsV2"): "s3:ListBucket",
    ("s3", "HeadObject"): "s3:GetObject",
    ("bedrock", "Converse"): "bedrock:InvokeModel",
    ("bedrock", "ConverseStream"): "bedrock:InvokeModelWithResponseStream",
}
# A transaction is authorized item by item, as the underlying single-item action.
TRANSACT_ITEMS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
    "Get": "dynamodb:GetItem",
}


def iam_requests(call: Sequence[Any]) -> Iterator[tuple[str, str | None]]:
    """(action, partition key or None) for one recorded call."""
    signing, operation, keys = call
    if signing == "dynamodb" and operation in ("TransactWriteItems", "TransactGetItems"):
        for entry in keys:
            kind, _, pk = str(entry).partition(":")
            yield TRANSACT_ITEMS[kind], pk
    elif signing == "dynamodb":
        for pk in keys or [None]:
            yield f"dynamodb:{operation}", pk
    else:
        yield RENAMED.get((signing, operation), f"{signing}:{operation}"), (keys[0] if keys else None)


def _actions(statement: dict[str, Any]) -> list[str]:
    action = statement["Action"]
    return action if isinstance(action, list) else [action]


def allowed(statements: Iterable[dict[str, Any]], action: str, partition_key: str | None) -> bool:
    """True when one Allow statement grants ``action`` on ``partition_key`` (or list prefix)."""
    for statement in statements:
        if statement.get("Effect") != "Allow" or action not in _actions(statement):
            continue
        conditions = statement.get("Condition")
        if not conditions:
            return True
        patterns = _modelled_patterns(conditions)
        if patterns is None:
            continue  # a condition this evaluator does not model: never counts as a grant
        if partition_key is not None and any(fnmatchcase(partition_key, p) for p in patterns):
            return True
    return False


def _modelled_patterns(conditions: dict[str, Any]) -> list[str] | None:
    for operator, key in (
        ("ForAllValues:StringLike", "dynamodb:LeadingKeys"),
        ("StringLike", "s3:prefix"),
        ("StringEquals", "ses:FromAddress"),  # an exact value is its own (wildcard-free) pattern
    ):
        if set(conditions) == {operator} and set(conditions[operator]) == {key}:
            patterns = conditions[operator][key]
            listed = patterns if isinstance(patterns, list) else [patterns]
            return [glob.escape(p) for p in listed] if operator == "StringEquals" else listed
    return None


def denied(statements: Sequence[dict[str, Any]], calls: Iterable[Sequence[Any]]) -> list[tuple[str, str | None]]:
    """The requests among ``calls`` the statements do not allow (empty: the role suffices)."""
    return sorted(
        {request for call in calls for request in iam_requests(call) if not allowed(statements, *request)},
        key=str,
    )
