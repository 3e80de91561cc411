"""The transitions of a revision asked through the workflow (revision_ask.py draws them), pure: the stores write
each conditioned on the record read."""

from __future__ import annotations

from datetime import datetime

from ..errors import DecisionAlreadyClaimedError, IntegrityError
from ..planning.guidance import Revision
from ..records import utc_iso
from .approvals import ApprovalRecord
from .revision_ask import NOT_PLANNED_CHARS, RevisionAsk


def asked_revision(record: ApprovalRecord, ask: RevisionAsk, now: datetime) -> ApprovalRecord:
    """``record`` closed by ``ask``: superseded by its next version, which the workflow plans. Only while open
    (``DecisionAlreadyClaimedError``, ``ApprovalExpiredError`` otherwise, as for a vote)."""
    record._require_open(now)
    return record.model_copy(
        update={
            "status": "superseded",
            "closed_at": utc_iso(now),
            "successor_version": record.version + 1,
            "revision_asked": ask,
        }
    )


def revision_of(record: ApprovalRecord) -> Revision:
    """What the next version of ``record``'s plan is asked to be (``IntegrityError`` when no revision was asked)."""
    ask = record.revision_asked
    if ask is None or record.status != "superseded":
        raise IntegrityError(f"approval {record.approval_id} holds no revision ask: there is nothing to revise")
    return Revision(
        version=record.version + 1, supersedes=record.proposal_hash, given_by=ask.given_by, guidance=ask.guidance
    )


def revision_linked(record: ApprovalRecord, successor: str, proposal_hash: str) -> ApprovalRecord:
    """``record`` naming the approval (``successor``) and proposal of the version its revision ask produced; the
    same again is a no-op (a retried request), another is ``DecisionAlreadyClaimedError``."""
    revision_of(record)
    if record.superseded_by and (record.superseded_by, record.successor_hash) != (successor, proposal_hash):
        raise DecisionAlreadyClaimedError(
            f"approval {record.approval_id} was already revised into approval {record.superseded_by}"
        )
    return record.model_copy(update={"superseded_by": successor, "successor_hash": proposal_hash})


def revision_not_planned(record: ApprovalRecord, why: str) -> ApprovalRecord:
    """``record`` whose revision ask could not be planned, saying ``why`` (the workflow then ends
    RevisionNotPlanned); a no-op once said; ``DecisionAlreadyClaimedError`` once a version answered the ask."""
    revision_of(record)
    ask = record.revision_asked
    assert ask is not None  # revision_of refuses a record without an ask
    if record.superseded_by:
        raise DecisionAlreadyClaimedError(
            f"approval {record.approval_id} was already revised into approval {record.superseded_by}"
        )
    if ask.not_planned:
        return record
    said = " ".join(why.split())[:NOT_PLANNED_CHARS] or "the agent could not plan it"
    return record.model_copy(update={"revision_asked": ask.model_copy(update={"not_planned": said})})


def revision_failed(record: ApprovalRecord) -> str:
    """Why the version a revision asked of ``record`` could not be planned, when the ask ended so; else ''."""
    ask = record.revision_asked
    return ask.not_planned if ask is not None and not record.superseded_by else ""
