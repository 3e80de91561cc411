"""Event and response models of the handlers (samples under tests/events/).

Step Functions may nest the pieces (``ResultPath``): the run output under ``run`` and the decision
pointer under ``decision`` are lifted to the top level, so flat and nested payloads both parse.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticValidationError

from ..contracts import REQUEST_PREFIX, Outcome
from ..domain.approval.approvals import ApprovalId
from ..domain.errors import ValidationError
from ..domain.intake.inbound_mail import ReceivedMail
from ..domain.intake.submissions import MAX_REQUEST_CHARS, MAX_REQUESTER_CHARS
from ..domain.limits import MAX_NOTE_CHARS
from ..domain.records import CheckpointId, ProposalHash, SessionId
from ..domain.shop.model import parse_day

M = TypeVar("M", bound=BaseModel)


def _existing_day(value: str) -> str:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("must be a day written YYYY-MM-DD")
    try:
        return parse_day(value).isoformat()
    except ValueError:
        raise ValueError(f"{value} is not a day of the calendar") from None


# A planning day that exists (2026-02-30 is refused here, not by a run that can only fail).
PlanningDay = Annotated[str, AfterValidator(_existing_day)]


def parse_event(model: type[M], event: Any) -> M:
    """``event`` as ``model``; a bad event is a ``ValidationError`` that names fields, never values."""
    try:
        return model.model_validate(event)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'event'}: {err['msg']}"
            for err in exc.errors(include_input=False, include_url=False, include_context=False)
        )
        raise ValidationError(f"invalid {model.__name__}: {problems}") from None


def _lift(data: Any, *nested: str) -> Any:
    if not isinstance(data, dict):
        return data
    flat = dict(data)
    for name in nested:
        inner = flat.pop(name, None)
        if isinstance(inner, dict):
            flat = {**inner, **flat}
    return flat


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class _Checkpointed(_Event):
    checkpoint_id: CheckpointId


class RevisePointer(_Event):
    """The approval a revision was asked on (the workflow's ``$.decision``): the guidance is read from it."""

    checkpoint_id: CheckpointId
    approval_id: ApprovalId


class RunAgentEvent(_Event):
    """The execution input of ``RunAgentUntilApproval``, and the execution's own name.

    ``{"request": "<e-mail>"}`` plans a customer's e-mail on the table's shop (``shop import --table`` first);
    ``{"request_s3_key": "requests/..."}`` names one in the session bucket (for one too large for the
    input); ``as_of`` sets the planning day (default: today in the shop's time zone). Without a request
    the run plans a reference scenario (``scenario``, default ``PO_SCENARIO``). The state machine passes
    the input under ``input`` and ``$$.Execution.Name`` beside it, so an input cannot choose the name.
    """

    scenario: str | None = Field(default=None, max_length=60)
    request: str | None = Field(default=None, min_length=1, max_length=MAX_REQUEST_CHARS, repr=False)
    # ".." is refused where the key is read (adapters/aws/s3_requests.py).
    request_s3_key: str | None = Field(default=None, pattern=rf"^{REQUEST_PREFIX}[A-Za-z0-9!_.*'()/-]{{1,900}}$")
    as_of: PlanningDay | None = None
    # Who started the run as the execution input claims it: believed only with separation of duties off.
    requested_by: str = Field(default="", max_length=MAX_REQUESTER_CHARS)
    # Set by the state machine from the context object, so an execution input cannot choose it.
    execution_name: str = Field(default="", max_length=80)
    # PlanRevisedVersion: plan the next version of the run whose approval a revision was asked on.
    revise: RevisePointer | None = None

    @model_validator(mode="before")
    @classmethod
    def _flatten(cls, data: Any) -> Any:
        # The execution name comes from the state machine's context object, never from the input inside.
        # Nor does a revision: only the state machine's PlanRevisedVersion state passes ``revise``, beside the input.
        if isinstance(data, dict) and isinstance(data.get("input"), dict):
            inner = {k: v for k, v in data["input"].items() if k not in ("execution_name", "revise")}
            return {**inner, **{k: v for k, v in data.items() if k != "input"}}
        return data

    @model_validator(mode="after")
    def _one_request(self) -> RunAgentEvent:
        if self.request is not None and self.request_s3_key is not None:
            raise ValueError("give the request inline or by request_s3_key, not both")
        return self


class RunAgentOutput(BaseModel):
    """What the next states need: ids, the proposal hash and the expiry."""

    outcome: Literal["awaiting_approval"] = "awaiting_approval"
    session_id: str
    checkpoint_id: str
    interrupt_id: str
    proposal_hash: str
    expires_at: str
    # Whole seconds from the run's clock to expires_at, at least 1: the wait state's timeout (TimeoutSecondsPath),
    # so every version's wait ends when its own approval expires, however late in the execution it was made.
    wait_seconds: int = Field(ge=1)
    requested_by: str = ""
    # A revised version: the approval of the version it supersedes (linked to its successor's by request_approval).
    supersedes_approval_id: str = ""


class NeedsFactsOutput(BaseModel):
    """A request the run could not read: it waits as *needs facts* (``held_id``); the workflow ends there
    (``RequestNeedsFacts``, no failure) and the operator was alerted."""

    outcome: Literal["needs_facts"] = "needs_facts"  # RequestRead's choice (infra: approval_workflow.py)
    held_id: str
    missing: tuple[str, ...]
    requested_by: str = ""


class SubmitRequest(_Event):
    """The body a caller POSTs to the submit Function URL; any other field (``requested_by``) is ignored.

    ``scenario`` and ``as_of`` go on to the execution input as ``start-execution`` takes them: plan a
    reference scenario's shop instead of the table's, and on which day."""

    request: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS)
    scenario: str | None = Field(default=None, max_length=60)
    as_of: PlanningDay | None = None
    # Names the run: a retried POST with it returns the first run (without one, the request's text names it).
    client_token: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:-]+$")


