"""Secrets stay out of logs, and the decision Lambda stays out of strands.

Every log record of a full run (start, request, GET, HEAD, two POSTs, resume twice, expiry) is captured,
with its extra fields and any traceback, along with everything written to stdout and stderr (Powertools
JSON lines, EMF metrics). The task token and every link secret must appear in none of it.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from production_orchestrator.domain.errors import ConfigurationError, ResumeRefusedError
from production_orchestrator.handlers.observability import SERVICE_NAME, logger
from tests.support.aws_flow import start
from tests.support.moto_aws import APPROVERS, AwsWorld, Clock, LambdaContext, cold_start, load_event

WIRE_LOGGERS = ("botocore", "boto3", "urllib3", "s3transfer")


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = [record.getMessage(), repr(record.__dict__)]
        if record.name == SERVICE_NAME:  # the JSON line as Powertools writes it, appended keys included
            text.append(logger.registered_formatter.format(record))
        if record.exc_info:
            text.append(logging.Formatter().formatException(record.exc_info))
        self.lines.append("\n".join(text))


@pytest.fixture
def captured() -> Iterator[_Capture]:
    capture = _Capture()
    root = logging.getLogger()
    service = logging.getLogger(SERVICE_NAME)
    saved = (root.level, service.level)
    root.addHandler(capture)
    service.addHandler(capture)
    # Everything at DEBUG, as an operator debugging a function would set it. botocore's wire log would
    # print request bodies; the handlers pin it to INFO, and this test proves that holds.
    root.setLevel(logging.DEBUG)
    service.setLevel(logging.DEBUG)
    try:
        yield capture
    finally:
        root.removeHandler(capture)
        service.removeHandler(capture)
        root.setLevel(saved[0])
        service.setLevel(saved[1])


def wrong_secret(secret: str) -> str:
    """A secret of the same shape that is never the real one (changing the last character to a fixed letter
    would leave it unchanged whenever it already ended in that letter: 1 run in 64)."""
    return secret[:-1] + ("A" if secret[-1] != "A" else "B")


def test_the_wrong_secret_is_always_wrong() -> None:
    for secret in ("x" * 42 + "A", "x" * 42 + "B", "x" * 43):
        assert wrong_secret(secret) != secret and len(wrong_secret(secret)) == len(secret)


def test_wire_loggers_are_pinned_above_debug() -> None:
    for name in WIRE_LOGGERS:
        assert logging.getLogger(name).level == logging.INFO


def test_no_task_token_or_link_secret_in_any_log(
    aws: AwsWorld, clock: Clock, captured: _Capture, capfd: pytest.CaptureFixture[str]
) -> None:
    flow = start(aws)
    flow.request_approval()
    assert len(flow.links) == len(APPROVERS)
    flow.get()
    flow.get(method="HEAD")
    flow.post("approve", s=wrong_secret(flow.link().secret))  # a wrong secret is not echoed either
    assert flow.post("approve", reason="go")["statusCode"] == 200
    assert flow.post("reject", link=flow.link(APPROVERS[1]))["statusCode"] == 409
    assert flow.resume()["outcome"] == "applied"
    with pytest.raises(ResumeRefusedError):  # a retry gets the recorded outcome; another interrupt is refused
        flow.resume(interrupt_id=flow.run["interrupt_id"] + "x")
    flow.record_expiry()
    out, err = capfd.readouterr()
    everything = "\n".join([*captured.lines, out, err])
    assert "approval links sent" in everything and "resume refused" in everything  # the capture works
    assert flow.approval_id in everything  # ids are logged as fields
    secrets = [flow.task_token, *(link.secret for link in flow.links)]
    for secret in secrets:
        assert secret not in everything
    # Nor a large fragment of one (a truncated token would still be a leak).
    for secret in secrets:
        assert secret[:24] not in everything


def test_records_and_events_do_not_print_secrets(aws: AwsWorld, clock: Clock) -> None:
    from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from production_orchestrator.handlers.events import DecisionForm, RequestApprovalEvent

    flow = start(aws)
    flow.request_approval()
    record = DynamoApprovalStore(aws.dynamodb, aws.table).get_approval(flow.approval_id)
    assert record is not None and record.task_token == flow.task_token
    event = RequestApprovalEvent.model_validate({**flow.run, "task_token": flow.task_token})
    form = DecisionForm(a=flow.approval_id, s=flow.link().secret, decision="approve", reviewed_hash="0")
    for shown in (repr(record), str(record), repr(event), str(event)):
        assert flow.task_token not in shown
    for link_hash in (a.secret_hash for a in record.links):
        assert link_hash not in repr(record)
    assert flow.link().secret not in repr(form) and flow.link().secret not in str(form)


def test_decide_does_not_import_strands() -> None:
    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys; import production_orchestrator.handlers.decide; "
        "bad = sorted(m for m in sys.modules if m == 'strands' or m.startswith('strands.')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(root / "functions"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("PO_TABLE_NAME", "", "PO_TABLE_NAME"),
        ("PO_TABLE_NAME", "no spaces allowed", "PO_TABLE_NAME"),
        ("PO_APPROVAL_WINDOW", "a week", "PO_APPROVAL_WINDOW"),
        ("PO_APPROVERS", "ana@example.com,not-an-address", "PO_APPROVERS"),
        ("PO_LINK_BASE_URL", "http://approve.example.com/", "PO_LINK_BASE_URL"),
        ("PO_TOPIC_ARN", "", "PO_TOPIC_ARN"),
        ("PO_SESSION_BUCKET", "", "PO_SESSION_BUCKET"),
        ("PO_PROVIDER", "gpt", "unknown provider"),
        ("PO_MODEL_ENDPOINT", "http://127.0.0.1:9", "takes no endpoint"),
    ],
)
def test_bad_configuration_fails_at_cold_start(
    variable: str, value: str, message: str, aws: AwsWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    from production_orchestrator.handlers import record_expiry, request_approval, resume_agent

    monkeypatch.setenv(variable, value)
    cold_start()
    ids = {
        "task_token": "AQB-token",
        "session_id": "sess-" + "a" * 32,
        "checkpoint_id": "ckpt-" + "b" * 32,
        "interrupt_id": "v1:x",
        "proposal_hash": "c" * 64,
        "expires_at": "2026-08-19T08:00:00Z",
        "approval_id": "appr-" + "d" * 32,
    }
    handlers = {
        "PO_TOPIC_ARN": (request_approval, "request_approval"),
        "PO_APPROVERS": (request_approval, "request_approval"),
        "PO_LINK_BASE_URL": (request_approval, "request_approval"),
    }
    module, sample = handlers.get(variable, (resume_agent, "resume_agent"))
    if variable == "PO_TABLE_NAME":
        module, sample = record_expiry, "record_expiry"
    with pytest.raises(ConfigurationError) as failed:
        module.handler(load_event(sample, **ids), LambdaContext())
    assert message in str(failed.value)
