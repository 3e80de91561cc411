"""``approvals relink --table`` against the deployed shape (DynamoDB, SNS on a moto server): the approver's new link
arrives by SNS as the first did and opens the plan, the old one gets the neutral page, the event is audited,
and a closed approval is refused with nothing written."""

from __future__ import annotations

import contextlib
from typing import Any

from production_orchestrator.cli import main
from tests.support.aws_flow import start
from tests.support.moto_aws import APPROVERS, LINK_BASE_URL, AwsWorld


def _relink(aws: AwsWorld, approval_id: str, approver: str) -> int:
    return main(
        ["--table", aws.table, "approvals", "relink", "--topic-arn", aws.topic_arn, "--link-base", LINK_BASE_URL,
         "--approval", approval_id, "--approver", approver]
    )  # fmt: skip


def test_relink_on_aws_sends_by_sns_and_revokes_the_old_link(aws: AwsWorld, capsys: Any) -> None:
    flow = start(aws)
    flow.request_approval()
    who = APPROVERS[1]
    old = flow.link(who)
    assert _relink(aws, flow.approval_id, who.upper()) == 0
    out = capsys.readouterr().out
    assert f"APPROVER={who}" in out and old.secret not in out
    (new,) = aws.links()
    assert new.approver == who and new.approval_id == flow.approval_id and new.secret != old.secret
    assert flow.get(new)["statusCode"] == 200 and who in flow.get(new)["body"]
    assert flow.get(old)["statusCode"] == 404  # the neutral page
    assert flow.get(flow.link(APPROVERS[0]))["statusCode"] == 200  # the others keep theirs
    snapshot = aws.snapshot()
    assert "approval_relinked" in str(snapshot["items"]) and new.secret not in str(snapshot)


def test_a_closed_approval_is_refused_on_aws_with_nothing_written(aws: AwsWorld, capsys: Any) -> None:
    flow = start(aws)
    flow.request_approval()
    assert flow.post("reject")["statusCode"] == 200
    aws.links()
    before = aws.snapshot()
    assert _relink(aws, flow.approval_id, APPROVERS[1]) == 2
    assert "APPROVAL_CLOSED" in capsys.readouterr().err
    assert aws.snapshot() == before and aws.links() == []


def test_relink_on_aws_is_one_transaction_and_a_crash_in_it_changes_nothing(
    aws: AwsWorld, capsys: Any, monkeypatch: Any
) -> None:
    """The approval and its ``approval_relinked`` event used to be two writes; now they are one TransactWriteItems
    (the approval conditioned on the record read, the event linked into the chain): a process dying as it sends
    the transaction leaves the old link working and the trail as it was."""
    from production_orchestrator.adapters.aws.dynamo_table import DynamoTable

    flow = start(aws)
    flow.request_approval()
    who = APPROVERS[1]
    old = flow.link(who)
    aws.links()
    before = aws.snapshot()
    sent: list[list[dict[str, Any]]] = []
    real = DynamoTable.transact

    def dies(self: DynamoTable, writes: Any) -> None:
        sent.append(list(writes))
        raise SystemExit("killed while the transaction was on the wire")

    monkeypatch.setattr(DynamoTable, "transact", dies)
    with contextlib.suppress(SystemExit):
        _relink(aws, flow.approval_id, who)
    monkeypatch.setattr(DynamoTable, "transact", real)
    ((update, *rest),) = sent  # one transaction: the approval first, the chain head and the event with it
    assert update["Update"]["Key"]["pk"]["S"].startswith("APPROVAL#")
    assert any("approval_relinked" in str(op.get("Put", {}).get("Item", {})) for op in rest)
    assert aws.snapshot() == before and aws.links() == []
    assert flow.get(old)["statusCode"] == 200  # nothing was revoked
    assert _relink(aws, flow.approval_id, who) == 0  # and the next try goes through whole
    capsys.readouterr()
    assert flow.get(old)["statusCode"] == 404 and len(aws.links()) == 1
