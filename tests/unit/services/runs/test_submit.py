"""submit: the verified caller becomes the requester (never anything the request says), the record is stored
before the execution starts; requester_of: a run finds its submission by its own name, and without one it is
refused under separation of duties."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta

import pytest

from production_orchestrator.domain.errors import (
    ClientTokenReusedError,
    IntegrityError,
    RequesterUnverifiedError,
    SubmitterUnknownError,
    SubmitterUnmappedError,
    ValidationError,
)
from production_orchestrator.domain.identity import channel_identity, parse_submitter_map
from production_orchestrator.domain.intake.customer_message import read_message
from production_orchestrator.domain.intake.inbound_mail import AcceptedMail
from production_orchestrator.domain.intake.submissions import Submission, received_execution_name
from production_orchestrator.services.runs.submit import (
    RequesterOf,
    Submit,
    SubmitReceived,
    requester_of,
    submit,
    submit_received,
)
from production_orchestrator.services.runtime import Runtime
from tests.support.fakes import InMemoryApprovalStore, InMemoryShopStore, InMemorySubmissionStore, RecordingStarter
from tests.support.memory_world import T0

OLGA = "arn:aws:sts::123456789012:assumed-role/ShopOperator/Olga@Shop.Example"
# The deployment maps the operator's role to the person; the session name is the caller's to choose.
SUBMITTERS = {"arn:aws:iam::123456789012:role/ShopOperator": "olga@shop.example"}


def _rt(submissions: InMemorySubmissionStore, starter: RecordingStarter | None = None, now: datetime = T0) -> Runtime:
    """A runtime of the submit entry: the submission records and the workflow starter."""
    approvals = InMemoryApprovalStore()
    return Runtime(
        store=InMemoryShopStore(approvals=approvals),
        approvals=approvals,
        clock=lambda: now,
        pid=1,
        submissions=submissions,
        starter=starter or RecordingStarter(),
    )


REQUEST = "From: coach@northside-fc.example\n\nPlease make 120 red crest patches by Thursday."


def test_the_caller_is_the_requester_and_the_record_comes_before_the_execution() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    done = submit(
        _rt(store, starter, T0), Submit(caller_arn=OLGA, caller_id="AROA:olga", request=REQUEST, submitters=SUBMITTERS)
    )
    record = done.submission
    assert record.requested_by == "olga@shop.example"
    assert record.request_sha256 == hashlib.sha256(REQUEST.encode()).hexdigest()
    assert record.execution_name.startswith("sub-") and len(record.execution_name) == 36
    assert starter.started == [(record.execution_name, {"request": REQUEST})]
    assert done.execution_arn.endswith(f":{record.execution_name}")
    assert store.get_submission(record.execution_name) == record


def test_options_go_into_the_execution_input_but_never_decide_who_asked() -> None:
    starter = RecordingStarter()
    options = {"as_of": "2026-08-12", "request": "a different text"}
    done = submit(
        _rt(InMemorySubmissionStore(), starter, T0),
        Submit(caller_arn=OLGA, caller_id="", request=REQUEST, options=options, submitters=SUBMITTERS),
    )
    assert starter.started[0][1] == {"as_of": "2026-08-12", "request": REQUEST}
    assert done.submission.requested_by == "olga@shop.example"


@pytest.mark.parametrize(
    ("caller", "text"),
    [(OLGA, "   "), (OLGA, "x" * 20_001), ("olga@shop.example", REQUEST), ("arn:aws:s3:::bucket", REQUEST)],
)
def test_bad_input_stores_nothing_and_starts_nothing(caller: str, text: str) -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    with pytest.raises(ValidationError):
        submit(_rt(store, starter, T0), Submit(caller_arn=caller, caller_id="", request=text, submitters=SUBMITTERS))
    assert starter.started == [] and store._records == {}


def test_an_unmapped_caller_is_refused_with_its_code_and_nothing_is_written() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    # Approver ana assumes an unmapped role and names her session build-42 (or after herself): refused either way.
    for session in ("build-42", "ana@example.com"):
        with pytest.raises(SubmitterUnknownError) as refused:
            submit(
                _rt(store, starter, T0),
                Submit(
                    caller_arn=f"arn:aws:sts::123456789012:assumed-role/Deployer/{session}",
                    caller_id="",
                    request=REQUEST,
                    submitters=SUBMITTERS,
                ),
            )
        assert refused.value.code == "SUBMITTER_UNKNOWN"
    assert starter.started == [] and store._records == {}


SSO = "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Ops_0a1b"


@pytest.mark.parametrize(
    ("submitters", "session", "separation"),
    [
        ({SSO: "identity-center"}, "ana", True),  # the username is no address
        ({SSO: "identity-center"}, "ana", False),  # nor without separation of duties: no address, no requester
        ({SSO: {"bo": "bo@shop.example"}}, "ana", True),  # the username map does not name her
        ({"arn:aws:iam::123456789012:role/Ops": "ops-team"}, "anything", True),  # a bare name, under SoD
    ],
)
def test_a_session_whose_address_cannot_be_established_is_refused_at_run_start(
    submitters: dict[str, object], session: str, separation: bool
) -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    role = "AWSReservedSSO_Ops_0a1b" if SSO in submitters else "Ops"
    with pytest.raises(SubmitterUnmappedError) as refused:
        submit(
            _rt(store, starter, T0),
            Submit(
                caller_arn=f"arn:aws:sts::123456789012:assumed-role/{role}/{session}",
                caller_id="",
                request=REQUEST,
                submitters=parse_submitter_map(submitters),
                separation_of_duties=separation,
            ),
        )
    assert refused.value.code == "SUBMITTER_UNMAPPED"
    assert starter.started == [] and store._records == {}


def test_an_identity_center_username_in_another_case_is_the_same_address() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    done = submit(
        _rt(store, starter, T0),
        Submit(
            caller_arn="arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Ops_0a1b/ANA@Shop.Example",
            caller_id="",
            request=REQUEST,
            submitters=parse_submitter_map({SSO: "identity-center"}),
        ),
    )
    assert done.submission.requested_by == "ana@shop.example"


def test_a_name_already_recorded_starts_nothing() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    first = submit(
        _rt(store, starter, T0), Submit(caller_arn=OLGA, caller_id="", request=REQUEST, submitters=SUBMITTERS)
    ).submission
    with pytest.raises(IntegrityError):
        store.put_submission(first)
    assert len(starter.started) == 1


def test_a_run_takes_its_requester_from_its_own_submission() -> None:
    store = InMemorySubmissionStore()
    record = submit(
        _rt(store, RecordingStarter(), T0),
        Submit(caller_arn=OLGA, caller_id="", request=REQUEST, submitters=SUBMITTERS),
    ).submission
    who, found = requester_of(_rt(store), RequesterOf(record.execution_name, "mallory@shop.example", True))
    assert (who, found) == ("olga@shop.example", record)


@pytest.mark.parametrize("name", ["", "hand-typed-run", "sub-" + "f" * 32])
def test_without_a_submission_separation_of_duties_refuses(name: str) -> None:
    with pytest.raises(RequesterUnverifiedError):
        requester_of(_rt(InMemorySubmissionStore()), RequesterOf(name, "olga@shop.example", True))


def test_without_separation_of_duties_the_claim_is_kept_normalized() -> None:
    who, found = requester_of(_rt(InMemorySubmissionStore()), RequesterOf("hand-typed", " Olga@Shop.Example ", False))
    assert (who, found) == ("olga@shop.example", None)


# --- e-mails received by SES: the same record-then-start, once per message --------------------------------

MESSAGE_ID = "o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g1"


def _accepted(request: str = REQUEST, customer: str = "coach@northside-fc.example") -> AcceptedMail:
    return AcceptedMail(
        requested_by=channel_identity("orders@shop.example"),
        customer=customer,
        request=request,
        message=read_message(request),
    )


def test_a_received_email_is_requested_by_the_channel_for_its_customer() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    done = submit_received(_rt(store, starter, T0), SubmitReceived(_accepted(), MESSAGE_ID))
    record = done.submission
    assert record.execution_name == received_execution_name(MESSAGE_ID, REQUEST)
    assert (record.requested_by, record.customer) == ("inbound:orders@shop.example", "coach@northside-fc.example")
    assert (record.caller_arn, record.caller_id) == ("inbound:orders@shop.example", MESSAGE_ID)
    assert starter.started == [(record.execution_name, {"request": REQUEST})]
    who, found = requester_of(_rt(store), RequesterOf(record.execution_name, "coach@northside-fc.example", True))
    assert (who, found) == ("inbound:orders@shop.example", record)


def test_a_retried_delivery_finds_its_record_and_its_execution() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    first = submit_received(_rt(store, starter, T0), SubmitReceived(_accepted(), MESSAGE_ID))
    again = submit_received(_rt(store, starter, T0 + timedelta(minutes=3)), SubmitReceived(_accepted(), MESSAGE_ID))
    assert again == first  # the stored record (first submitted_at), the same execution
    assert len(store._records) == 1 and len(starter.started) == 1


def test_another_record_under_the_name_is_an_integrity_error_and_starts_nothing() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    name = received_execution_name(MESSAGE_ID, REQUEST)
    planted = submit(
        _rt(store, RecordingStarter(), T0),
        Submit(caller_arn=OLGA, caller_id="", request=REQUEST, submitters=SUBMITTERS),
    ).submission
    store.put_submission(planted.model_copy(update={"execution_name": name}))
    with pytest.raises(IntegrityError):
        submit_received(_rt(store, starter, T0), SubmitReceived(_accepted(), MESSAGE_ID))
    assert starter.started == []
    assert store.get_submission(name) == planted.model_copy(update={"execution_name": name})


def test_old_records_without_a_customer_stay_readable() -> None:
    store = InMemorySubmissionStore()
    record = submit(
        _rt(store, RecordingStarter(), T0),
        Submit(caller_arn=OLGA, caller_id="", request=REQUEST, submitters=SUBMITTERS),
    ).submission
    old = json.loads(record.model_dump_json())
    del old["customer"]
    assert Submission.model_validate(old).customer is None


def _signed(request: str = REQUEST, token: str | None = None) -> Submit:
    return Submit(
        caller_arn=OLGA, caller_id="AROAEXAMPLE:1", request=request, submitters=SUBMITTERS, client_token=token
    )


def test_a_retried_submit_returns_the_first_run() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    first = submit(_rt(store, starter, T0), _signed())
    again = submit(_rt(store, starter, T0 + timedelta(seconds=30)), _signed())
    assert again == first  # the stored record (its first submitted_at) and the same execution
    assert len(store._records) == 1 and len(starter.started) == 1


def test_a_retry_after_the_first_run_ended_still_returns_it() -> None:
    """Step Functions refuses a closed execution's name (ExecutionAlreadyExists): the retry answers with it."""
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    first = submit(_rt(store, starter, T0), _signed())
    starter.started[0] = (starter.started[0][0], {"closed": "yes"})  # what a closed execution looks like to start
    again = submit(_rt(store, starter, T0 + timedelta(days=1)), _signed())
    assert again.execution_arn == first.execution_arn and len(starter.started) == 1


