"""Submit: a customer request handed in by an authenticated caller starts a run that knows who asked.

    submit(caller verified by IAM, request[, client token]) -> Submission stored (create once) under the name of
        (caller, client token or the request's text) -> execution started by that name; a retried POST finds
        its record and returns the first run (running or closed); a token that named another request is
        refused (CLIENT_TOKEN_REUSED), nothing written; a caller the map does not name (SUBMITTER_UNKNOWN) or
        whose address it cannot establish (SUBMITTER_UNMAPPED: an Identity Center username that is no address,
        a bare name under separation of duties) is refused before anything is written
    requester_of(execution name) at RunAgentUntilApproval:
        a submission exists                   -> its requested_by (the verified caller)
        none, separation of duties on         -> RequesterUnverifiedError (nothing runs, nothing is written)
        none, separation of duties off        -> what the execution input claims (as before submit existed)

The record is stored before the execution starts, so a run that was submitted always finds it; the body's
own ``requested_by`` (if a caller sends one) is never read.

    submit_received(e-mail SES received, checked: domain/intake/inbound_mail.py) -> the same record-then-start, under
        a name derived from the SES message id and the text: a retried delivery finds its record (the same
        one) and starts the same name with the same input, which Step Functions answers with the running
        execution
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from ...domain.errors import (
    ClientTokenReusedError,
    IntegrityError,
    RequesterUnverifiedError,
    ValidationError,
)
from ...domain.identity import Submitter, is_caller_arn, normalize_identity, requester_from_caller
from ...domain.intake.inbound_mail import AcceptedMail
from ...domain.intake.submissions import (
    CLIENT_TOKEN_PATTERN,
    MAX_REQUEST_CHARS,
    Submission,
    received_execution_name,
    submitted_execution_name,
)
from ...domain.records import utc_iso
from ..runtime import Runtime, need


@dataclass(frozen=True)
class Submitted:
    """The stored submission and the execution it started."""

    submission: Submission
    execution_arn: str


@dataclass(frozen=True)
class Submit:
    """``request`` handed in by the IAM caller ``caller_arn`` (``caller_id``); ``submitters`` maps callers to
    people; ``options`` (such as the planning day) go into the execution input beside it; ``client_token``
    names the run (a retry with it is the same run), else the request's text does."""

    caller_arn: str
    caller_id: str
    request: str
    submitters: Mapping[str, Submitter]
    options: Mapping[str, str] | None = None
    client_token: str | None = None
    # Under separation of duties every requester must be an address, the form approvers are compared in.
    separation_of_duties: bool = True


def submit(rt: Runtime, cmd: Submit) -> Submitted:
    """Record who submitted ``request`` (the person ``submitters`` maps the caller to; an unmapped caller, or one
    whose address cannot be established, is refused, nothing written), then start its run under the name of
    (caller, client token or request text): a retry returns the first run. ``options``, such as the planning
    day, go into the execution input beside it; never who asked."""
    _check_request(cmd.request)
    if cmd.client_token is not None and not CLIENT_TOKEN_PATTERN.fullmatch(cmd.client_token):
        raise ValidationError("the client token must be 1 to 64 letters, digits or . _ : -")
    if not is_caller_arn(cmd.caller_arn):
        raise ValidationError("the caller is not named by an IAM or STS ARN")
    # SubmitterUnknownError / SubmitterUnmappedError (an address could not be established): nothing written.
    requested_by = requester_from_caller(cmd.caller_arn, cmd.submitters, addresses_only=cmd.separation_of_duties)
    caller = (cmd.caller_arn, cmd.caller_id)
    name = submitted_execution_name(requested_by, cmd.request, cmd.client_token)
    submission = _submission(name, requested_by, caller, cmd.request, rt.clock())
    try:
        stored = _record_once(rt, submission)
    except IntegrityError:
        raise ClientTokenReusedError(
            "this client token already names a run of another request; nothing was submitted (use a new token)"
        ) from None
    return _start(rt, stored, cmd.options, retry=stored is not submission)


