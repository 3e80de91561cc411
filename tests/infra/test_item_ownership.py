"""Least privilege per item type: every function's role, tried on every write of every item type the table
holds, as IAM evaluates it (tests/support/iam_calls.py) on the synthesized template's policies.

The owners below are the design's (docs/dynamodb-design.md), written here independently of
infra/permissions.py: a grant added there that the design does not give fails this test. The sample keys come
from the adapter's own key builders (adapters/aws/table_schema.py), so they are the keys its writes send.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

import pytest

from infra.permissions import ITEM_TYPES
from production_orchestrator.adapters.aws import table_schema as t
from tests.support.cdk_template import function_ids, role_statements, synthesize
from tests.support.iam_calls import denied

CONTEXT = {
    "approverEmails": "a@example.com,b@example.com",
    "inboundAddress": "orders@shop.example",
    "senderEmail": "orders@shop.example",
}
HASH = "a" * 64
CHECKPOINT = "ckpt-" + "b" * 32
APPROVAL = "appr-" + "c" * 32
# One real key per item type, as the adapter builds it.
SAMPLE_KEYS: dict[str, tuple[str, str]] = {
    "shop state": t.state_key(),
    "checkpoint": t.checkpoint_key(CHECKPOINT),
    "decision": t.decision_key(CHECKPOINT),
    "application": t.application_key(HASH),
    "outbox message": t.outbox_key(f"{HASH}#00"),
    "approval pointer": t.approval_of_key(CHECKPOINT, APPROVAL),
    "approval": (t.APPROVAL_PK_PREFIX + APPROVAL, t.APPROVAL_SK),
    "audit chain": (t.AUDIT_PK, f"{t.AUDIT_SK_PREFIX}{7:012d}"),
    "proposal": (t.PROPOSAL_PK_PREFIX + HASH, t.PROPOSAL_SK),
    "state snapshot": (t.SNAPSHOT_PK_PREFIX + HASH, t.SNAPSHOT_CHUNK_SK_PREFIX + "0000"),
    "submission": (t.SUBMISSION_PK_PREFIX + "sub-" + "d" * 32, t.SUBMISSION_SK),
    "request key": (t.RUN_REQUEST_PK_PREFIX + HASH, "GEN#000000"),
    "Message-ID pointer": (t.RUN_MESSAGE_PK_PREFIX + HASH, "RUN#" + CHECKPOINT),
    "held request": (t.HELD_PK, t.HELD_SK_PREFIX + "held-1"),
}
AUDIT_APPENDERS = ("run_agent", "request_approval", "decide", "resume_agent", "record_expiry", "send_outbox", "remind")
PUT, UPDATE = "dynamodb:PutItem", "dynamodb:UpdateItem"
# item type -> role -> the write actions it may send. Everything else is refused.
OWNERS: dict[str, dict[str, set[str]]] = {
    "shop state": {"resume_agent": {PUT}},  # the apply; the operator's shop commands use their own credentials
    "checkpoint": {"run_agent": {PUT}},
    "decision": {"resume_agent": {PUT}},  # the resume's claim and its outcome
    "application": {"resume_agent": {PUT}},
    "outbox message": {"resume_agent": {PUT}, "send_outbox": {PUT}},
    "approval pointer": {"request_approval": {PUT}},
    # created by request_approval only; the others move an existing approval (UpdateItem, attribute_exists)
    "approval": {"request_approval": {PUT, UPDATE}, "decide": {UPDATE}, "record_expiry": {UPDATE}, "remind": {UPDATE}},
    "audit chain": {module: {PUT} for module in AUDIT_APPENDERS},
    "proposal": {"run_agent": {PUT}},
    "state snapshot": {"run_agent": {PUT}, "resume_agent": {PUT}},
    "submission": {"submit": {PUT}, "receive_email": {PUT}},
    "request key": {"run_agent": {PUT}},
    "Message-ID pointer": {"run_agent": {PUT}},
    "held request": {"run_agent": {PUT}},
}
WRITES = (PUT, UPDATE, "dynamodb:DeleteItem", "dynamodb:BatchWriteItem")


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return synthesize(CONTEXT)


def _writes(action: str, pk: str) -> list[tuple[str, str, list[str]]]:
    """The requests a role could send to write an item of partition ``pk`` with ``action``: the action itself
    and, for a put or an update, the same inside a transaction."""
    operation = action.split(":")[1]
    calls = [("dynamodb", operation, [pk])]
    kind = {PUT: "Put", UPDATE: "Update", "dynamodb:DeleteItem": "Delete"}.get(action)
    if kind:
        calls.append(("dynamodb", "TransactWriteItems", [f"{kind}:{pk}"]))
    return calls


def test_each_item_type_has_a_partition_key_iam_tells_apart() -> None:
    """Every sample key falls under exactly one item type's pattern, its own: a grant of one type is no grant
    of another (dynamodb:LeadingKeys sees the partition key only)."""
    assert set(SAMPLE_KEYS) == set(ITEM_TYPES) == set(OWNERS)
    for name, (pk, _) in SAMPLE_KEYS.items():
        matching = [other for other, pattern in ITEM_TYPES.items() if fnmatchcase(pk, pattern)]
        assert matching == [name], (pk, matching)


def test_every_role_writes_only_the_item_types_it_owns(template: dict[str, Any]) -> None:
    """Every function of the stack (the custom resources' included) x every item type x every write: allowed
    exactly where the design gives the role that item type."""
    modules = sorted(function_ids(template))
    assert {"run_agent", "decide", "resume_agent", "remind", "send_outbox"} <= set(modules)
    wrong = []
    for module in modules:
        statements = role_statements(template, module)
        for name, (pk, _) in SAMPLE_KEYS.items():
            for action in WRITES:
                owned = action in OWNERS[name].get(module, set())
                for call in _writes(action, pk):
                    if (denied(statements, [call]) == []) != owned:
                        wrong.append((module, name, call, "refused" if owned else "ALLOWED"))
    assert wrong == []


@pytest.mark.parametrize(
    "call",
    [
        ("dynamodb", "PutItem", [t.state_key()[0]]),  # the shop's state
        ("dynamodb", "TransactWriteItems", [f"Put:{t.AUDIT_PK}", f"Put:{t.decision_key(CHECKPOINT)[0]}"]),
        ("dynamodb", "PutItem", [t.outbox_key(f"{HASH}#00")[0]]),  # a message of its own choosing
        ("dynamodb", "PutItem", [t.checkpoint_key(CHECKPOINT)[0]]),
        ("dynamodb", "PutItem", [t.application_key(HASH)[0]]),
        ("dynamodb", "PutItem", [t.APPROVAL_PK_PREFIX + APPROVAL]),  # a new approval by put
        ("dynamodb", "PutItem", [t.approval_of_key(CHECKPOINT, APPROVAL)[0]]),
        ("dynamodb", "UpdateItem", [t.state_key()[0]]),
        ("dynamodb", "UpdateItem", [t.AUDIT_PK]),
        ("dynamodb", "DeleteItem", [t.AUDIT_PK]),
        ("dynamodb", "BatchWriteItem", [t.AUDIT_PK]),
    ],
)
def test_a_compromised_decision_function_can_write_nothing_but_a_vote_and_its_audit_event(
    template: dict[str, Any], call: tuple[str, str, list[str]]
) -> None:
    assert denied(role_statements(template, "decide"), [call]) != []


def test_the_decision_function_keeps_what_it_needs(template: dict[str, Any]) -> None:
    statements = role_statements(template, "decide")
    assert denied(statements, [("dynamodb", "UpdateItem", [t.APPROVAL_PK_PREFIX + APPROVAL])]) == []
    assert denied(statements, [("dynamodb", "TransactWriteItems", [f"Put:{t.AUDIT_PK}", f"Put:{t.AUDIT_PK}"])]) == []


# Writes that would go around the item-type conditions: PartiQL (its own IAM actions), and the table's own settings
# (a TTL on another attribute deletes items; a restore or import replaces them; PITR off loses the history).
AROUND = (
    "PartiQLInsert",
    "PartiQLUpdate",
    "PartiQLDelete",
    "DeleteItem",
    "BatchWriteItem",
    "UpdateTimeToLive",
    "UpdateTable",
    "DeleteTable",
    "UpdateContinuousBackups",
    "RestoreTableToPointInTime",
    "ImportTable",
    "CreateBackup",
    "DeleteBackup",
)


def test_no_role_may_write_around_the_item_types(template: dict[str, Any]) -> None:
    """What a compromised function would try once its own item types are closed to it: PartiQL, deletes, batch
    writes and the table's settings, on every partition. Each is refused for every function's role."""
    wrong = []
    for module in sorted(function_ids(template)):
        statements = role_statements(template, module)
        for name, (pk, _) in SAMPLE_KEYS.items():
            for operation in AROUND:
                if denied(statements, [("dynamodb", operation, [pk])]) == []:
                    wrong.append((module, name, operation))
    assert wrong == []


@pytest.mark.parametrize(
    "module", ["run_agent", "request_approval", "resume_agent", "record_expiry", "send_outbox", "remind"]
)
def test_a_compromised_appender_cannot_write_another_item_type_or_edit_the_audit_chain(
    template: dict[str, Any], module: str
) -> None:
    """The six roles that once could PutItem anything in SHOP: each may put only its own item types. An audit event
    it could overwrite by PutItem (IAM cannot tell a create from an overwrite) is refused by the code's condition
    (tests/integration/test_aws_item_types.py::test_an_audit_event_is_never_overwritten); UpdateItem, DeleteItem
    and BatchWriteItem on the chain IAM refuses."""
    statements = role_statements(template, module)
    for name, (pk, _) in SAMPLE_KEYS.items():
        if PUT not in OWNERS[name].get(module, set()):
            assert denied(statements, [("dynamodb", "PutItem", [pk])]) != [], (module, name)
            assert denied(statements, [("dynamodb", "TransactWriteItems", [f"Put:{t.AUDIT_PK}", f"Put:{pk}"])]) != []
    for operation in ("UpdateItem", "DeleteItem", "BatchWriteItem"):
        assert denied(statements, [("dynamodb", operation, [t.AUDIT_PK])]) != [], (module, operation)
