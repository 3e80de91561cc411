"""submit: the verified caller becomes the requester (never anything the request says), the record is stored
before the execution starts; requester_of: a run finds its submission by its own name, and without one it is
refused under separation of duties."""

from __future__ import annotations

import hashlib

import pytest

from production_orchestrator.domain.errors import IntegrityError, RequesterUnverifiedError, ValidationError
from production_orchestrator.lifecycle.submit import requester_of, submit
from tests.support.fakes import InMemorySubmissionStore, RecordingStarter
from tests.support.memory_world import T0

OLGA = "arn:aws:sts::123456789012:assumed-role/ShopOperator/Olga@Shop.Example"
REQUEST = "From: coach@northside-fc.example\n\nPlease make 120 red crest patches by Thursday."


def test_the_caller_is_the_requester_and_the_record_comes_before_the_execution() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    done = submit(store, starter, caller_arn=OLGA, caller_id="AROA:olga", request=REQUEST, now=T0)
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
        InMemorySubmissionStore(), starter, caller_arn=OLGA, caller_id="", request=REQUEST, now=T0, options=options
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
        submit(store, starter, caller_arn=caller, caller_id="", request=text, now=T0)
    assert starter.started == [] and store._records == {}


def test_a_name_already_recorded_starts_nothing() -> None:
    store, starter = InMemorySubmissionStore(), RecordingStarter()
    first = submit(store, starter, caller_arn=OLGA, caller_id="", request=REQUEST, now=T0).submission
    with pytest.raises(IntegrityError):
        store.put_submission(first)
    assert len(starter.started) == 1


def test_a_run_takes_its_requester_from_its_own_submission() -> None:
    store = InMemorySubmissionStore()
    record = submit(store, RecordingStarter(), caller_arn=OLGA, caller_id="", request=REQUEST, now=T0).submission
    who, found = requester_of(store, record.execution_name, claimed="mallory@shop.example", separation_of_duties=True)
    assert (who, found) == ("olga@shop.example", record)


@pytest.mark.parametrize("name", ["", "hand-typed-run", "sub-" + "f" * 32])
def test_without_a_submission_separation_of_duties_refuses(name: str) -> None:
    with pytest.raises(RequesterUnverifiedError):
        requester_of(InMemorySubmissionStore(), name, claimed="olga@shop.example", separation_of_duties=True)


def test_without_separation_of_duties_the_claim_is_kept_normalized() -> None:
    who, found = requester_of(
        InMemorySubmissionStore(), "hand-typed", claimed=" Olga@Shop.Example ", separation_of_duties=False
    )
    assert (who, found) == ("olga@shop.example", None)
