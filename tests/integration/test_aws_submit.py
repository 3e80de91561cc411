"""Requests in, with an identity: the submit URL records the caller IAM verified; a run without a verified
requester is refused under separation of duties. Real handlers over wire calls to moto on 127.0.0.1
(moto serves no Function URLs: the events carry what Lambda puts in ``requestContext.authorizer.iam``)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_submissions import DynamoSubmissionStore
from production_orchestrator.domain.errors import RequesterUnverifiedError
from production_orchestrator.domain.scenarios import scenario
from tests.support.aws_flow import _invoke, import_scenario_shop, run_agent_event, start, submit
from tests.support.moto_aws import (
    ACCOUNT,
    APPROVERS,
    CI_USER,
    SUBMITTERS,
    AwsWorld,
    Clock,
    cold_start,
    iam_caller,
    load_event,
    submit_event,
)

REQUEST = scenario("rush-order").customer_email


def _executions(aws: AwsWorld) -> list[dict[str, Any]]:
    sfn = aws.session.client("stepfunctions")
    return list(sfn.list_executions(stateMachineArn=aws.state_machine_arn)["executions"])


def _post(body: Any, caller: dict[str, str] | None = None, method: str = "POST") -> dict[str, Any]:
    event = submit_event(body, iam_caller() if caller is None else caller)
    event["requestContext"]["http"]["method"] = method
    return _invoke("submit", event)


def test_a_forged_requested_by_in_the_body_records_the_real_caller(aws: AwsWorld, clock: Clock) -> None:
    caller = iam_caller("Olga@Shop.Example")
    response = _invoke("submit", submit_event({"request": REQUEST, "requested_by": "mallory@shop.example"}, caller))
    assert response["statusCode"] == 202, response["body"]
    out = json.loads(response["body"])
    assert out["requested_by"] == "olga@shop.example"
    record = DynamoSubmissionStore(aws.dynamodb, aws.table).get_submission(out["execution_name"])
    assert record is not None and record.requested_by == "olga@shop.example"
    assert record.caller_arn == caller["userArn"] and record.request == REQUEST
    (execution,) = _executions(aws)
    assert execution["executionArn"] == out["execution_arn"] and execution["name"] == out["execution_name"]
    started = aws.session.client("stepfunctions").describe_execution(executionArn=out["execution_arn"])
    assert json.loads(started["input"]) == {"request": REQUEST}  # nothing about who: the record says that
    # The run takes its requester from the record, even when its input claims someone else.
    import_scenario_shop("rush-order")
    forged = {"scenario": "rush-order", "requested_by": "mallory@shop.example", "execution_name": "sub-" + "0" * 32}
    run = _invoke("run_agent", run_agent_event(out["execution_name"], forged))
    assert run["requested_by"] == "olga@shop.example"


def test_an_iam_user_is_the_person_the_submitter_map_names(aws: AwsWorld, clock: Clock) -> None:
    user = {**iam_caller(), "userArn": CI_USER, "callerId": "AIDAEXAMPLE"}
    out = submit(aws, REQUEST, user)
    assert out["requested_by"] == "ci-bot@example.com"


@pytest.mark.parametrize(
    "user_arn",
    [
        # approver ana assumes a role nobody mapped and picks her session name: the name proves nothing
        f"arn:aws:sts::{ACCOUNT}:assumed-role/Deployer/build-42",
        f"arn:aws:sts::{ACCOUNT}:assumed-role/Deployer/ana@example.com",
        f"arn:aws:iam::{ACCOUNT}:user/ci-bot-2",
    ],
)
def test_an_unmapped_caller_is_refused_with_its_code_and_nothing_is_written(
    user_arn: str, aws: AwsWorld, clock: Clock
) -> None:
    before = aws.snapshot()
    response = _post({"request": REQUEST}, {**iam_caller(), "userArn": user_arn})
    assert response["statusCode"] == 403, response["body"]
    assert json.loads(response["body"])["code"] == "SUBMITTER_UNKNOWN"
    assert aws.snapshot() == before and _executions(aws) == []


@pytest.mark.parametrize(
    ("body", "caller", "method", "status"),
    [
        ({"request": REQUEST}, {}, "POST", 403),  # no IAM authorizer context: the URL is not AWS_IAM
        ({"request": REQUEST}, {"userArn": "not-an-arn"}, "POST", 400),
        ("not json", None, "POST", 400),
        ({"requested_by": "olga@shop.example"}, None, "POST", 400),
        ({"request": "   "}, None, "POST", 400),
        ({"request": "x" * 20_001}, None, "POST", 400),
        ({"request": REQUEST}, None, "GET", 405),
    ],
)
def test_a_refused_submit_writes_nothing_and_starts_nothing(
    body: Any, caller: dict[str, str] | None, method: str, status: int, aws: AwsWorld, clock: Clock
) -> None:
    before = aws.snapshot()
    event = submit_event(body, iam_caller() if caller is None else caller)
    if caller == {}:
        del event["requestContext"]["authorizer"]
    event["requestContext"]["http"]["method"] = method
    response = _invoke("submit", event)
    assert response["statusCode"] == status, response["body"]
    assert "error" in json.loads(response["body"])
    assert aws.snapshot() == before and _executions(aws) == []


@pytest.mark.parametrize(
    ("body", "base64_encoded", "named"),
    [
        ("not base64!", True, "UTF-8 JSON"),
        (base64.b64encode(b'{"request": "\xff\xfe 50 x CAP"}').decode(), True, "UTF-8 JSON"),
        (json.dumps({"request": REQUEST, "as_of": "2026-02-30"}), False, "not a day of the calendar"),
        (json.dumps({"request": REQUEST, "as_of": "2026-2-3"}), False, "YYYY-MM-DD"),
        (json.dumps({"request": "50 x CAP by Friday \udc80"}), False, "request"),
    ],
)
def test_a_body_that_cannot_be_read_is_a_400_with_a_code_and_starts_nothing(
    body: str, base64_encoded: bool, named: str, aws: AwsWorld, clock: Clock
) -> None:
    before = aws.snapshot()
    event = submit_event({"request": REQUEST}, iam_caller())
    event["body"], event["isBase64Encoded"] = body, base64_encoded
    response = _invoke("submit", event)
    assert response["statusCode"] == 400, response["body"]
    reply = json.loads(response["body"])
    assert reply["code"] == "REQUEST_INVALID" and named in reply["error"]
    assert aws.snapshot() == before and _executions(aws) == []


@pytest.mark.parametrize(
    "event",
    [
        load_event("run_agent"),  # a direct invoke: no execution name at all
        run_agent_event("hand-typed-run", {"requested_by": "olga@shop.example"}),  # start-execution by hand
        run_agent_event("sub-" + "f" * 32, {}),  # a submit-shaped name nobody submitted
        {"input": {"execution_name": "sub-" + "e" * 32}},  # a name claimed inside the input
    ],
)
def test_under_separation_of_duties_a_run_without_a_verified_requester_is_refused(
    event: dict[str, Any], aws: AwsWorld, clock: Clock
) -> None:
    before = aws.snapshot()
    with pytest.raises(RequesterUnverifiedError):
        _invoke("run_agent", event)
    assert aws.snapshot() == before


def test_a_name_claimed_inside_the_input_cannot_borrow_a_submission(aws: AwsWorld, clock: Clock) -> None:
    out = submit(aws, REQUEST, iam_caller("olga@shop.example"))
    before = aws.snapshot()
    with pytest.raises(RequesterUnverifiedError):
        _invoke("run_agent", {"input": {"execution_name": out["execution_name"]}, "execution_name": "hand-typed"})
    assert aws.snapshot() == before


def test_without_separation_of_duties_a_hand_typed_run_keeps_its_claimed_requester(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PO_SEPARATION_OF_DUTIES", "false")
    import_scenario_shop("rush-order")
    run = _invoke("run_agent", run_agent_event("hand-typed-run", {"requested_by": " Olga@Shop.Example "}))
    assert run["requested_by"] == "olga@shop.example" and run["checkpoint_id"].startswith("ckpt-")


def test_a_retried_post_returns_the_first_run(aws: AwsWorld, clock: Clock) -> None:
    """Issue 29: the request (or the caller's client token) names the execution, so a retry is the first run."""
    first = _post({"request": REQUEST})
    again = _post({"request": REQUEST})
    assert first["statusCode"] == again["statusCode"] == 202, again["body"]
    assert json.loads(again["body"])["execution_arn"] == json.loads(first["body"])["execution_arn"]
    assert len(_executions(aws)) == 1
    token = _post({"request": REQUEST, "client_token": "po-7781"})  # a token: this caller means another run
    assert token["statusCode"] == 202 and len(_executions(aws)) == 2
    before = aws.snapshot()
    reused = _post({"request": REQUEST.replace("1", "2"), "client_token": "po-7781"})
    assert reused["statusCode"] == 409 and json.loads(reused["body"])["code"] == "CLIENT_TOKEN_REUSED"
    assert aws.snapshot() == before and len(_executions(aws)) == 2


# -- every identity source becomes the approver address it is, or the run is not started ---------------------

SALES_ROLE = "AWSReservedSSO_Sales_9f8e7d6c"
SALES = f"arn:aws:iam::{ACCOUNT}:role/aws-reserved/sso.amazonaws.com/{SALES_ROLE}"


def _sales_caller(username: str) -> dict[str, str]:
    return {**iam_caller(), "userArn": f"arn:aws:sts::{ACCOUNT}:assumed-role/{SALES_ROLE}/{username}"}


def _with_submitters(monkeypatch: pytest.MonkeyPatch, extra: dict[str, Any], **env: str) -> None:
    monkeypatch.setenv("PO_SUBMITTERS", json.dumps({**SUBMITTERS, **extra}))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    cold_start()


@pytest.mark.parametrize("username", ["ana", "Ana.Smith", "eve@", "ops"])
def test_an_identity_center_username_that_is_no_address_is_refused_at_run_start(
    username: str, aws: AwsWorld, clock: Clock
) -> None:
    """The role maps to identity-center (usernames are addresses): a user named ``ana`` is no address, so who she
    is cannot be compared with approver ana@example.com; the run is not started, nothing is written."""
    before = aws.snapshot()
    response = _post({"request": REQUEST}, iam_caller(username))
    assert response["statusCode"] == 403, response["body"]
    assert json.loads(response["body"])["code"] == "SUBMITTER_UNMAPPED"
    assert aws.snapshot() == before and _executions(aws) == []


def test_a_username_map_makes_each_identity_center_user_the_approver_address_it_names(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Usernames are not addresses here: the map names each one's approver address, in any case and spacing."""
    _with_submitters(monkeypatch, {SALES: {" ANA ": " Ana@Example.COM", "bo.k": "bo@shop.example"}})
    out = submit(aws, REQUEST, _sales_caller("Ana"))
    assert out["requested_by"] == APPROVERS[0]
    before = aws.snapshot()
    refused = _post({"request": "another " + REQUEST}, _sales_caller("eve"))  # not in the map
    assert refused["statusCode"] == 403 and json.loads(refused["body"])["code"] == "SUBMITTER_UNMAPPED"
    assert aws.snapshot() == before and len(_executions(aws)) == 1


def test_an_approver_who_submits_by_username_may_not_approve_her_own_run(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hole this closes: Identity Center user ``ana`` (approver Ana@Example.com) submits, then opens her link."""
    _with_submitters(monkeypatch, {SALES: {"ana": "Ana@Example.com"}})
    flow = start(aws, caller=_sales_caller("ana"))
    assert flow.run["requested_by"] == APPROVERS[0]
    flow.request_approval()
    before = aws.snapshot()
    refused = flow.post("approve", link=flow.link(APPROVERS[0]))
    assert refused["statusCode"] == 403 and "separation of duties" in refused["body"]
    assert aws.snapshot() == before
    assert flow.post("approve", link=flow.link(APPROVERS[1]))["statusCode"] == 200


def test_a_role_mapped_to_a_bare_name_is_refused_under_separation_of_duties_and_runs_without(
    aws: AwsWorld, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-edited PO_SUBMITTERS (synth refuses this map under separation of duties): no address, no run."""
    bot = f"arn:aws:iam::{ACCOUNT}:user/Night-Bot"
    _with_submitters(monkeypatch, {bot: "night-bot"})
    caller = {**iam_caller(), "userArn": bot}
    before = aws.snapshot()
    refused = _post({"request": REQUEST}, caller)
    assert refused["statusCode"] == 403 and json.loads(refused["body"])["code"] == "SUBMITTER_UNMAPPED"
    assert aws.snapshot() == before and _executions(aws) == []
    _with_submitters(monkeypatch, {bot: "night-bot"}, PO_SEPARATION_OF_DUTIES="false")
    assert submit(aws, REQUEST, caller)["requested_by"] == "night-bot"
