"""Requests beside the shop: a run holds its customer's order until the approved plan for it applies.

    start (request key K) -> run holds the order (status pending)       the shop: unchanged
    approve               -> the order enters the shop in the apply's one write
    reject / expiry       -> the request is closed                       the shop: as it was
    start K again (domain/intake/request_key.judge, on the runs of K only: one indexed read):
        the same envelope, a run still open -> AlreadyPendingError with that run's ids (nothing written,
                                               no model called)
        the same envelope, every run decided -> RequestAlreadyDecidedError naming the decision, unless again
        another envelope of the same sender  -> PossibleDuplicateError: held (services/runs/held.py), unless again

The runs of a request are found by the request key each run stores with its checkpoint (never by reading
every run), so the rule costs the same at a year of history as at none, on SQLite and on DynamoDB, and in
every process that starts a run: the CLI, submit and receive_email, the start Lambda.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.verification import Refusal, read_checkpoint
from ...domain.errors import (
    AlreadyPendingError,
    IntegrityError,
    PossibleDuplicateError,
    RequestAlreadyDecidedError,
    RequestClaimTakenError,
    ResumeRefusedError,
)
from ...domain.intake.customer_message import CustomerMessage
from ...domain.intake.held import held_id
from ...domain.intake.request_key import (
    RunRequest,
    envelope_hash,
    judge,
    message_key,
    request_hash,
    same_sender,
    sender_of,
)
from ...domain.records import AuditEvent, Checkpoint
from ...domain.shop.model import Order
from ..evidence import freshness, review
from ..runtime import Runtime
from ..status import checkpoint_status, open_checkpoints, stored_checkpoints
from .held import hold

# A run in one of these still holds its request: nobody decided, or the approve has not finished applying.
OPEN = frozenset({"pending", "stale", "decided", "resuming", "no_approval"})


@dataclass(frozen=True)
class HeldRequest:
    """One run's request: its order (held beside the shop while the run is open), run ids and status."""

    order: Order
    checkpoint_id: str
    proposal_hash: str
    approval_id: str
    customer: str
    status: str  # pending | stale | decided | resuming | no_approval | approved | rejected | expired | superseded
    decided_by: str
    created_at: str

    @property
    def is_open(self) -> bool:
        """The run still holds the request (no decision closed it)."""
        return self.status in OPEN

    def as_json(self) -> dict[str, str]:
        """What ``shop show --json`` lists under ``pending``."""
        return {
            "order": self.order.id,
            "checkpoint": self.checkpoint_id,
            "customer": self.customer,
            "status": self.status,
            "product": self.order.product,
            "quantity": str(self.order.quantity),
            "due": self.order.due,
        }


def requests_of_runs(rt: Runtime, *, judge_staleness: bool = True, open_only: bool = False) -> list[HeldRequest]:
    """Every run's request (``open_only``: of the runs the store's index says may be open), oldest first. A
    pending one whose plan no longer applies reads ``stale`` (the one staleness rule) when ``judge_staleness``."""
    store, approvals, now = rt.store, rt.approvals, rt.clock()
    found: list[HeldRequest] = []
    for _, checkpoint in open_checkpoints(rt) if open_only else stored_checkpoints(rt):
        if isinstance(checkpoint, Refusal):
            continue
        try:
            _, proposal = review(store, checkpoint.checkpoint_id)
        except (ResumeRefusedError, IntegrityError):
            continue  # a run whose plan cannot be read holds nothing a person could approve
        status, decided_by = checkpoint_status(rt, checkpoint, now)
        if status == "pending" and judge_staleness and freshness(store, checkpoint, proposal, now).stale:
            status = "stale"
        governing = approvals.approvals_for(checkpoint.checkpoint_id)
        found.append(
            HeldRequest(
                order=proposal.target_order,
                checkpoint_id=checkpoint.checkpoint_id,
                proposal_hash=checkpoint.proposal_hash,
                approval_id=governing[-1].approval_id if governing else "",
                customer=proposal.target_order.customer,
                status=status,
                decided_by=decided_by,
                created_at=checkpoint.created_at,
            )
        )
    return sorted(found, key=lambda r: (r.created_at, r.checkpoint_id))


def pending_requests(rt: Runtime) -> list[HeldRequest]:
    """The requests still held with an open run (not in the shop yet), oldest first."""
    return [r for r in requests_of_runs(rt, open_only=True) if r.is_open]


@dataclass(frozen=True)
class EarlierRun:
    """One earlier run of the same request, as the check sees it (read by its key, not from every run)."""

    key: RunRequest
    checkpoint: Checkpoint
    status: str
    decided_by: str
    approval_id: str


def _earlier(rt: Runtime, key: RunRequest) -> EarlierRun | None:
    raw = rt.store.get_checkpoint(key.checkpoint_id)
    checkpoint = None if raw is None else read_checkpoint(raw, key.checkpoint_id)
    if not isinstance(checkpoint, Checkpoint):
        return None  # a key whose run cannot be read holds nothing a person could approve
    status, decided_by = checkpoint_status(rt, checkpoint, rt.clock())
    governing = rt.approvals.approvals_for(checkpoint.checkpoint_id)
    return EarlierRun(key, checkpoint, status, decided_by, governing[-1].approval_id if governing else "")


