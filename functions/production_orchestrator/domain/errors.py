"""Every error the system raises on purpose, in one module.

Step Functions catches on the class name, so infrastructure code takes names from these classes
(``ResumeRefusedError.__name__``), never from retyped strings.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class RefusalCode(StrEnum):
    """Stable, machine-readable reasons a resume is refused before any write path exists."""

    CHECKPOINT_INVALID = "CHECKPOINT_INVALID"
    INTERRUPT_MISMATCH = "INTERRUPT_MISMATCH"
    SESSION_MISMATCH = "SESSION_MISMATCH"
    PROVIDER_MISMATCH = "PROVIDER_MISMATCH"
    PROPOSAL_INTEGRITY = "PROPOSAL_INTEGRITY"
    REVIEWED_HASH_MISMATCH = "REVIEWED_HASH_MISMATCH"
    STALE_DOMAIN_STATE = "STALE_DOMAIN_STATE"
    ALREADY_DECIDED = "ALREADY_DECIDED"
    EXPIRED = "EXPIRED"
    UNAUTHORIZED_APPROVER = "UNAUTHORIZED_APPROVER"
    RECEIPT_INVALID = "RECEIPT_INVALID"
    SUPERSEDED = "SUPERSEDED"
    VERSION_LIMIT = "VERSION_LIMIT"


class OrchestratorError(Exception):
    """Base class: an expected failure with a human message."""


class ValidationError(OrchestratorError):
    """Bad input (an argument, an id, an e-mail field). Nothing was written."""


class IntakeError(ValidationError):
    """A customer request failed fail-closed validation against the shop: ``problems`` names each gap.
    ``code`` is the stable reason the CLI leads its error line with."""

    code = "INTAKE_REFUSED"

    def __init__(self, message: str, *, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems or (message,)


class RequestTooLongError(IntakeError):
    """A customer request's text (or the stored message holding it) is longer than a request may be."""

    code = "REQUEST_TOO_LONG"


class MimeTooDeepError(IntakeError):
    """A customer e-mail nests more MIME multiparts than any mail client writes (read no further)."""

    code = "MIME_TOO_DEEP"


class InboundRefusalCode(StrEnum):
    """Stable reasons a customer e-mail received by SES starts no run (domain/intake/inbound_mail.py)."""

    EVENT_INVALID = "EVENT_INVALID"
    VERDICT_FAILED = "VERDICT_FAILED"
    SPAM_OR_VIRUS = "SPAM_OR_VIRUS"
    WRONG_RECIPIENT = "WRONG_RECIPIENT"
    MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
    MESSAGE_UNREADABLE = "MESSAGE_UNREADABLE"
    MIME_TOO_DEEP = "MIME_TOO_DEEP"
    SENDER_INVALID = "SENDER_INVALID"
    SENDER_IS_APPROVER = "SENDER_IS_APPROVER"


