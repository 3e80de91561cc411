"""Requests beside the shop: a run holds its customer's order until the approved plan for it applies.

    start (request key K) -> run holds the order (status pending)       the shop: unchanged
    approve               -> the order enters the shop in the apply's one write
    reject / expiry       -> the request is closed                       the shop: as it was
    start K again:  a run of K still open   -> AlreadyPendingError with that run's ids (nothing written,
                                               no model called)
                    every run of K decided  -> RequestAlreadyDecidedError naming the decision, unless again

Everything is read from the checkpoints and their proposals (the proposal holds the order and the request's
text), so the rule is the same on SQLite and on DynamoDB, and in every process that starts a run: the CLI,
the start Lambda behind submit and receive_email. Reads only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.verification import Refusal
from ...domain.errors import (
    AlreadyPendingError,
    IntakeError,
    IntegrityError,
    RequestAlreadyDecidedError,
    RequestClaimTakenError,
    ResumeRefusedError,
)
from ...domain.intake.customer_message import CustomerMessage, read_message
from ...domain.intake.request_key import claim_key, request_claim, request_key
from ...domain.records import AuditEvent, Checkpoint
from ...domain.shop.model import Order
from ..evidence import freshness, review
from ..runtime import Runtime
from ..status import checkpoint_status, stored_checkpoints

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
    key: str

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


def _key(text: str) -> str:
    try:
        return request_key(read_message(text))
    except IntakeError:
        return ""


def requests_of_runs(rt: Runtime, *, judge_staleness: bool = True) -> list[HeldRequest]:
    """Every run's request, oldest first. A pending one whose plan no longer applies reads ``stale`` (the one
    staleness rule) when ``judge_staleness``."""
    store, approvals, now = rt.store, rt.approvals, rt.clock()
    found: list[HeldRequest] = []
    for _, checkpoint in stored_checkpoints(rt):
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
                key=_key(proposal.request_text),
            )
        )
    return sorted(found, key=lambda r: (r.created_at, r.checkpoint_id))


def pending_requests(rt: Runtime) -> list[HeldRequest]:
    """The requests still held with an open run (not in the shop yet), oldest first."""
    return [r for r in requests_of_runs(rt) if r.is_open]


def check_not_started(rt: Runtime, message: CustomerMessage, *, again: bool) -> None:
    """Refuse a second start of ``message``'s request: ``AlreadyPendingError`` while a run of it is open,
    ``RequestAlreadyDecidedError`` once decided (unless ``again``). Reads only."""
    key = request_key(message)
    same = [r for r in requests_of_runs(rt, judge_staleness=False) if r.key == key and r.status != "superseded"]
    waiting = [r for r in same if r.is_open]
    if waiting:
        run = waiting[-1]
        raise AlreadyPendingError(
            f"this request is already waiting for a decision as order {run.order.id} in checkpoint "
            f"{run.checkpoint_id}; nothing was started",
            checkpoint_id=run.checkpoint_id,
            proposal_hash=run.proposal_hash,
            approval_id=run.approval_id,
        )
    if same and not again:
        last = same[-1]
        by = f" by {last.decided_by}" if last.decided_by else ""
        raise RequestAlreadyDecidedError(
            f"this request was already decided: {last.status}{by} (order {last.order.id}, checkpoint "
            f"{last.checkpoint_id}); pass --again to plan it anew"
        )


def next_claim(rt: Runtime, message: CustomerMessage) -> str:
    """The claim a new run of ``message``'s request writes with its checkpoint (its generation: the claims so
    far). Read before the check, so a start that passed the check counted every run it could have seen."""
    key = request_key(message)
    return request_claim(key, rt.store.request_claim_count(claim_key(key)))


@dataclass(frozen=True)
class WriteRun:
    """A run to write: its sealed checkpoint, the audit event and approval record that go with it, the request
    ``claim`` (None: a scenario or a successor run) and the start's own check, run again if the claim is taken."""

    checkpoint: Checkpoint
    recheck: Callable[[], None]
    claim: str | None
    event: AuditEvent
    record: ApprovalRecord | None


def write_run(rt: Runtime, cmd: WriteRun) -> None:
    """Write the run (checkpoint, approval, audit event) with its request ``claim`` in one transaction.

    Two starts of one request that both passed the check (both counted the same claims before either wrote)
    write the same claim: one run is written, the other nothing at all. The loser then runs ``recheck`` (the
    start's own check), which answers as a start after the winner would: ``AlreadyPendingError`` with the
    winner's ids (or its decision); if it passes after all, ``RequestClaimTakenError``.
    """
    checkpoint = cmd.checkpoint
    try:
        rt.store.put_checkpoint(
            checkpoint.checkpoint_id, checkpoint.model_dump_json(), cmd.event, cmd.record, cmd.claim
        )
    except RequestClaimTakenError:
        cmd.recheck()
        raise