@dataclass(frozen=True)
class Checked:
    """What a start that passed the check writes: its request key's ``generation`` (the runs of the request so
    far) and the runs whose Message-ID it reuses with another request (noted in its audit event)."""

    generation: int
    reuses_message_id_of: tuple[str, ...] = ()


def check_not_started(rt: Runtime, message: CustomerMessage, *, again: bool) -> Checked:
    """Refuse a second start of ``message``'s request (module docstring): ``AlreadyPendingError`` while a run of
    the same envelope is open, ``RequestAlreadyDecidedError`` once decided and ``PossibleDuplicateError`` for
    another envelope of the same sender (both unless ``again``). Reads only the runs of this request."""
    hashed, sender = request_hash(message), sender_of(message)
    keys = rt.store.runs_of_request(hashed)
    runs = [run for k in keys if same_sender(k.sender, sender) and (run := _earlier(rt, k)) is not None]
    runs = [run for run in runs if run.status != "superseded"]  # its successor run carries the request on
    match = judge(message, [run.key for run in runs])
    earlier = next((run for run in runs if run.key == match.earlier), None)
    if earlier is not None and match.verdict == "duplicate":
        _refuse_duplicate(earlier, again=again)
    elif earlier is not None and not again:
        raise PossibleDuplicateError(
            f"the same request from the same sender is already in run {earlier.checkpoint.checkpoint_id} (order "
            f"{earlier.checkpoint.target_order_id}, {earlier.status}) in another envelope; it is held as a possible "
            "duplicate: start it with --again, or drop it (`request drop`)",
            held_id=held_id(hashed, envelope_hash(message)),
            checkpoint_id=earlier.checkpoint.checkpoint_id,
            order_id=earlier.checkpoint.target_order_id,
        )
    reused = [k.checkpoint_id for k in rt.store.runs_of_message(message_key(message)) if k.request_hash != hashed]
    return Checked(len(keys), tuple(reused))


def _refuse_duplicate(run: EarlierRun, *, again: bool) -> None:
    if run.status in OPEN:
        raise AlreadyPendingError(
            f"this request is already waiting for a decision as order {run.checkpoint.target_order_id} in "
            f"checkpoint {run.checkpoint.checkpoint_id}; nothing was started",
            checkpoint_id=run.checkpoint.checkpoint_id,
            proposal_hash=run.checkpoint.proposal_hash,
            approval_id=run.approval_id,
        )
    if not again:
        by = f" by {run.decided_by}" if run.decided_by else ""
        raise RequestAlreadyDecidedError(
            f"this request was already decided: {run.status}{by} (order {run.checkpoint.target_order_id}, "
            f"checkpoint {run.checkpoint.checkpoint_id}); pass --again to plan it anew"
        )


def admit(rt: Runtime, message: CustomerMessage, *, again: bool) -> Checked:
    """:func:`check_not_started`, and a possible duplicate held (once) before ``PossibleDuplicateError`` goes on."""
    try:
        return check_not_started(rt, message, again=again)
    except PossibleDuplicateError as possible:
        hold(rt, message, possible)
        raise


@dataclass(frozen=True)
class WriteRun:
    """A run to write: its sealed checkpoint, the audit event and approval record that go with it, its request
    ``key`` (None: a reference scenario) and the start's own check, run again if the key's generation is taken
    (it answers the next generation to try, or refuses as a later start would)."""

    checkpoint: Checkpoint
    recheck: Callable[[], int]
    key: RunRequest | None
    event: AuditEvent
    record: ApprovalRecord | None


_CLAIM_ATTEMPTS = 3


def write_run(rt: Runtime, cmd: WriteRun) -> None:
    """Write the run (checkpoint, approval, audit event) with its request key in one transaction.

    Two starts of one request that both passed the check (both counted the same runs before either wrote)
    write the same key: one run is written, the other nothing at all. The loser then runs ``recheck`` (the
    start's own check), which answers as a start after the winner would: ``AlreadyPendingError`` with the
    winner's ids, its decision, or a held possible duplicate; if it passes after all (another sender's same
    words, or a second ``--again``), the write is tried again as the next generation.
    """
    checkpoint, key = cmd.checkpoint, cmd.key
    for _ in range(_CLAIM_ATTEMPTS):
        try:
            rt.store.put_checkpoint(checkpoint.checkpoint_id, checkpoint.model_dump_json(), cmd.event, cmd.record, key)
            return
        except RequestClaimTakenError:
            generation = cmd.recheck()
            if key is None:
                raise
            key = key.model_copy(update={"generation": generation})
    raise RequestClaimTakenError("other starts of this request kept writing their runs first; this one wrote nothing")
