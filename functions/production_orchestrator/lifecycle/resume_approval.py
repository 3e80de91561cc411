"""Resume an approval: the decision recorded on it (the page's, the workflow's), through the same gate.

approval (decided) -> authorize -> ResumeRequest -> resume_run (verify, claim once, interruptResponse)
"""

from __future__ import annotations

from collections.abc import Callable

from ..domain.errors import PlanNotAppliedError
from ..domain.ports import ApprovalStore, MacKey
from ..domain.records import ProviderBinding
from .authorize import decision_for_resume
from .claim import ResumeResult
from .resume import resume_run
from .runtime import Runtime


def resume_decided(
    rt: Runtime,
    approvals: ApprovalStore,
    binding: ProviderBinding,
    *,
    checkpoint_id: str,
    approval_id: str,
    interrupt_id: str | None = None,
    session_id: str | None = None,
    mac_key: MacKey | None = None,
    before_claim: Callable[[], None] | None = None,
) -> ResumeResult:
    """Resume ``checkpoint_id`` with the decision recorded on ``approval_id``.

    With ``mac_key`` every vote's receipt must verify (``RECEIPT_INVALID``). Refusals raise
    ``ResumeRefusedError`` with nothing written; an approval that was recorded but did not
    apply raises ``PlanNotAppliedError`` (again on every retry: the outcome is recorded).
    """
    recorded = decision_for_resume(
        approvals,
        checkpoint_id,
        approval_id,
        interrupt_id=interrupt_id,
        session_id=session_id,
        store=rt.store,
        mac_key=mac_key,
    )
    # A retry of this step after the resume finished (a lost response, a redelivery) gets the recorded
    # outcome back, with nothing written; a retry while the first attempt still holds the claim is refused.
    result = resume_run(
        rt,
        recorded.request,
        binding,
        approver=recorded.approver,
        reason=recorded.reason,
        replay_completed=True,
        before_claim=before_claim,
    )
    if result.outcome == "not_applied":
        raise PlanNotAppliedError(
            f"the approval of checkpoint {checkpoint_id} was recorded but the plan did not apply: {result.final_text}"
        )
    return result
