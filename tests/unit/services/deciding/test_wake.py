"""wake: SendTaskSuccess once per decided approval, recoverably: a failure leaves the vote and the next try
(a POST, the reconciler) sends it again; a closed token after another try is a wake, not an expiry; a closed
token at the only try expires the approval the workflow will never act on."""

from __future__ import annotations

from typing import Any

from production_orchestrator.domain.approval.approvals import ApprovalRecord, Vote
from production_orchestrator.domain.errors import BackendError, TaskTokenClosedError
from production_orchestrator.domain.records import Decision, utc_iso
from production_orchestrator.services.asking.expire import Expire, expire_approvals
from production_orchestrator.services.deciding.wake import reconcile, wake
from tests.support.memory_world import TOKEN, MemoryWorld


class Flaky:
    """A workflow callback that answers with the errors queued, then succeeds."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls: list[dict[str, Any]] = []

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        self.calls.append(dict(output))
        if self.errors:
            raise self.errors.pop(0)


def _decided(world: MemoryWorld) -> ApprovalRecord:
    started = world.start(approval=None)
    made = world.request(started)
    decision = Decision(
        approved=True,
        reviewed_hash=started.checkpoint.proposal_hash,
        approver="ana@example.com",
        decided_at=utc_iso(world.clock()),
    )
    return world.approvals.record_approval_vote(made.approval_id, Vote(decision=decision), now=world.clock())


def test_a_decided_approval_is_woken_once(world: MemoryWorld) -> None:
    approval = _decided(world)
    assert wake(world.ports(callback=world.callback), approval) == "woken"
    assert world.callback.calls == [
        (TOKEN, {"checkpoint_id": approval.checkpoint_id, "approval_id": approval.approval_id, "revise": False})
    ]
    woken = world.approval(approval.approval_id)
    assert woken.woken_at and not woken.needs_wake()
    assert wake(world.ports(callback=world.callback), woken) == "already"
    assert len(world.callback.calls) == 1


def test_a_failed_wake_is_tried_again_and_a_later_closed_token_means_it_got_through(world: MemoryWorld) -> None:
    approval = _decided(world)
    callback = Flaky(BackendError("throttled"), TaskTokenClosedError("TaskTimedOut"))
    assert wake(world.ports(callback=callback), approval) == "retry_later"
    stored = world.approval(approval.approval_id)
    assert stored.status == "decided" and stored.needs_wake() and stored.wake_tries == 1
    # The first call's answer was lost but it reached the workflow: the second hears the token is closed.
    assert reconcile(world.ports(callback=callback)) == {approval.approval_id: "woken"}
    assert world.approval(approval.approval_id).status == "decided" and len(callback.calls) == 2


def test_a_token_closed_at_the_only_try_expires_what_nothing_will_act_on(world: MemoryWorld) -> None:
    approval = _decided(world)
    assert wake(world.ports(callback=Flaky(TaskTokenClosedError("TaskTimedOut"))), approval) == "expired"
    assert world.approval(approval.approval_id).status == "expired"


def test_nothing_to_wake_for_an_open_approval_or_after_the_window(world: MemoryWorld) -> None:
    started = world.start(approval=None)
    pending = world.approval(world.request(started).approval_id)
    assert wake(world.ports(callback=world.callback), pending) == "not_decided"
    _decided(world)
    world.clock.advance(days=2)
    assert reconcile(world.ports(callback=world.callback)) == {}
    assert world.callback.calls == []


def test_a_late_resend_judged_woken_does_not_outlast_the_workflows_own_expiry(world: MemoryWorld) -> None:
    approval = _decided(world)
    # The first call was throttled (it never arrived); the wait then timed out; the reconciler's resend, in the
    # seconds before DecisionExpired ran, heard TaskTimedOut after a try and took it for a wake that got through.
    callback = Flaky(BackendError("throttled"), TaskTokenClosedError("TaskTimedOut"))
    assert wake(world.ports(callback=callback), approval) == "retry_later"
    assert reconcile(world.ports(callback=callback)) == {approval.approval_id: "woken"}
    # The workflow says otherwise: it ended in DecisionExpired with no resume claimed. That is what happened.
    assert expire_approvals(world.ports(), Expire(approval.checkpoint_id)) == [approval.approval_id]
    expired = world.approval(approval.approval_id)
    assert expired.status == "expired" and world.store.audit_events()[-1].event_type == "approval_expired"