def _record_once(rt: Runtime, submission: Submission) -> Submission:
    """Store ``submission``, or find the same one stored by an earlier try (returned: its first time); another
    record under the name is ``IntegrityError``."""
    submissions = need(rt.submissions, "submission store")
    try:
        submissions.put_submission(submission)
    except IntegrityError:
        stored = submissions.get_submission(submission.execution_name)
        if stored is None or _differs(stored, submission):
            raise
        return stored
    return submission


@dataclass(frozen=True)
class SubmitReceived:
    """The e-mail SES received as ``message_id``, checked and ``accepted``."""

    accepted: AcceptedMail
    message_id: str


def submit_received(rt: Runtime, cmd: SubmitReceived) -> Submitted:
    """Record the e-mail SES received as ``message_id`` (checked, ``accepted``) and start its run, once: a
    retry finds the record it wrote and starts the same execution again, which is no second run."""
    accepted, message_id = cmd.accepted, cmd.message_id
    _check_request(accepted.request)
    submission = _submission(
        received_execution_name(message_id, accepted.request),
        accepted.requested_by,
        # The channel is who called; the SES message id names the stored message (inbound/<message id>).
        (accepted.requested_by, message_id),
        accepted.request,
        rt.clock(),
        accepted.customer,
    )
    stored = _record_once(rt, submission)
    return _start(rt, stored, None, retry=stored is not submission)


def _check_request(request: str) -> None:
    if not request.strip():
        raise ValidationError("the request is empty")
    if len(request) > MAX_REQUEST_CHARS:
        raise ValidationError(f"the request is longer than {MAX_REQUEST_CHARS} characters")


def _submission(
    name: str, requested_by: str, caller: tuple[str, str], request: str, now: datetime, customer: str | None = None
) -> Submission:
    """The record; ``caller``: (ARN, id) of who called (for an e-mail: the sender, the SES message id)."""
    caller_arn, caller_id = caller
    return Submission(
        execution_name=name,
        requested_by=requested_by,
        caller_arn=caller_arn,
        caller_id=caller_id[:256],
        request=request,
        request_sha256=hashlib.sha256(request.encode("utf-8")).hexdigest(),
        submitted_at=utc_iso(now),
        customer=customer,
    )


def _differs(stored: Submission, submission: Submission) -> bool:
    """False when they are one submission (the time it was tried aside, and for a signed submit the caller's
    session id, which changes with its credentials)."""
    volatile = {"submitted_at", "caller_id", "caller_arn"} if submission.customer is None else {"submitted_at"}
    return stored.model_dump(exclude=volatile) != submission.model_dump(exclude=volatile)


def _start(rt: Runtime, submission: Submission, options: Mapping[str, str] | None, *, retry: bool) -> Submitted:
    # The input carries the request for the console reader; the run takes it (and who asked) from the record.
    # It is built from the record alone, so a retry starts the same name with the same input.
    starter = need(rt.starter, "workflow starter")
    try:
        arn = starter.start(submission.execution_name, {**(options or {}), "request": submission.request})
    except IntegrityError:
        if not retry:
            raise
        # A retry of a submit whose execution ran (closed) or took other options: the first run answers.
        arn = starter.execution_arn(submission.execution_name)
    return Submitted(submission=submission, execution_arn=arn)


@dataclass(frozen=True)
class RequesterOf:
    """Who asked for the run ``execution_name`` (the execution input ``claimed`` someone; under
    ``separation_of_duties`` only a submission record counts)."""

    execution_name: str
    claimed: str
    separation_of_duties: bool


def requester_of(rt: Runtime, cmd: RequesterOf) -> tuple[str, Submission | None]:
    """Who requested the run ``execution_name`` and its submission; refuses an unverified one under SoD."""
    execution_name, claimed, separation_of_duties = cmd.execution_name, cmd.claimed, cmd.separation_of_duties
    submissions = need(rt.submissions, "submission store")
    submission = submissions.get_submission(execution_name) if execution_name else None
    if submission is not None:
        return submission.requested_by, submission
    if separation_of_duties:
        raise RequesterUnverifiedError(
            "separation of duties is on and this run has no verified requester: start runs with "
            "`production-orchestrator submit` (the signed submit URL), not a hand-typed start-execution"
        )
    return normalize_identity(claimed), None