def test_a_client_token_names_the_run() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    one = submit(_rt(store, starter, T0), _signed(token="po-42"))
    two = submit(_rt(store, starter, T0), _signed(token="po-43"))  # the same words, another run on purpose
    assert one.submission.execution_name != two.submission.execution_name and len(starter.started) == 2
    assert submit(_rt(store, starter, T0), _signed(token="po-42")) == one


def test_a_client_token_of_another_request_is_refused_and_writes_nothing() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    submit(_rt(store, starter, T0), _signed(token="po-42"))
    records, started = dict(store._records), list(starter.started)
    with pytest.raises(ClientTokenReusedError) as refused:
        submit(_rt(store, starter, T0), _signed(REQUEST.replace("120", "300"), token="po-42"))
    assert refused.value.code == "CLIENT_TOKEN_REUSED"
    assert store._records == records and starter.started == started


@pytest.mark.parametrize("token", ["", "a" * 65, "no spaces", "ü"])
def test_a_malformed_client_token_is_refused_and_writes_nothing(token: str) -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    with pytest.raises(ValidationError):
        submit(_rt(store, starter, T0), _signed(token=token))
    assert store._records == {} and starter.started == []


def test_two_callers_of_the_same_words_are_two_submissions() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    submitters = {**SUBMITTERS, "arn:aws:iam::123456789012:role/Sales": "sam@shop.example"}
    olga = submit(_rt(store, starter, T0), Submit(OLGA, "", REQUEST, submitters))
    sam = submit(
        _rt(store, starter, T0),
        Submit("arn:aws:sts::123456789012:assumed-role/Sales/sam", "", REQUEST, submitters),
    )
    assert olga.submission.execution_name != sam.submission.execution_name