class SubmitOutput(BaseModel):
    """The started execution and who it is recorded as requested by."""

    execution_arn: str
    execution_name: str
    requested_by: str


class ReceivedEmailEvent(_Event):
    """The SES receipt rule's Lambda action (tests/events/receive_email.json): SES sends one record per
    message. Verdicts absent from the event stay empty, and an empty verdict refuses the message."""

    message_id: str = Field(max_length=200)
    recipients: tuple[str, ...] = Field(default=(), max_length=100)
    header_from: tuple[str, ...] = Field(default=(), max_length=20)
    spf: str = Field(default="", max_length=40)
    dkim: str = Field(default="", max_length=40)
    dmarc: str = Field(default="", max_length=40)
    spam: str = Field(default="", max_length=40)
    virus: str = Field(default="", max_length=40)

    @model_validator(mode="before")
    @classmethod
    def _from_record(cls, data: Any) -> Any:
        records = data.get("Records") if isinstance(data, dict) else None
        if not isinstance(records, list) or len(records) != 1 or not isinstance(records[0], dict):
            raise ValueError("expected one SES record")
        ses = records[0].get("ses") or {}
        mail, receipt = ses.get("mail") or {}, ses.get("receipt") or {}

        def status(name: str) -> Any:
            verdict = receipt.get(f"{name}Verdict")
            return verdict.get("status", "") if isinstance(verdict, dict) else ""

        return {
            "message_id": mail.get("messageId"),
            "recipients": receipt.get("recipients") or (),
            "header_from": (mail.get("commonHeaders") or {}).get("from") or (),
            **{name: status(name) for name in ("spf", "dkim", "dmarc", "spam", "virus")},
        }

    def received(self) -> ReceivedMail:
        """The domain's view of the message."""
        return ReceivedMail(**self.model_dump())


class RequestApprovalEvent(_Checkpointed):
    """``lambda:invoke.waitForTaskToken`` payload: the task token plus the run output."""

    task_token: str = Field(min_length=1, max_length=4096, repr=False)
    proposal_hash: ProposalHash
    requested_by: str = Field(default="", max_length=MAX_REQUESTER_CHARS)
    supersedes_approval_id: ApprovalId | Literal[""] = ""

    @model_validator(mode="before")
    @classmethod
    def _flatten(cls, data: Any) -> Any:
        return _lift(data, "run")


class RequestApprovalOutput(BaseModel):
    """No secret: the approval id and how many approvers were notified."""

    approval_id: str
    checkpoint_id: str
    expires_at: str
    notified: int


class ResumeEvent(_Checkpointed):
    """``ResumeVerifiedDecision`` input: the pointer sent with ``SendTaskSuccess`` (plus the run ids)."""

    approval_id: ApprovalId
    interrupt_id: str | None = Field(default=None, max_length=300)
    session_id: SessionId | None = None

    @model_validator(mode="before")
    @classmethod
    def _flatten(cls, data: Any) -> Any:
        return _lift(data, "decision", "run")


class ResumeOutput(BaseModel):
    """How the resume ended. A refusal is raised as ``ResumeRefusedError``, so ``refused`` shows in the
    error Step Functions catches rather than here."""

    outcome: Outcome
    code: str | None = None
    checkpoint_id: str
    state_revision: int
    plan_applied_count: int


class RecordExpiryEvent(_Checkpointed):
    """``DecisionExpired`` input: the run output (Step Functions may add the caught error)."""

    @model_validator(mode="before")
    @classmethod
    def _flatten(cls, data: Any) -> Any:
        return _lift(data, "run")


class RecordExpiryOutput(BaseModel):
    """The workflow ended without a decision: nothing applied."""

    outcome: Literal["expired"] = "expired"
    checkpoint_id: str
    expired_approvals: list[str]
    state_revision: int
    plan_applied_count: int


class SendOutboxEvent(_Checkpointed):
    """``SendApprovedMessages`` input: the applied run's ids (its proposal hash names the messages)."""

    proposal_hash: ProposalHash

    @model_validator(mode="before")
    @classmethod
    def _flatten(cls, data: Any) -> Any:
        return _lift(data, "run")


class SendOutboxOutput(BaseModel):
    """Every message of the plan is sent: what this invocation sent and what was sent before."""

    checkpoint_id: str
    proposal_hash: str
    sent: int
    already_sent: int
    transport_ids: list[str]


class LinkQuery(_Event):
    """``?a=<approval id>&s=<link secret>``; shapes are checked when used, so a bad link is just unknown."""

    a: str = Field(default="", max_length=64)
    s: str = Field(default="", max_length=256, repr=False)


class DecisionForm(LinkQuery):
    """The confirmation page's POST (``a``/``s`` normally come in the query string instead)."""

    decision: Literal["approve", "reject", "repropose", "revise"]
    reviewed_hash: str = Field(max_length=64)
    reason: str = Field(default="", max_length=2000)
    # "Change the plan" (decision=revise): read into the guidance where it is used (approval_web/revision_form.py).
    keep: str = Field(default="", max_length=1000)
    overtime: str = Field(default="", max_length=1000)
    quantity: str = Field(default="", max_length=12)
    due: str = Field(default="", max_length=10)
    product: str = Field(default="", max_length=64)
    note: str = Field(default="", max_length=MAX_NOTE_CHARS * 4)