class InboundRefusedError(ValidationError):
    """A received e-mail may not start a run; ``code`` is one of :class:`InboundRefusalCode`. Nothing written."""

    def __init__(self, code: InboundRefusalCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.human_message = message


class ClientTokenReusedError(ValidationError):
    """A submit's client token already names a run of another request: nothing is stored or started."""

    code = "CLIENT_TOKEN_REUSED"


class SubmitterUnknownError(ValidationError):
    """An authenticated caller the deployment's submitter map does not name may not start a run. Nothing written."""

    code = "SUBMITTER_UNKNOWN"


class SubmitterUnmappedError(SubmitterUnknownError):
    """A known submitter whose identity maps to no address (an Identity Center username that is none and that no
    username map names; under separation of duties, a bare name): who asked could not be compared with the
    approvers, so the run is not started. Nothing written."""

    code = "SUBMITTER_UNMAPPED"


class ShopFileError(ValidationError):
    """A shop file is not a valid shop; ``problems`` holds every ``(JSON path, message)`` found."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        lines = "\n".join(f"  {path}: {message}" for path, message in problems)
        super().__init__(f"the shop file has {len(problems)} problem(s):\n{lines}")
        self.problems = problems


class ShopChangeCode(StrEnum):
    """Stable reasons an operator's change of the shop (receive, order complete/cancel/progress, import) is
    refused before anything is written."""

    NO_SHOP = "NO_SHOP"
    UNKNOWN_MATERIAL = "UNKNOWN_MATERIAL"
    UNKNOWN_ORDER = "UNKNOWN_ORDER"
    ORDER_CLOSED = "ORDER_CLOSED"
    ORDER_NOT_SCHEDULED = "ORDER_NOT_SCHEDULED"
    PROGRESS_TOO_LARGE = "PROGRESS_TOO_LARGE"
    INVALID_QUANTITY = "INVALID_QUANTITY"
    INVALID_TEXT = "INVALID_TEXT"
    IMPORT_CONFLICT = "IMPORT_CONFLICT"


class ShopChangeRefusedError(ValidationError):
    """An operator's change of the shop was refused; ``code`` is one of :class:`ShopChangeCode`. Nothing written."""

    def __init__(self, code: ShopChangeCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.human_message = message


class AuditKeyCode(StrEnum):
    """Stable reasons an operator's write on a deployed table (``--table``) is refused so that its audit chain stays
    keyed; nothing is written (cli/operator_key.py)."""

    NO_OPERATOR_FUNCTION = "NO_OPERATOR_FUNCTION"  # the chain is keyed, and no operator function is known
    OPERATOR_FUNCTION_UNREACHABLE = "OPERATOR_FUNCTION_UNREACHABLE"  # the one known could not be invoked


class UnkeyedWriteRefusedError(ValidationError):
    """An operator's write on a table would go without its audit MAC; ``code`` is one of :class:`AuditKeyCode`.
    Nothing written."""

    def __init__(self, code: AuditKeyCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.human_message = message


class ConfigFileError(ValidationError):
    """A configuration file (``production-orchestrator.toml``) is unreadable, holds a key it may not, or a value
    that key cannot take: the message names the file and the key. The command stops before it reads or writes."""

    code = "CONFIG_INVALID"

    def __init__(self, path: str, key: str, problem: str) -> None:
        where = f"{path}: {key}" if key else path
        super().__init__(f"{self.code}: {where}: {problem}")
        self.path, self.key = path, key


class GuidanceCode(StrEnum):
    """Stable reasons an approver's guidance for a revised plan (``revise``) is refused before anything is
    written or planned."""

    NO_GUIDANCE = "NO_GUIDANCE"
    UNKNOWN_ORDER = "UNKNOWN_ORDER"
    KEEP_NEW_ORDER = "KEEP_NEW_ORDER"
    UNKNOWN_MACHINE = "UNKNOWN_MACHINE"
    UNKNOWN_DAY = "UNKNOWN_DAY"
    CLOSED_DAY = "CLOSED_DAY"
    MINUTES_OVER_DAY = "MINUTES_OVER_DAY"


class GuidanceRefusedError(ValidationError):
    """Guidance for a revised plan names what the shop does not have or cannot do; ``code`` is one of
    :class:`GuidanceCode`. Nothing written, no model called."""

    def __init__(self, code: GuidanceCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.human_message = message


class ClockBehindError(ValidationError):
    """A rehearsal clock (``--now`` / ``PO_NOW``) earlier than the latest time the data dir has seen, or the
    wall clock more than a minute behind it. Nothing written."""

    code = "CLOCK_BEHIND"

    def __init__(self, message: str) -> None:
        super().__init__(f"{self.code}: {message}")


class ConfigurationError(OrchestratorError):
    """The runtime is configured wrongly (missing or malformed setting)."""


class ShopError(OrchestratorError):
    """The shop cannot do what was asked (seeded with another scenario, unknown material...)."""


class PlanningError(OrchestratorError):
    """No plan can be built from the current state (already scheduled, no capacity left...)."""


class UnplannableError(PlanningError):
    """Not one unit of the order fits in the planning horizon (its machines never free, its material unable
    to arrive in time); the message, led by the stable code ``UNPLANNABLE``, says why. An order of which
    part fits is planned instead, the rest at risk."""

    code = "UNPLANNABLE"

    def __init__(self, reason: str) -> None:
        super().__init__(f"{self.code}: {reason}")
        self.reason = reason


class NotFoundError(OrchestratorError):
    """An addressed record does not exist."""


class IntegrityError(OrchestratorError):
    """Stored bytes do not match their address (a proposal re-hash differs, a rewrite was attempted)."""


class StaleStateError(OrchestratorError):
    """A conditional write found a different revision or digest than the one it was conditioned on."""

    def __init__(self, message: str, *, expected: Any = None, found: Any = None) -> None:
        super().__init__(message)
        self.expected = expected
        self.found = found


class DecisionAlreadyClaimedError(OrchestratorError):
    """The decision for a checkpoint was already claimed (replay, double click, race)."""


class StartError(OrchestratorError):
    """The agent did not reach the approval interrupt."""


class ResumeRefusedError(OrchestratorError):
    """The resume gate refused; ``code`` is one of :class:`RefusalCode`."""

    def __init__(self, code: RefusalCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.human_message = message


class ApprovalExpiredError(OrchestratorError):
    """The approval is no longer open: its window closed or it was marked expired."""


class TaskTokenClosedError(OrchestratorError):
    """The workflow no longer waits on the stored task token (timed out, unknown or already answered)."""


class PlanNotAppliedError(OrchestratorError):
    """An approved decision was recorded but the plan did not apply (the agent or the store refused)."""


class BackendError(OrchestratorError):
    """A backend call failed for a reason other than a failed condition (throttling, access, outage)."""


class DeliveryError(OrchestratorError):
    """A transport did not take an outbox message. ``permanent``: retrying the same message cannot help.

    ``unreachable``: the transport was never reached (connection refused, timed out, a directory that cannot
    be written), so no server saw the message: the attempt does not count towards giving up on it.
    """

    def __init__(self, message: str, *, permanent: bool, unreachable: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent and not unreachable
        self.unreachable = unreachable


class OutboxRefusedError(ValidationError):
    """``outbox send``/``retry`` was refused before any message was claimed or changed; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.human_message = message


class DeliveryIncompleteError(OrchestratorError):
    """Queued messages are left after a delivery round (a transient error, or another sender holds them).

    The AWS workflow retries on this name with backoff."""


class ReminderHeldError(OrchestratorError):
    """Another sender holds a reminder that is not sent yet (a racing wake, or one that died holding it).

    Transient: the reminder function fails on it so that Lambda's retry comes back once the claim's lease
    has run out, and the reminder is sent by whichever wake then holds it, once."""


class DeliveryFailedError(OrchestratorError):
    """A message could not be delivered and will not be retried (marked ``failed``): a person must look."""


class ApprovalActionRefusedError(OrchestratorError):
    """An operator action on an approval (relink, a reminder's escalation) was refused; nothing was written.
    ``code``: NOT_FOUND, NOT_AN_APPROVER, APPROVAL_CLOSED or EXPIRED."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class RequesterUnverifiedError(OrchestratorError):
    """Separation of duties is on and the run has no verified requester (it was not started by ``submit``)."""


class AlreadyPendingError(OrchestratorError):
    """The same customer request already waits in a run: that run's ids, nothing started or written."""

    def __init__(self, message: str, *, checkpoint_id: str, proposal_hash: str, approval_id: str = "") -> None:
        super().__init__(message)
        self.checkpoint_id = checkpoint_id
        self.proposal_hash = proposal_hash
        self.approval_id = approval_id


class RequestClaimTakenError(OrchestratorError):
    """Two starts of one customer request ran at once and the other wrote its run first: this one's checkpoint,
    approval and audit event were not written (services/runs/start.py then answers as a second start would)."""

    code = "REQUEST_CLAIMED"


class RequestAlreadyDecidedError(ValidationError):
    """The same customer request was already decided; starting it again needs ``--again``. Nothing written."""

    code = "REQUEST_ALREADY_DECIDED"


class PossibleDuplicateError(OrchestratorError):
    """The same sender sent the same request in another envelope (no Message-ID, pasted text, a new Message-ID):
    it is held beside the earlier run, nothing planned, until a person starts it (``--again``) or drops it.

    ``held_id`` names the hold (written once), ``checkpoint_id`` / ``order_id`` the earlier run."""

    code = "POSSIBLE_DUPLICATE"

    def __init__(self, message: str, *, held_id: str, checkpoint_id: str, order_id: str = "") -> None:
        super().__init__(message)
        self.held_id = held_id
        self.checkpoint_id = checkpoint_id
        self.order_id = order_id


class NeedsFactsError(OrchestratorError):
    """A customer request the intake cannot read (a fact missing or unclear) is held as *needs facts*: nothing is
    planned until a person gives what is missing (``request complete``). ``held_id`` names the hold."""

    code = "NEEDS_FACTS"

    def __init__(self, message: str, *, held_id: str, problems: tuple[str, ...]) -> None:
        super().__init__(message)
        self.held_id = held_id
        self.problems = problems


class HeldRequestCode(StrEnum):
    """Stable reasons an action on a held request (``request drop``) is refused; nothing is written."""

    NOT_FOUND = "NOT_FOUND"
    REQUEST_NOT_HELD = "REQUEST_NOT_HELD"
    HELD_ID_INVALID = "HELD_ID_INVALID"


class HeldRequestError(ValidationError):
    """An action on a held request was refused (unknown id, already started or dropped); nothing was written."""

    def __init__(self, code: HeldRequestCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.human_message = message
