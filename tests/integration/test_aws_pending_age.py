"""The scheduled gauge behind the "oldest pending approval" alarm, on a moto server."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from production_orchestrator.contracts import METRIC_OLDEST_PENDING_APPROVAL_AGE
from production_orchestrator.handlers import report_pending_age
from tests.support.aws_flow import start
from tests.support.moto_aws import AwsWorld, Clock, LambdaContext, cold_start


def _report(capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, int], list[int]]:
    cold_start()
    result = report_pending_age.handler({}, LambdaContext(function_name="po-report_pending_age"))
    published = []  # the values of the metric in the Embedded Metric Format lines Powertools printed
    for line in capsys.readouterr().out.splitlines():
        record = json.loads(line) if line.startswith("{") else {}
        if METRIC_OLDEST_PENDING_APPROVAL_AGE in record:
            values = record[METRIC_OLDEST_PENDING_APPROVAL_AGE]
            published += [int(v) for v in (values if isinstance(values, list) else [values])]
    return result, published


def test_publishes_the_age_of_the_oldest_pending_approval_and_zero_once_decided(
    aws: AwsWorld, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _report(capsys) == ({"pending": 0, "oldest_pending_age_seconds": 0}, [0])
    flow = start(aws)
    flow.request_approval()
    clock.advance(timedelta(minutes=42))
    assert _report(capsys) == ({"pending": 1, "oldest_pending_age_seconds": 42 * 60}, [42 * 60])
    flow.post("approve", reason="fine")
    assert _report(capsys) == ({"pending": 0, "oldest_pending_age_seconds": 0}, [0])


def test_an_approval_whose_window_closed_no_longer_counts_as_waiting(
    aws: AwsWorld, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = start(aws)
    flow.request_approval()
    clock.advance(timedelta(days=400))
    result, _ = _report(capsys)
    assert result["pending"] == 0
