"""revise on DynamoDB (moto server, real wire calls): version 2 keeps the order, two revisions at once give one
version 2 and write nothing else, version 1 is refused after it, version 2 is approved through the decision
Lambda and applies exactly once."""

from __future__ import annotations

import math

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.domain.errors import GuidanceRefusedError, RefusalCode, ResumeRefusedError
from production_orchestrator.domain.planning.guidance import Guidance
from production_orchestrator.domain.records import parse_utc
from tests.support.aws_flow import start
from tests.support.moto_aws import APPROVERS, AwsWorld, Clock, cold_start
from tests.support.together import together

KEEP = Guidance(keep=("STANDARD-100",))


def _revise(guidance: Guidance, checkpoint_id: str, actor: str = APPROVERS[0]) -> object:
    from production_orchestrator.handlers.root import agent_root
    from production_orchestrator.services.runs.revise import Revise, revise

    root = agent_root()
    return revise(root.runtime, Revise(checkpoint_id, actor, guidance, root.binding))


def test_revise_on_dynamodb_gives_one_version_2_that_applies_once(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    store, approvals = DynamoShopStore(aws.dynamodb, aws.table), DynamoApprovalStore(aws.dynamodb, aws.table)
    before = aws.snapshot()
    cold_start()
    for bad, code in ((Guidance(keep=("NOPE-1",)), "UNKNOWN_ORDER"), (Guidance(), "NO_GUIDANCE")):
        try:
            _revise(bad, flow.checkpoint_id)
        except GuidanceRefusedError as refused:
            assert refused.code.value == code
        else:
            raise AssertionError("bad guidance was accepted")
    try:
        _revise(KEEP, flow.checkpoint_id, actor="eve@example.com")
    except ResumeRefusedError as refused:
        assert refused.code is RefusalCode.UNAUTHORIZED_APPROVER
    assert aws.snapshot() == before  # nothing written by any refusal

    results = together([lambda: _revise(KEEP, flow.checkpoint_id)] * 2)
    won = [r for r in results if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(lost) == 1, results
    assert isinstance(lost[0], ResumeRefusedError) and lost[0].code is RefusalCode.SUPERSEDED
    v2 = won[0]
    assert v2.proposal.version == 2 and [c.order_id for c in v2.proposal.schedule_changes] == ["RUSH-200"]  # type: ignore[attr-defined]
    assert len(store.list_checkpoints()) == 2 and len(approvals.list_approvals()) == 2
    old = approvals.get_approval(flow.approval_id)
    assert old is not None and old.status == "superseded" and old.successor_version == 2

    refused = flow.post()  # version 1's hash on the (same) link: refused, version 2 named
    assert refused["statusCode"] == 409 and v2.checkpoint.proposal_hash not in ("",)  # type: ignore[attr-defined]
    assert store.application_count() == 0
    page = flow.get()  # the link opens version 2
    assert v2.checkpoint.proposal_hash in page["body"]  # type: ignore[attr-defined]
    cp = v2.checkpoint  # type: ignore[attr-defined]
    ids = {"checkpoint_id": cp.checkpoint_id, "proposal_hash": cp.proposal_hash}
    flow.run = {**flow.run, **ids, "interrupt_id": cp.interrupt_id, "session_id": cp.session_id}
    flow.approval_id = v2.approval.approval_id  # type: ignore[attr-defined]
    assert flow.post()["statusCode"] == 200
    assert flow.resume()["outcome"] == "applied"
    assert store.application_count() == 1 and store.application_count(v2.checkpoint.proposal_hash) == 1  # type: ignore[attr-defined]
    state = store.load_state()
    assert state is not None
    standard = state.order("STANDARD-100")
    assert standard is not None and [(a.day, a.minutes) for a in standard.schedule] == [("2026-08-12", 360)]


def test_the_last_version_is_refused_on_dynamodb_with_nothing_written(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PO_MAX_VERSIONS", "2")  # the stack sets it with maxVersions (its execution sized for 2)
    flow = start(aws)
    # The run tells the wait state how long this version waits: to its expires_at, by the handlers' clock.
    assert flow.run["wait_seconds"] == math.ceil((parse_utc(flow.run["expires_at"]) - clock.now).total_seconds())
    assert 7 * 86400 - 1 <= flow.run["wait_seconds"] <= 7 * 86400  # the window (7d here), less the run's own time
    flow.request_approval()
    approvals = DynamoApprovalStore(aws.dynamodb, aws.table)
    v1 = approvals.get_approval(flow.approval_id)
    assert v1 is not None and v1.policy.max_versions == 2
    cold_start()
    v2 = _revise(KEEP, flow.checkpoint_id)
    before = aws.snapshot()
    cold_start()
    try:
        _revise(Guidance(note="once more"), v2.checkpoint.checkpoint_id)  # type: ignore[attr-defined]
    except ResumeRefusedError as refused:
        assert refused.code is RefusalCode.VERSION_LIMIT and "version 2 is the last" in refused.human_message
    else:
        raise AssertionError("a revision past maxVersions was accepted")
    assert aws.snapshot() == before
