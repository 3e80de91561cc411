"""Wake: tell the parked workflow that an approval was decided, once, recoverably.

    decided|rejected|revision asked, not woken -> count the try -> SendTaskSuccess(pointer, no SDK retry)
        ok                               -> woken_at recorded
        throttled, network, lost answer  -> stays unwoken: the next POST of a link holder, or the reconciler
                                            (``reconcile``), sends it again
        token closed, another try exists -> that call woke it (its answer was lost, or it raced ours): woken
        token closed, the only try       -> the workflow went away without it (timed out, stopped): the
                                            decision will never be acted on, so the approval says expired

So a ``TaskTimedOut`` answering a repeated call never turns a decision the workflow is acting on into an
expiry. When the earlier try had not arrived either (throttled) and the wait timed out meanwhile, the approval says
woken for a while: the workflow's DecisionExpired then expires it all the same (asking/expire.py: no resume claimed
it). The pointer carries ids only: the resume reads the decision back from the approval record.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ...domain.approval.approvals import ApprovalRecord
from ...domain.errors import BackendError, DecisionAlreadyClaimedError, TaskTokenClosedError
from ...domain.ports import ApprovalStore
from ...domain.records import parse_utc
from ..runtime import Runtime, need

WakeOutcome = Literal["woken", "already", "retry_later", "expired", "not_decided"]


def wake(rt: Runtime, approval: ApprovalRecord) -> WakeOutcome:
    """Wake the workflow for a decided approval unless it was woken already (idempotent)."""
    approvals, callback, now = rt.approvals, need(rt.callback, "workflow callback"), rt.clock()
    if approval.woken_at:
        return "already"
    if not approval.needs_wake():
        return "not_decided"
    try:
        tried = approvals.record_wake(approval.approval_id, now=now, confirmed=False)
    except DecisionAlreadyClaimedError:
        return "already"  # expired meanwhile by the workflow's timeout step
    if tried.woken_at:
        return "already"
    try:
        callback.send_success(approval.task_token, pointer(approval))
    except BackendError:
        return "retry_later"  # the decision stands; trying again is safe (a closed token is judged below)
    except TaskTokenClosedError:
        return _closed_token(approvals, approval.approval_id, now)
    return _confirm(approvals, approval.approval_id, now)


def pointer(approval: ApprovalRecord) -> dict[str, object]:
    """What the workflow is told: ids only, and ``revise``, true for a revision ask (the workflow plans the next
    version; the guidance is read back from the approval record, never from the output). ``revise`` is always
    there: a Choice on an absent path fails the execution (and moto's And does not short-circuit IsPresent)."""
    return {
        "checkpoint_id": approval.checkpoint_id,
        "approval_id": approval.approval_id,
        "revise": approval.revision_asked is not None,
    }


def _closed_token(approvals: ApprovalStore, approval_id: str, now: datetime) -> WakeOutcome:
    """The workflow no longer waits on the token: woken by another try, or gone without the decision."""
    current = approvals.get_approval(approval_id)
    if current is None or current.woken_at:
        return "already"
    if current.wake_tries > 1:
        return _confirm(approvals, approval_id, now)  # another try reached it (its answer lost, or racing ours)
    try:
        approvals.expire_approval(approval_id, now=now, include_closed=True)
    except DecisionAlreadyClaimedError:
        return "already"
    return "expired"


def _confirm(approvals: ApprovalStore, approval_id: str, now: datetime) -> WakeOutcome:
    try:
        approvals.record_wake(approval_id, now=now, confirmed=True)
    except DecisionAlreadyClaimedError:
        return "expired"  # the workflow's timeout step closed it meanwhile
    return "woken"


def reconcile(rt: Runtime) -> dict[str, WakeOutcome]:
    """Wake every decided approval whose workflow was never told (run on a schedule, or by an operator)."""
    now = rt.clock()
    return {
        approval.approval_id: wake(rt, approval)
        for approval in rt.approvals.list_approvals()
        if approval.needs_wake() and now < parse_utc(approval.expires_at)
    }
