"""The approval policy on AWS, over real wire calls to a moto server (issue 11: each test is one way around it).

the wake-up is recoverable (5)     separation of duties and who requested (6)    keyed audit chain (7)
concurrent votes and "propose again" (8)    hostile bodies (9)    request_approval once per task (10)
"""

from __future__ import annotations

import base64
import sys
import threading
from typing import Any

import pytest
from botocore.stub import Stubber

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.approval_web.pages import NEUTRAL_MESSAGE
from production_orchestrator.cli import main
from production_orchestrator.domain.errors import (
    RefusalCode,
    RequesterUnverifiedError,
    ResumeRefusedError,
    ValidationError,
)
from production_orchestrator.domain.records import AuditEvent
from production_orchestrator.handlers import decide
from tests.support.aws_flow import Flow, _invoke, fake_task_token, start
from tests.support.moto_aws import (
    APPROVERS,
    AwsWorld,
    Clock,
    LambdaContext,
    cold_start,
    function_url_event,
    iam_caller,
    load_event,
)
from tests.support.together import together


def _approvals(aws: AwsWorld) -> DynamoApprovalStore:
    return DynamoApprovalStore(aws.dynamodb, aws.table)


def _post_with(flow: Flow, stub_error: str | None, *, link: int = 0, decision: str = "approve") -> dict[str, Any]:
    """A POST through the decision Lambda whose SendTaskSuccess answers ``stub_error`` (None: moto answers)."""
    chosen = flow.link(APPROVERS[link])
    form = {"a": chosen.approval_id, "s": chosen.secret, "decision": decision, "reviewed_hash": flow.proposal_hash}
    form["reason"] = "no" if decision == "reject" else ""
    cold_start()
    if stub_error is None:
        return decide.handler(function_url_event("POST", form=form), LambdaContext())
    with Stubber(decide.root().rt.callback._client) as stub:
        stub.add_client_error("send_task_success", service_error_code=stub_error, http_status_code=400)
        return decide.handler(function_url_event("POST", form=form), LambdaContext())


# -- 5. the vote and the wake-up are recoverable ------------------------------------------------------------


def test_the_task_callback_client_never_retries(aws: AwsWorld, clock: Clock) -> None:
    # A loopback Step Functions that throttles every call: a retrying SDK would call again (and, had the first
    # call got through, hear TaskTimedOut for a workflow already resuming). Ours calls once.
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from production_orchestrator.adapters.aws.step_functions import StepFunctionsCallback
    from production_orchestrator.domain.errors import BackendError

    calls: list[str] = []

    class Throttling(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            calls.append(str(self.headers.get("X-Amz-Target")))
            body = b'{"__type":"ThrottlingException","message":"slow down"}'
            self.send_response(400)
            self.send_header("Content-Type", "application/x-amz-json-1.0")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Throttling)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cold_start()
        config = decide.root().rt.callback._client.meta.config  # the client the decision endpoint uses
        assert config.retries["total_max_attempts"] == 1
        client = aws.session.client(
            "stepfunctions", endpoint_url=f"http://127.0.0.1:{server.server_address[1]}", config=config
        )
        with pytest.raises(BackendError):
            StepFunctionsCallback(client).send_success("token", {"approval_id": "appr-x"})
    finally:
        server.shutdown()
        server.server_close()
    assert calls == ["AWSStepFunctions.SendTaskSuccess"]


