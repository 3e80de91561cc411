"""``production-orchestrator submit``: the installed CLI signs with the caller's credentials (SigV4); a loopback
stand-in for the AWS_IAM Function URL verifies the signature with botocore and runs the real submit handler
against moto. What the CLI prints is what the stack started; a bad signature runs nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.adapters.aws.dynamodb_submissions import DynamoSubmissionStore
from production_orchestrator.domain.scenarios import scenario
from tests.support.aws_flow import _invoke
from tests.support.clidriver import Run, cli
from tests.support.moto_aws import REGION, AwsWorld, Clock, operator_arn
from tests.support.signed_url import Caller, SignedFunctionUrl, signed_function_url

OLGA = operator_arn("olga@shop.example")


@pytest.fixture
def url(aws: AwsWorld, clock: Clock) -> Iterator[SignedFunctionUrl]:
    # The test credentials (AWS_ACCESS_KEY_ID=testing...) are Olga's role session.
    callers = {os.environ["AWS_ACCESS_KEY_ID"]: Caller(os.environ["AWS_SECRET_ACCESS_KEY"], OLGA, "testing")}
    with signed_function_url(REGION, callers, lambda event: _invoke("submit", event)) as stand_in:
        yield stand_in


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    path = tmp_path / "customer.eml"
    path.write_text(scenario("rush-order").customer_email, encoding="utf-8")
    return path


def _executions(aws: AwsWorld) -> list[dict[str, Any]]:
    sfn = aws.session.client("stepfunctions")
    return list(sfn.list_executions(stateMachineArn=aws.state_machine_arn)["executions"])


def test_submit_signs_the_call_and_prints_the_execution(
    aws: AwsWorld, url: SignedFunctionUrl, request_file: Path
) -> None:
    done = cli("submit", "--request", str(request_file), "--url", url.url, "--as-of", "2026-08-12")
    assert done.returncode == 0, done.stderr
    assert url.verdicts == ["verified"]
    (execution,) = _executions(aws)
    started = aws.session.client("stepfunctions").describe_execution(executionArn=execution["executionArn"])
    assert json.loads(started["input"]) == {"request": request_file.read_text(), "as_of": "2026-08-12"}
    assert done["EXECUTION_ARN"] == execution["executionArn"]
    assert done["REQUESTED_BY"] == "olga@shop.example"
    assert done["CONSOLE_URL"] == (
        f"https://{REGION}.console.aws.amazon.com/states/home?region={REGION}#/v2/executions/details/"
        f"{execution['executionArn']}"
    )
    record = DynamoSubmissionStore(aws.dynamodb, aws.table).get_submission(done["EXECUTION_NAME"])
    assert record is not None and record.caller_arn == OLGA and record.request == request_file.read_text()


def test_a_wrong_signature_is_refused_and_nothing_starts(
    aws: AwsWorld, url: SignedFunctionUrl, request_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = aws.snapshot()
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-olgas-secret")
    done = cli("submit", "--request", str(request_file), "--url", url.url)
    assert done.returncode == 2 and "refused the request (403)" in done.stderr
    assert "lambda:InvokeFunctionUrl" in done.stderr and "Traceback" not in done.stderr
    assert url.verdicts == ["signature does not match"]
    assert aws.snapshot() == before and _executions(aws) == []


def test_submit_finds_the_url_in_the_stack_outputs(aws: AwsWorld, url: SignedFunctionUrl, request_file: Path) -> None:
    template = {
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {"SubmitUrl": {"Value": url.url}, "DecisionUrl": {"Value": "https://elsewhere.example/"}},
    }
    stack = f"po-{aws.table}"
    aws.session.client("cloudformation").create_stack(StackName=stack, TemplateBody=json.dumps(template))
    done = cli("submit", "--request", str(request_file), "--stack", stack)
    assert done.returncode == 0, done.stderr
    assert url.verdicts == ["verified"] and len(_executions(aws)) == 1


def _refused(done: Run, message: str) -> None:
    assert done.returncode == 2, done.stdout
    assert message in done.stderr and "Traceback" not in done.stderr


def test_bad_input_sends_nothing(aws: AwsWorld, url: SignedFunctionUrl, request_file: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.eml"
    empty.write_text("  \n", encoding="utf-8")
    _refused(cli("submit", "--request", str(tmp_path / "missing.eml"), "--url", url.url), "cannot read --request")
    _refused(cli("submit", "--request", str(empty), "--url", url.url), "is empty")
    _refused(
        cli("submit", "--request", str(request_file), "--url", "https://example.com/"), "not a Lambda Function URL"
    )
    _refused(cli("submit", "--request", str(request_file), "--stack", "no-such-stack"), "cannot read stack")
    _refused(cli("submit", "--request", str(request_file)), "one of the arguments --stack --url is required")
    assert url.verdicts == [] and _executions(aws) == []
