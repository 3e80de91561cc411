"""Submissions: a customer request handed in by an authenticated caller, recorded before its run starts.

    submit (IAM-signed) -> Submission(execution name, requested_by = the verified caller) stored (create once)
                        -> execution started under that name
    RunAgentUntilApproval -> reads the Submission by its own execution name -> requested_by from it, never
                             from the execution input; none and separation of duties on -> refused

The execution name is chosen by the submit step from who asked and the caller's client token (or, without one,
the request's own text), so a retried POST names the same execution and returns the first run instead of
starting a second (issue 29); only that step can create the record a run will find (a hand-typed
``start-execution`` finds none), and the caller is part of the name, so no one can take another caller's.

    SES receipt rule -> receive_email -> Submission(execution name from the SES message id and text,
                        requested_by = the inbound channel, customer = the authenticated sender) -> the same start

A received e-mail's name is derived from its SES message id and its text instead, so a retried delivery finds
its record and its execution rather than starting a second run (services/runs/submit.py).
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..records import Timestamp, require_hash, require_id

SUBMISSION_SCHEMA_VERSION: Literal[1] = 1
EXECUTION_NAME_PATTERN = re.compile(r"^sub-[0-9a-f]{32}\Z")
MAX_REQUEST_CHARS = 20_000
# An IAM role session ARN is up to about 170 characters; the longest requester any record holds.
MAX_REQUESTER_CHARS = 300
ExecutionName = Annotated[str, AfterValidator(lambda v: require_id(v, EXECUTION_NAME_PATTERN, "execution name"))]
RequestHash = Annotated[str, AfterValidator(lambda v: require_hash(v, "request hash"))]


def is_submission_name(value: str) -> bool:
    """True when ``value`` is an execution name the submit step could have chosen."""
    return EXECUTION_NAME_PATTERN.fullmatch(value) is not None


CLIENT_TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,64}\Z")


def submitted_execution_name(requested_by: str, request: str, client_token: str | None = None) -> str:
    """The execution name of ``requested_by``'s submit of ``request``: named by the caller's ``client_token``
    when given (one token, one run), else by the request's text, so a retried POST is the same execution."""
    what = f"token:{client_token}" if client_token else "request:" + hashlib.sha256(request.encode("utf-8")).hexdigest()
    return "sub-" + hashlib.sha256(f"submit\n{requested_by}\n{what}".encode()).hexdigest()[:32]


def received_execution_name(message_id: str, request: str) -> str:
    """The execution name of the e-mail SES received as ``message_id`` with the text ``request``: the same for
    every retry of it. The text is part of it so that knowing a message id (it is in logs and object keys) is
    not enough to start an execution under that name before the e-mail's own does."""
    digest = hashlib.sha256(f"{message_id}\n{hashlib.sha256(request.encode('utf-8')).hexdigest()}".encode())
    return "sub-" + digest.hexdigest()[:32]


class Submission(BaseModel):
    """Who handed in which request, for which execution; written once, before the execution starts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = SUBMISSION_SCHEMA_VERSION
    execution_name: ExecutionName
    requested_by: str = Field(min_length=1, max_length=MAX_REQUESTER_CHARS)
    caller_arn: str = Field(min_length=1, max_length=2048)
    caller_id: str = Field(default="", max_length=256)
    request: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS)
    request_sha256: RequestHash
    submitted_at: Timestamp
    # The sender of a customer e-mail received by SES (SPF, DKIM and DMARC passed): who the order is for,
    # never who asked. Absent for signed submits and in records written before e-mail intake existed.
    customer: str | None = Field(default=None, min_length=3, max_length=MAX_REQUESTER_CHARS)
