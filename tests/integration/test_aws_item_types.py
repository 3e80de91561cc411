"""The table's items on moto after a whole run: each under exactly one item type's partition (the unit IAM grants,
infra/permissions.py), and the writes IAM cannot restrict refused by their own conditions."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest

from infra.permissions import ITEM_TYPES
from production_orchestrator.adapters.aws.chained_table import ChainedTable
from production_orchestrator.adapters.aws.dynamo_table import ConditionFailed, DynamoTable
from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore, read_stored, replace_write
from production_orchestrator.adapters.aws.table_schema import AUDIT_PK, AUDIT_SK_PREFIX
from production_orchestrator.domain.records import audit_event
from tests.support.aws_flow import approved_flow
from tests.support.moto_aws import AwsWorld, Clock


def _items(aws: AwsWorld) -> list[dict[str, dict[str, str]]]:
    return list(aws.dynamodb.scan(TableName=aws.table, ConsistentRead=True)["Items"])


def test_every_item_of_an_applied_run_is_of_one_item_type(aws: AwsWorld, clock: Clock) -> None:
    flow = approved_flow(aws)
    assert flow.resume()["outcome"] == "applied"
    found: dict[str, int] = {}
    for item in _items(aws):
        pk = item["pk"]["S"]
        (kind,) = [name for name, pattern in ITEM_TYPES.items() if fnmatchcase(pk, pattern)]
        found[kind] = found.get(kind, 0) + 1
    # Every kind this run writes, in the partition IAM grants for it.
    assert {"shop state", "checkpoint", "decision", "application", "outbox message", "approval", "audit chain"} <= set(
        found
    )
    assert {"approval pointer", "proposal", "state snapshot", "submission"} <= set(found)


def test_an_approval_change_never_creates_an_approval(aws: AwsWorld, clock: Clock) -> None:
    """IAM lets the decision function UpdateItem any APPROVAL# key, and UpdateItem creates what is absent: the
    change is conditioned on the item existing, so a vote on an approval nobody requested writes nothing."""
    flow = approved_flow(aws)
    table = DynamoTable(aws.dynamodb, aws.table)
    stored = read_stored(table, flow.approval_id)
    assert stored is not None
    raw, record = stored
    ghost = record.model_copy(update={"approval_id": "appr-" + "0" * 32})
    before = _items(aws)
    with pytest.raises(ConditionFailed):
        table.transact([replace_write(table, raw, ghost)])
    assert _items(aws) == before
    assert DynamoApprovalStore(aws.dynamodb, aws.table).get_approval(ghost.approval_id) is None


def test_an_audit_event_is_never_overwritten(aws: AwsWorld, clock: Clock) -> None:
    """Every role that appends may put in AUDIT; each event is created only if absent, so re-linking onto an
    older head (to overwrite the events after it) is refused and leaves the trail as it was."""
    approved_flow(aws)
    table = ChainedTable(aws.dynamodb, aws.table)
    trail, head = table.audit_trail()
    assert head is not None and len(trail) >= 2
    before = _items(aws)
    event = audit_event("inventory_set", clock.now, material_id="THREAD-RED-40", quantity=1)
    ops, _ = table._linked([], [event], (1, "0" * 64))  # linked after event 1: it would be written as event 2
    event_op = ops[-1]["Put"]
    assert event_op["Item"]["sk"]["S"] == f"{AUDIT_SK_PREFIX}{2:012d}" and event_op["Item"]["pk"]["S"] == AUDIT_PK
    with pytest.raises(ConditionFailed):
        table.transact([{"Put": event_op}])  # the event alone, without the head's condition
    assert _items(aws) == before
