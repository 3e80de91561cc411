"""The AWS runtime end to end over real boto3 wire calls to a moto server on 127.0.0.1.

run_agent -> request_approval (token stored, one link per approver) -> decide GET/HEAD (read only)
-> decide POST (conditional, once) -> SendTaskSuccess(pointer) -> resume_agent (fresh root) -> outcome
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from botocore.stub import Stubber

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.approval_web.pages import NEUTRAL_MESSAGE
from production_orchestrator.domain.errors import RefusalCode, ResumeRefusedError
from production_orchestrator.domain.presentation import fingerprint, shop_time
from production_orchestrator.domain.scenarios import scenario
from tests.support.aws_flow import Flow, approved_flow, start
from tests.support.moto_aws import APPROVERS, AwsWorld, Clock, cold_start


def _store(aws: AwsWorld) -> DynamoShopStore:
    return DynamoShopStore(aws.dynamodb, aws.table)


def _approvals(aws: AwsWorld) -> DynamoApprovalStore:
    return DynamoApprovalStore(aws.dynamodb, aws.table)


def _audit_types(aws: AwsWorld) -> list[str]:
    return [event.event_type for event in _store(aws).audit_events()]


def _assert_neutral(response: dict[str, Any]) -> None:
    assert response["statusCode"] == 404
    assert NEUTRAL_MESSAGE in response["body"]
    _assert_safe_headers(response)


def _assert_safe_headers(response: dict[str, Any]) -> None:
    assert response["headers"]["Cache-Control"] == "no-store"
    assert response["headers"]["Referrer-Policy"] == "no-referrer"


def test_approve_applies_the_reviewed_plan_once(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    assert flow.run["checkpoint_id"].startswith("ckpt-")
    assert _store(aws).load_state().revision == 1  # type: ignore[union-attr]
    flow.request_approval()
    assert sorted(link.approver for link in flow.links) == sorted(APPROVERS)
    assert len({link.secret for link in flow.links}) == len(APPROVERS)
    link = flow.link()
    assert fingerprint(flow.proposal_hash) in link.subject
    assert flow.proposal_hash in link.body
    assert shop_time(flow.run["expires_at"]) in link.body  # the deadline as people read it, with its offset

    page = flow.get()
    assert page["statusCode"] == 200
    assert flow.proposal_hash in page["body"] and "Move STANDARD-100" in page["body"]
    assert "deterministic / scripted-planner-v1" in page["body"]
    _assert_safe_headers(page)

    decided = flow.post("approve", reason="rush is worth it")
    assert decided["statusCode"] == 200 and "approved" in decided["body"]
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "decided" and approval.decided_by == link.approver

    outcome = flow.resume()
    assert outcome == {
        "outcome": "applied",
        "code": None,
        "checkpoint_id": flow.checkpoint_id,
        "state_revision": 2,
        "plan_applied_count": 1,
    }
    store = _store(aws)
    state = store.load_state()
    assert state is not None and state.revision == 2
    rush = state.order("RUSH-200")
    assert rush is not None and rush.first_day == "2026-08-12"
    assert [p.quantity for p in state.procurement] == [600]
    assert store.application_count() == 1
    types = _audit_types(aws)
    assert types.count("plan_applied") == 1 and types.count("decision_recorded") == 1
    record = store.get_decision(flow.checkpoint_id)
    assert record is not None and record.decision.approver == link.approver
    assert record.decision.reason == "rush is worth it"


def test_reject_leaves_the_shop_unchanged(aws: AwsWorld, clock: Clock) -> None:
    flow = approved_flow(aws, "reject")
    digest_before = _store(aws).load_state().digest()  # type: ignore[union-attr]
    outcome = flow.resume()
    assert outcome["outcome"] == "rejected"
    assert outcome["state_revision"] == 1 and outcome["plan_applied_count"] == 0
    store = _store(aws)
    assert store.load_state().digest() == digest_before  # type: ignore[union-attr]
    types = _audit_types(aws)
    assert "plan_applied" not in types and types.count("plan_rejected") == 1


def test_each_approver_gets_only_their_own_link(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    assert len(flow.links) == len(APPROVERS)
    for link in flow.links:
        assert link.approval_id == flow.approval_id
        others = [other.secret for other in flow.links if other is not link]
        assert not any(secret in link.body for secret in others)


def test_get_and_head_change_nothing(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    before = aws.snapshot()
    first = flow.get()
    head = flow.get(method="HEAD")
    again = flow.get()
    assert first["statusCode"] == head["statusCode"] == again["statusCode"] == 200
    assert head["body"] == ""
    assert first["body"] == again["body"]
    _assert_safe_headers(head)
    assert aws.snapshot() == before
    # Scanners may prefetch any number of times; the link still decides afterwards.
    assert flow.post("approve")["statusCode"] == 200


def test_second_post_is_refused_with_nothing_written(aws: AwsWorld, clock: Clock) -> None:
    flow = approved_flow(aws)
    before = aws.snapshot()
    again = flow.post("approve")  # the same decision again: already recorded, nothing new
    assert again["statusCode"] == 200 and "already recorded" in again["body"]
    other = flow.post("reject", link=flow.link(APPROVERS[1]))  # a different one: refused, and told why
    assert other["statusCode"] == 409 and "not recorded" in other["body"] and "Plan approved" in other["body"]
    shown = flow.get(link=flow.link(APPROVERS[1]))
    assert shown["statusCode"] == 200 and NEUTRAL_MESSAGE not in shown["body"]
    assert f"{APPROVERS[0]} approved" in shown["body"] and fingerprint(flow.proposal_hash) in shown["body"]
    assert aws.snapshot() == before


def test_post_after_expiry_is_refused_with_nothing_written(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    clock.advance(timedelta(days=7, seconds=1))
    before = aws.snapshot()
    shown = flow.get()  # a valid link: the page says the window closed, not "unknown link"
    assert shown["statusCode"] == 200 and "Approval expired" in shown["body"]
    refused = flow.post("approve")
    assert refused["statusCode"] == 409 and "not recorded" in refused["body"] and "expired" in refused["body"]
    assert aws.snapshot() == before


def test_wrong_secret_is_refused_with_nothing_written(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    before = aws.snapshot()
    link = flow.link()
    forged = link.secret[:-2] + ("AA" if not link.secret.endswith("AA") else "BB")
    _assert_neutral(flow.post("approve", s=forged))
    _assert_neutral(flow.get(s=forged))
    _assert_neutral(flow.post("approve", a="appr-" + "0" * 32))
    _assert_neutral(flow.post("approve", s=""))
    assert aws.snapshot() == before


def test_invalid_links_get_the_neutral_page_and_valid_ones_the_truth(aws: AwsWorld, clock: Clock) -> None:
    flow = approved_flow(aws)
    used = flow.get()
    unknown = flow.get(a="appr-" + "1" * 32)
    malformed = flow.get(a="../../etc", s="x")
    assert unknown["body"] == malformed["body"] and unknown["statusCode"] == malformed["statusCode"] == 404
    assert NEUTRAL_MESSAGE in unknown["body"]
    # The holder of a used link sees what was recorded: who, on which plan.
    assert used["statusCode"] == 200 and "Plan approved" in used["body"] and NEUTRAL_MESSAGE not in used["body"]
    assert f"{APPROVERS[0]} approved" in used["body"] and flow.proposal_hash in used["body"]
    clock.advance(timedelta(days=8))
    later = flow.get(link=flow.link(APPROVERS[1]))
    assert later["statusCode"] == 200 and "Plan approved" in later["body"]


def test_reviewed_hash_differing_is_refused_with_nothing_written(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    before = aws.snapshot()
    other = flow.proposal_hash[:-1] + ("0" if flow.proposal_hash[-1] != "0" else "1")
    response = flow.post("approve", reviewed_hash=other)
    assert response["statusCode"] == 409 and "not recorded" in response["body"]
    assert flow.post("approve", reviewed_hash="not-a-hash")["statusCode"] == 409
    assert aws.snapshot() == before
    assert flow.post("approve")["statusCode"] == 200


def test_malformed_posts_write_nothing(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    before = aws.snapshot()
    assert flow.post("maybe")["statusCode"] == 400
    assert flow.post("approve", reason="x" * 2001)["statusCode"] == 400
    assert aws.snapshot() == before
    assert flow.post("approve")["statusCode"] == 200


def test_a_plain_form_body_decides_too(aws: AwsWorld, clock: Clock) -> None:
    from production_orchestrator.handlers import decide
    from tests.support.moto_aws import LambdaContext, function_url_event

    flow = start(aws)
    flow.request_approval()
    link = flow.link()
    form = {
        "a": link.approval_id,
        "s": link.secret,
        "decision": "reject",
        "reviewed_hash": flow.proposal_hash,
        "reason": "not this week",
    }
    cold_start()
    response = decide.handler(function_url_event("POST", form=form, base64_body=False), LambdaContext())
    assert response["statusCode"] == 200 and "rejected" in response["body"]
    assert flow.resume()["outcome"] == "rejected"


def test_resume_invoked_twice_applies_once(aws: AwsWorld, clock: Clock) -> None:
    # A retry of the step after the resume finished (lost response, redelivery) gets the recorded outcome.
    flow = approved_flow(aws)
    first = flow.resume()
    assert first["outcome"] == "applied"
    before = aws.snapshot()
    assert flow.resume() == first
    assert aws.snapshot() == before
    store = _store(aws)
    assert store.load_state().revision == 2  # type: ignore[union-attr]
    assert store.application_count() == 1
    assert _audit_types(aws).count("plan_applied") == 1


def test_timeout_expires_the_approval_and_never_approves(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    clock.advance(timedelta(days=7, seconds=5))
    result = flow.record_expiry()
    assert result == {
        "outcome": "expired",
        "checkpoint_id": flow.checkpoint_id,
        "expired_approvals": [flow.approval_id],
        "state_revision": 1,
        "plan_applied_count": 0,
    }
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "expired" and approval.decision is None
    assert _audit_types(aws).count("approval_expired") == 1
    # A replayed expiry step changes nothing more.
    before = aws.snapshot()
    assert flow.record_expiry()["expired_approvals"] == []
    assert aws.snapshot() == before
    late = flow.post("approve")
    assert late["statusCode"] == 409 and "Approval expired" in late["body"] and "not recorded" in late["body"]
    with pytest.raises(ResumeRefusedError) as refused:
        flow.resume()
    assert refused.value.code is RefusalCode.EXPIRED
    assert aws.snapshot() == before


def test_expiry_after_a_decision_no_resume_claimed_keeps_the_decision_on_record(aws: AwsWorld, clock: Clock) -> None:
    # DecisionExpired ran, so the workflow stopped waiting without resuming it (the wake was judged delivered, or
    # the resume refused EXPIRED): nothing will act on the decision, and the approval says expired, the decision
    # kept on it. A decision a resume claimed stands (tests/unit/services/asking/test_expire.py).
    flow = approved_flow(aws)
    result = flow.record_expiry()
    assert result["expired_approvals"] == [flow.approval_id] and result["plan_applied_count"] == 0
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "expired"
    assert approval.decision is not None and approval.decision.approved


def test_a_token_closed_at_the_first_wake_expires_the_approval(aws: AwsWorld, clock: Clock) -> None:
    # moto answers 200 to a late SendTaskSuccess (AWS: TaskTimedOut), so the error is stubbed here. Nothing
    # woke this workflow before: it went away without the decision, so the approval says expired.
    from production_orchestrator.handlers import decide

    flow = start(aws)
    flow.request_approval()
    cold_start()
    callback_client = decide.root().rt.callback._client
    with Stubber(callback_client) as stub:
        stub.add_client_error("send_task_success", service_error_code="TaskTimedOut", http_status_code=400)
        response = decide.handler(_post_event(flow), _context())
    assert response["statusCode"] == 409 and "Approval expired" in response["body"]
    _assert_safe_headers(response)
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "expired"
    with pytest.raises(ResumeRefusedError) as refused:
        flow.resume()
    assert refused.value.code is RefusalCode.EXPIRED
    assert _store(aws).application_count() == 0


def test_unsupported_method_is_refused(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    before = aws.snapshot()
    response = flow.get(method="DELETE")
    assert response["statusCode"] == 405
    assert aws.snapshot() == before


def test_sample_events_parse() -> None:
    from production_orchestrator.handlers.events import (
        DecisionForm,
        RecordExpiryEvent,
        RequestApprovalEvent,
        ResumeEvent,
        RunAgentEvent,
    )
    from tests.support.moto_aws import load_event

    ids = {
        "task_token": "AQB-token",
        "session_id": "sess-" + "a" * 32,
        "checkpoint_id": "ckpt-" + "b" * 32,
        "interrupt_id": "v1:before_tool_call:tooluse_1:0000",
        "proposal_hash": "c" * 64,
        "expires_at": "2026-08-19T08:00:00Z",
        "approval_id": "appr-" + "d" * 32,
    }
    assert RunAgentEvent.model_validate(load_event("run_agent")).scenario == scenario("rush-order").name
    assert RequestApprovalEvent.model_validate(load_event("request_approval", **ids)).task_token == "AQB-token"
    assert ResumeEvent.model_validate(load_event("resume_agent", **ids)).approval_id == ids["approval_id"]
    assert RecordExpiryEvent.model_validate(load_event("record_expiry", **ids)).checkpoint_id == ids["checkpoint_id"]
    post = load_event("decide_post")
    assert post["requestContext"]["http"]["method"] == "POST" and post["isBase64Encoded"] is True
    assert DecisionForm(a="x", s="y", decision="approve", reviewed_hash="0000").reason == ""


def _post_event(flow: Flow) -> dict[str, Any]:
    from tests.support.moto_aws import function_url_event

    link = flow.link()
    form = {"a": link.approval_id, "s": link.secret, "decision": "approve", "reviewed_hash": flow.proposal_hash}
    return function_url_event("POST", form=form)


def _context() -> Any:
    from tests.support.moto_aws import LambdaContext

    return LambdaContext(function_name="po-decide")
