"""Races over real wire calls: double clicks, two approvers at once, and two resumes of one decision.

Threads start together at a barrier; whatever interleaving the server sees, exactly one wins.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
from production_orchestrator.domain.errors import DecisionAlreadyClaimedError, RefusalCode, ResumeRefusedError
from production_orchestrator.domain.messages.outbox import queue_messages
from production_orchestrator.domain.planning.propose import apply_proposal, build_proposal
from production_orchestrator.domain.records import AuditEvent, Decision, DecisionRecord
from production_orchestrator.domain.scenarios import scenario
from production_orchestrator.handlers import decide
from tests.support.aws_flow import approved_flow, start
from tests.support.moto_aws import AwsWorld, Clock, LambdaContext, cold_start, function_url_event
from tests.support.together import together

T = TypeVar("T")
RACERS = 6


def _event(kind: str) -> AuditEvent:
    return AuditEvent(event_type=kind, at="2026-08-12T08:00:00Z")


def test_simultaneous_posts_record_one_decision(aws: AwsWorld, clock: Clock) -> None:
    flow = start(aws)
    flow.request_approval()
    cold_start()
    decide.root()

    def post(index: int) -> Any:
        link = flow.links[index % len(flow.links)]
        decision = "approve" if index % 2 else "reject"
        form = {
            "a": link.approval_id,
            "s": link.secret,
            "decision": decision,
            "reviewed_hash": flow.proposal_hash,
            "reason": "racing",
        }
        response = decide.handler(function_url_event("POST", form=form), LambdaContext())
        return response["statusCode"], ") was recorded" in response["body"]

    results = together([lambda i=i: post(i) for i in range(RACERS)])
    # One decision is recorded; every other POST is told it was already recorded (the same decision) or refused
    # (a different one); no POST is lost to a 5xx.
    assert sum(1 for status, recorded in results if recorded) == 1  # type: ignore[misc]
    assert all(status in (200, 409) for status, _ in results)  # type: ignore[misc]
    approval = DynamoApprovalStore(aws.dynamodb, aws.table).get_approval(flow.approval_id)
    assert approval is not None and len(approval.votes) == 1 and approval.status in ("decided", "rejected")


def test_simultaneous_claims_and_applies_succeed_once(aws: AwsWorld) -> None:
    store = DynamoShopStore(aws.dynamodb, aws.table)
    rush = scenario("rush-order")
    store.seed(rush.state.with_order(_rush_order()), _event("shop_seeded"))
    state = store.load_state()
    assert state is not None
    proposal = build_proposal(state, rush.target_order_id, rush.planning_day)
    proposal_hash = proposal.proposal_hash()
    decision = Decision(approved=True, reviewed_hash=proposal_hash, approver="ana", decided_at="2026-08-12T09:00:00Z")
    record = DecisionRecord(checkpoint_id="ckpt-" + "4" * 32, decision=decision, resume_pid=1, claimed_at="x")

    claims = together([lambda: store.claim_decision(record, _event("decision_recorded")) for _ in range(RACERS)])
    assert sum(result is None for result in claims) == 1
    assert all(isinstance(r, DecisionAlreadyClaimedError) for r in claims if r is not None)

    new_state = apply_proposal(state, proposal)
    messages = queue_messages(proposal, proposal_hash, record.checkpoint_id, datetime.now(UTC))
    applies = together(
        [
            lambda: store.apply_plan(
                proposal_hash=proposal_hash,
                checkpoint_id=record.checkpoint_id,
                new_state=new_state,
                expected=(state.revision, state.digest()),
                event=_event("plan_applied"),
                messages=messages,
            )
            for _ in range(RACERS)
        ]
    )
    assert applies.count(True) == 1, applies
    assert store.application_count() == 1
    assert [e.event_type for e in store.audit_events()].count("plan_applied") == 1
    # The plan's messages were queued by the one apply that won, each once.
    assert [m.key for m in store.outbox_messages()] == [m.key for m in messages] and len(messages) == 3


def _rush_order() -> Any:
    return scenario("rush-order").target_order()


@pytest.mark.parametrize("trial", range(2))
def test_two_resumes_of_one_decision_apply_once(trial: int, aws: AwsWorld, clock: Clock) -> None:
    flow = approved_flow(aws, "approve" if trial == 0 else "reject")
    from production_orchestrator.handlers import resume_agent

    event = {**flow.run, "approval_id": flow.approval_id}
    cold_start()
    results = together([lambda: resume_agent.handler(dict(event), LambdaContext()) for _ in range(2)])
    finished = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, ResumeRefusedError)]
    # The loser either saw the claim in progress (refused) or, arriving after the winner finished, got the
    # recorded outcome back: never a second resume.
    assert len(finished) + len(refused) == 2 and finished, results
    assert all(r == finished[0] for r in finished)
    assert all(r.code is RefusalCode.ALREADY_DECIDED for r in refused)
    store = DynamoShopStore(aws.dynamodb, aws.table)
    assert store.application_count() == (1 if trial == 0 else 0)
    assert [e.event_type for e in store.audit_events()].count("decision_recorded") == 1
