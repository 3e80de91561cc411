"""What a resume may do with a checkpoint's decision record: a pure judgement, read before any write.

    no record                                  -> FRESH      claim it (conditional create)
    record of another decision                 -> refused    ALREADY_DECIDED, always
    same decision, completed                   -> COMPLETED  CLI: ALREADY_DECIDED; workflow retry: the outcome
    same decision, lease live                  -> refused    ALREADY_DECIDED, a resume is in progress
    same decision, lease expired, not complete -> TAKEOVER   re-claim under the old token, resume again

A takeover is safe because the apply is keyed by the proposal hash (it cannot apply twice) and the
agent is resumed with the decision object recorded by the first claim, never a new one.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from ..errors import RefusalCode
from ..records import DecisionRecord
from .verification import Refusal

DEFAULT_LEASE = timedelta(minutes=10)


class ClaimState(StrEnum):
    """How a resume may proceed given the stored decision record."""

    FRESH = "fresh"
    TAKEOVER = "takeover"
    COMPLETED = "completed"


def judge_claim(
    record: DecisionRecord | None, *, approved: bool, reviewed_hash: str, now: datetime
) -> ClaimState | Refusal:
    """The claim state of a checkpoint for a resume asking for ``approved`` on ``reviewed_hash``."""
    if record is None:
        return ClaimState.FRESH
    cid = record.checkpoint_id
    recorded = "approval" if record.decision.approved else "rejection"
    if not record.same_decision(approved, reviewed_hash):
        return Refusal(
            RefusalCode.ALREADY_DECIDED,
            f"a {recorded} by {record.decision.approver} was already recorded for checkpoint {cid}; "
            "a different decision cannot replace it",
        )
    if record.is_complete():
        return ClaimState.COMPLETED if record.completion else completed_refusal(record)
    if record.lease_live(now):
        return Refusal(
            RefusalCode.ALREADY_DECIDED,
            f"a resume of this {recorded} of checkpoint {cid} is in progress (claimed at {record.claimed_at}); "
            f"if that process died, re-run the same command after {record.lease_expires_at} to finish it",
        )
    return ClaimState.TAKEOVER


def completed_refusal(record: DecisionRecord) -> Refusal:
    """The CLI's answer to a replay of a decision whose resume finished: nothing to do, nothing written."""
    done = record.completion
    outcome = done.outcome.replace("_", " ") if done else "recorded"
    when = f" at {done.completed_at}" if done else ""
    message = f"the decision for checkpoint {record.checkpoint_id} was already {outcome}{when}"
    if done and done.outcome == "not_applied":
        message += "; the plan did not apply and will not: propose again on the current state"
    return Refusal(RefusalCode.ALREADY_DECIDED, message)