def test_a_failed_wake_keeps_the_vote_and_the_next_post_wakes_it(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    throttled = _post_with(flow, "ThrottlingException")
    assert throttled["statusCode"] == 200 and "woken again automatically" in throttled["body"]
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "decided" and not approval.woken_at
    # Another link holder's POST (here a reject, which the decision refuses) wakes it, once.
    other = _post_with(flow, None, link=1, decision="reject")
    assert other["statusCode"] == 409 and "Plan approved" in other["body"]
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.woken_at and len(approval.votes) == 1
    assert flow.resume()["outcome"] == "applied"


def test_the_reconciler_wakes_a_decision_nobody_posted_again(
    aws: AwsWorld, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = start(aws)
    flow.request_approval()
    assert _post_with(flow, "ServiceUnavailable")["statusCode"] == 200
    assert main(["--table", aws.table, "approvals", "wake"]) == 0
    assert f"WAKE {flow.approval_id}=woken" in capsys.readouterr().out
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.woken_at
    assert main(["--table", aws.table, "approvals", "wake"]) == 0
    assert "WOKEN=0" in capsys.readouterr().out  # idempotent: nothing left to wake


def test_a_closed_token_after_an_earlier_try_is_not_an_expiry(aws: AwsWorld, clock: Clock) -> None:
    # The first call reached Step Functions but its answer was lost (an error here); the next try hears
    # TaskTimedOut because the workflow is already resuming: that must not expire the approval.
    flow = start(aws)
    flow.request_approval()
    assert _post_with(flow, "InternalFailure")["statusCode"] == 200
    again = _post_with(flow, "TaskTimedOut", link=1)
    assert again["statusCode"] == 200 and "already recorded" in again["body"]
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "decided" and approval.woken_at
    assert flow.resume()["outcome"] == "applied"


def test_expiry_of_a_decision_the_workflow_never_heard_agrees_with_the_page(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    assert _post_with(flow, "ThrottlingException")["statusCode"] == 200
    result = flow.record_expiry()  # the workflow timed out without the decision
    assert result["expired_approvals"] == [flow.approval_id]
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "expired"
    page = flow.get(link=flow.link(APPROVERS[1]))
    assert page["statusCode"] == 200 and "Approval expired" in page["body"]
    with pytest.raises(ResumeRefusedError) as refused:
        flow.resume()
    assert refused.value.code is RefusalCode.EXPIRED


# -- 6. separation of duties compares who, normalized; nobody named is a refusal -----------------------------


@pytest.mark.parametrize("requested_by", ["", "   ", "ops@example.com"])
def test_a_run_without_a_verified_requester_is_refused_before_the_agent_runs(
    aws: AwsWorld, clock: Clock, requested_by: str
) -> None:
    """A hand-typed execution (no submission record): nobody named, or a name typed into the input."""
    before = aws.snapshot()
    with pytest.raises(RequesterUnverifiedError, match="no verified requester"):
        _invoke("run_agent", {**load_event("run_agent"), "requested_by": requested_by})
    assert aws.snapshot() == before  # no shop seeded, no session, no checkpoint


def test_request_approval_refuses_a_run_without_a_requester(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.run = {**flow.run, "requested_by": ""}
    before = aws.snapshot()
    with pytest.raises(ValidationError, match="requester"):
        flow.request_approval()
    assert aws.snapshot() == before and aws.links() == []


def test_the_requester_in_another_case_still_may_not_approve(aws: AwsWorld, clock: Clock) -> None:
    # The signed caller's session is ANA@Example.COM: the run records ana@example.com, an approver.
    flow = start(aws, caller=iam_caller("ANA@Example.COM"))
    assert flow.run["requested_by"] == APPROVERS[0]
    flow.request_approval()
    before = aws.snapshot()
    refused = flow.post("approve", link=flow.link(APPROVERS[0]))
    assert refused["statusCode"] == 403 and "separation of duties" in refused["body"]
    assert aws.snapshot() == before
    assert flow.post("approve", link=flow.link(APPROVERS[1]))["statusCode"] == 200


# -- 7. the audit chain is keyed ----------------------------------------------------------------------------


def test_rewriting_the_trail_and_recomputing_the_chain_is_found_in_aws(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from production_orchestrator.domain.approval.audit_chain import chained, event_hash

    key_id = aws.session.client("kms").create_key(KeySpec="HMAC_256", KeyUsage="GENERATE_VERIFY_MAC")["KeyMetadata"]
    monkeypatch.setenv("PO_AUDIT_KEY_ID", key_id["KeyId"])
    monkeypatch.setenv("PO_RECEIPT_KEY_ID", aws.receipt_key())
    cold_start()
    flow = start(aws)
    flow.request_approval()
    assert flow.post("approve")["statusCode"] == 200 and flow.resume()["outcome"] == "applied"
    assert main(["--table", aws.table, "audit", "verify"]) == 0
    assert "AUDIT_CHAIN=intact" in capsys.readouterr().out
    # Rewrite who approved in every event that names them and recompute every hash and the head (no key).
    store = DynamoShopStore(aws.dynamodb, aws.table)
    events, head = store.raw_audit_trail()
    assert head is not None and all(e is not None and e.mac for e in events)
    previous, first = None, 0
    for event in events:
        assert event is not None
        edited = event
        if event.detail.get("approver") == APPROVERS[0]:
            edited = event.model_copy(update={"detail": {**event.detail, "approver": "mallory@example.com"}})
            first = first or event.seq
        linked = chained(edited, previous).model_copy(update={"mac": event.mac})
        item = aws.raw_item("AUDIT", f"AUDIT#{event.seq:012d}")
        assert item is not None
        aws.put_raw_item({**item, "raw": {"S": linked.model_dump_json()}})
        previous = (linked.seq, event_hash(linked))
    head_item = aws.raw_item("AUDIT", "AUDIT_HEAD")
    assert head_item is not None and previous is not None
    aws.put_raw_item({**head_item, "seq": {"N": str(previous[0])}, "hash": {"S": previous[1]}})
    assert main(["--table", aws.table, "audit", "verify"]) == 5
    out = capsys.readouterr().out
    assert "AUDIT_CHAIN=broken" in out and f"BROKEN_SEQ={first}" in out


# -- 8. concurrent votes both count; concurrent "propose again" cannot fork ---------------------------------


def test_two_approvers_at_once_both_count(aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    from production_orchestrator.adapters.aws import dynamodb_approvals

    monkeypatch.setenv("PO_QUORUM", "2")
    monkeypatch.setenv("PO_QUORUM_ABOVE_QUANTITY", "100")  # rush-order buys 600: two approvals needed
    cold_start()
    flow = start(aws)
    flow.request_approval()
    cold_start()
    decide.root()
    # Both voters read the same record before either writes: the second write's condition must fail.
    both_read = threading.Barrier(2)
    read = dynamodb_approvals.read_stored
    first_read: set[int] = set()

    def read_then_wait(table: Any, approval_id: str) -> Any:
        stored = read(table, approval_id)
        writing = sys._getframe(1).f_code.co_name == "_change"  # the read a conditional write is based on
        if writing and threading.current_thread().name.startswith("voter") and threading.get_ident() not in first_read:
            first_read.add(threading.get_ident())
            both_read.wait(timeout=10)
        return stored

    monkeypatch.setattr(dynamodb_approvals, "read_stored", read_then_wait)
    responses: dict[int, Any] = {}

    def post(link: int) -> None:
        chosen = flow.link(APPROVERS[link])
        form = {"a": chosen.approval_id, "s": chosen.secret, "decision": "approve", "reviewed_hash": flow.proposal_hash}
        responses[link] = decide.handler(function_url_event("POST", form=form), LambdaContext())

    voters = [threading.Thread(target=post, args=(n,), name=f"voter-{n}") for n in (0, 1)]
    for voter in voters:
        voter.start()
    for voter in voters:
        voter.join(timeout=60)
    assert [responses[n]["statusCode"] for n in (0, 1)] == [200, 200]
    approval = _approvals(aws).get_approval(flow.approval_id)
    assert approval is not None and approval.status == "decided"
    assert sorted(v.decision.approver for v in approval.votes) == sorted(APPROVERS)
    assert flow.resume()["outcome"] == "applied"


def test_two_propose_again_at_once_leave_one_successor_and_no_orphan(aws: AwsWorld, clock: Clock) -> None:
    from production_orchestrator.domain.errors import OrchestratorError
    from production_orchestrator.handlers.root import agent_root
    from production_orchestrator.services.runs.repropose import ProposeAgain, propose_again

    flow = start(aws)
    flow.request_approval()
    event = AuditEvent(event_type="inventory_set", at="2026-08-12T09:00:00Z")
    DynamoShopStore(aws.dynamodb, aws.table).set_inventory("THREAD-RED-40", 0, event)
    cold_start()
    root = agent_root()
    results = together([lambda: propose_again(root.runtime, ProposeAgain(flow.approval_id, root.binding))] * 2)
    won = [r for r in results if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(lost) == 1 and isinstance(lost[0], OrchestratorError), results
    assert "closed meanwhile" in str(lost[0]) or "not open" in str(lost[0])
    approvals = _approvals(aws).list_approvals()
    assert len(approvals) == 2  # the old one and its one successor: the loser wrote nothing
    old = _approvals(aws).get_approval(flow.approval_id)
    assert old is not None and old.status == "superseded" and old.superseded_by == won[0].approval.approval_id
    checkpoints = DynamoShopStore(aws.dynamodb, aws.table).list_checkpoints()
    assert len(checkpoints) == 2
    page = flow.get()  # the old link opens the one new plan
    assert page["statusCode"] == 200 and won[0].checkpoint.proposal_hash in page["body"]


# -- 9. hostile bodies -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "encoded"),
    [
        (base64.b64encode(b"decision=approve&\xff\xfe\xfd").decode(), True),
        ("not base64 at all!!", True),
        ("decision=approve&reason=%FF%FE", False),
        ("x" * 40000, False),
    ],
    ids=["not-utf-8", "not-base64", "percent-encoded-not-utf-8", "over-the-limit"],
)
def test_an_unreadable_body_gets_400_and_the_neutral_page(
    aws: AwsWorld, clock: Clock, body: str, encoded: bool
) -> None:
    flow = start(aws)
    flow.request_approval()
    link = flow.link()
    event = function_url_event("POST", query={"a": link.approval_id, "s": link.secret})
    event["body"], event["isBase64Encoded"] = body, encoded
    before = aws.snapshot()
    cold_start()
    response = decide.handler(event, LambdaContext())
    assert response["statusCode"] == 400 and NEUTRAL_MESSAGE in response["body"]
    assert aws.snapshot() == before


# -- 10. request_approval once per task ------------------------------------------------------------------


def test_a_retried_request_finds_its_approval_and_sends_nothing_new(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    first = flow.request_approval()
    assert first["notified"] == len(APPROVERS)
    links = flow.links
    again = flow.request_approval(task_token=flow.task_token)  # a Lambda retry of the same task
    assert again["approval_id"] == first["approval_id"] and again["notified"] == 0 and flow.links == ()
    retried_state = flow.request_approval()  # a retried wait state: a new token, the same approval and links
    assert retried_state["approval_id"] == first["approval_id"] and retried_state["notified"] == 0
    approval = _approvals(aws).get_approval(first["approval_id"])
    assert approval is not None and approval.task_token == flow.task_token
    assert len(_approvals(aws).list_approvals()) == 1
    flow.links = links
    assert flow.post("approve")["statusCode"] == 200  # the links first sent still decide


def test_a_request_that_failed_half_way_sends_only_what_did_not_go_out(aws: AwsWorld, clock: Clock) -> None:
    from production_orchestrator.handlers import request_approval

    flow = start(aws)
    token = fake_task_token()
    event = {**load_event("request_approval", task_token=token, **flow.run), "requested_by": flow.run["requested_by"]}
    cold_start()
    notifier_client = request_approval.root().notifier._client
    with Stubber(notifier_client) as stub:
        stub.add_response("publish", {"MessageId": "m-1"})
        stub.add_client_error("publish", service_error_code="Throttling", http_status_code=400)
        with pytest.raises(Exception, match="sns publish"):
            request_approval.handler(event, LambdaContext())
    result = request_approval.handler(event, LambdaContext())  # the retry (same cold root)
    assert result["notified"] == 1
    delivered = aws.links()
    assert [link.approver for link in delivered] == [APPROVERS[1]]  # only the one that had not gone out
