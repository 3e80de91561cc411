"""The one approval rule (domain/approval/policy.py), as a table: who may decide what, when. Pure, no store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from production_orchestrator.domain.approval.approvals import ApprovalRecord, ApproverLink, Vote, hash_link_secret
from production_orchestrator.domain.approval.authority import (
    Ask,
    CastVote,
    ResumeRecorded,
    authorize,
    authorize_revision,
)
from production_orchestrator.domain.approval.policy import ApprovalPolicy, identity
from production_orchestrator.domain.approval.verification import Refusal
from production_orchestrator.domain.errors import ApprovalExpiredError, DecisionAlreadyClaimedError, RefusalCode
from production_orchestrator.domain.records import Decision, utc_iso

NOW = datetime(2026, 8, 12, 8, 0, tzinfo=UTC)
PLAN = "a" * 64
OTHER = "b" * 64


def record(**policy: Any) -> ApprovalRecord:
    made = ApprovalPolicy(**{"approvers": ("ana@x.com", "ben@x.com", "cy@x.com"), **policy})
    return ApprovalRecord(
        approval_id="appr-" + "1" * 32,
        checkpoint_id="ckpt-" + "2" * 32,
        proposal_hash=PLAN,
        created_at=utc_iso(NOW),
        expires_at=utc_iso(NOW + timedelta(days=1)),
        task_token="t",
        policy=made,
        links=tuple(ApproverLink(approver=a, secret_hash=hash_link_secret(a * 8)) for a in made.approvers),
        required=made.required_for(1200),
    )


def vote(approval: ApprovalRecord, who: str, approved: bool = True, reviewed: str = PLAN) -> ApprovalRecord:
    decision = Decision(approved=approved, reviewed_hash=reviewed, approver=who, reason="r", decided_at=utc_iso(NOW))
    return approval.with_vote(Vote(decision=decision), NOW)


def ask(via: str = "link", approved: bool = True, actor: str = "ben@x.com", **kw: Any) -> Ask:
    return Ask(via, approved=approved, reviewed_hash=kw.pop("reviewed_hash", PLAN), actor=actor, **kw)  # type: ignore[arg-type]


def code(verdict: Any) -> RefusalCode | None:
    return verdict.code if isinstance(verdict, Refusal) else None


def test_identities_are_compared_case_folded_and_stripped() -> None:
    assert identity("  Ana@X.COM ") == "ana@x.com"
    approval = record(requester=" ANA@x.com", separation_of_duties=True)
    assert approval.requester == "ana@x.com"
    assert code(authorize(approval, ask(actor="Ana@X.com"), NOW)) is RefusalCode.UNAUTHORIZED_APPROVER
    assert isinstance(authorize(approval, ask(actor="BEN@x.com "), NOW), CastVote)
    assert vote(approval, "BEN@x.com").has_voted("ben@x.com")


def test_no_approval_record_means_nobody_may_decide() -> None:
    for via in ("link", "cli", "workflow"):
        assert code(authorize(None, ask(via), NOW)) is RefusalCode.UNAUTHORIZED_APPROVER


@pytest.mark.parametrize(
    ("policy", "problem"),
    [
        ({"approvers": ("ana@x.com",), "requester": "ana@x.com", "separation_of_duties": True}, "nobody may approve"),
        ({"quorum": 4, "quorum_above": 100}, "needs 4 approvals but only 3"),
        ({"separation_of_duties": True}, "nobody is named as the requester"),
        ({"quorum": 2, "quorum_above": 0, "restricted": False}, "named approver list"),
    ],
)
def test_a_policy_that_can_never_be_satisfied_is_named(policy: dict[str, Any], problem: str) -> None:
    assert any(
        problem in p for p in ApprovalPolicy(**{"approvers": ("ana@x.com", "b@x.com", "c@x.com"), **policy}).problems()
    )


def test_the_quorum_needs_distinct_eligible_approvals_of_exactly_the_plan() -> None:
    approval = record(quorum=2, quorum_above=1000)
    assert approval.required == 2
    first = vote(approval, "ana@x.com")
    assert first.status == "pending" and first.approving_votes() == 1
    assert code(authorize(first, ask(actor="ANA@x.com"), NOW)) is RefusalCode.ALREADY_DECIDED  # not twice
    with pytest.raises(DecisionAlreadyClaimedError):
        vote(first, " ana@X.com")
    assert code(authorize(first, ask(actor="mallory@x.com"), NOW)) is RefusalCode.UNAUTHORIZED_APPROVER
    assert code(authorize(first, ask(reviewed_hash=OTHER), NOW)) is RefusalCode.REVIEWED_HASH_MISMATCH
    # At the CLI an approve is a vote and a resume at once: only the one that completes the quorum goes.
    assert code(authorize(approval, ask("cli"), NOW)) is RefusalCode.UNAUTHORIZED_APPROVER
    assert authorize(first, ask("cli"), NOW) == CastVote("ben@x.com", decides=True)
    assert vote(first, "ben@x.com").status == "decided"


def test_a_reject_is_always_possible_while_open_even_on_a_stale_shop_and_closes_it() -> None:
    approval = record(requester="ana@x.com", separation_of_duties=True)
    assert code(authorize(approval, ask(stale=True), NOW)) is RefusalCode.STALE_DOMAIN_STATE
    assert authorize(approval, ask(approved=False, stale=True), NOW) == CastVote("ben@x.com", decides=True)
    assert isinstance(authorize(approval, ask(approved=False, actor="ana@x.com"), NOW), CastVote)  # the requester
    rejected = vote(approval, "ana@x.com", approved=False)
    assert rejected.status == "rejected" and rejected.decision is not None


def test_a_closed_approval_lets_only_its_own_decision_proceed() -> None:
    decided = vote(record(), "ana@x.com")
    assert decided.status == "decided"
    for via in ("link", "cli", "workflow"):
        assert isinstance(authorize(decided, ask(via), NOW), ResumeRecorded)
        assert code(authorize(decided, ask(via, approved=False), NOW)) is RefusalCode.ALREADY_DECIDED
    rejected = vote(record(), "ben@x.com", approved=False)
    assert code(authorize(rejected, ask("cli", actor="cy@x.com"), NOW)) is RefusalCode.ALREADY_DECIDED
    assert isinstance(authorize(rejected, ask("workflow", approved=False), NOW), ResumeRecorded)


def test_expired_and_superseded_approvals_take_no_decision() -> None:
    approval = record()
    later = NOW + timedelta(days=2)
    assert code(authorize(approval, ask(approved=False), later)) is RefusalCode.EXPIRED
    ben = vote(approval, "ben@x.com").votes[0]
    with pytest.raises(ApprovalExpiredError):
        approval.with_vote(ben, later)
    assert code(authorize(approval.expired(NOW), ask(approved=False), NOW)) is RefusalCode.EXPIRED
    replaced = approval.superseded("appr-" + "3" * 32, NOW)
    assert code(authorize(replaced, ask(approved=False), NOW)) is RefusalCode.ALREADY_DECIDED
    with pytest.raises(DecisionAlreadyClaimedError):
        vote(approval, "ana@x.com").superseded("appr-" + "3" * 32, NOW)  # a decided approval is not replaced


def test_a_decision_its_votes_do_not_make_is_refused_on_resume() -> None:
    decided = vote(record(quorum=2, quorum_above=0), "ana@x.com").model_copy(
        update={"status": "decided", "decision": vote(record(), "ana@x.com").decision}
    )
    refused = authorize(decided, ask("workflow"), NOW)
    assert code(refused) is RefusalCode.UNAUTHORIZED_APPROVER and "needs 2 approvals" in refused.message  # type: ignore[union-attr]
    renamed = vote(record(), "ana@x.com")
    mallory = renamed.votes[0].decision.model_copy(update={"approver": "mallory@x.com"})
    tampered = renamed.model_copy(update={"votes": (Vote(decision=mallory),), "decision": mallory})
    assert code(authorize(tampered, ask("workflow"), NOW)) is RefusalCode.UNAUTHORIZED_APPROVER


def test_an_approver_removed_from_the_configured_list_may_not_decide() -> None:
    approval = record()
    allowed = frozenset({"ana@x.com"})
    assert code(authorize(approval, ask(allowed=allowed), NOW)) is RefusalCode.UNAUTHORIZED_APPROVER
    decided = vote(approval, "ben@x.com")
    assert code(authorize(decided, ask("workflow", allowed=allowed), NOW)) is RefusalCode.UNAUTHORIZED_APPROVER


def test_a_version_1_record_reads_with_its_policy() -> None:
    old = {
        "schema_version": 1,
        "approval_id": "appr-" + "1" * 32,
        "checkpoint_id": "ckpt-" + "2" * 32,
        "proposal_hash": PLAN,
        "status": "decided",
        "created_at": utc_iso(NOW),
        "expires_at": utc_iso(NOW + timedelta(days=1)),
        "task_token": "t",
        "approvers": [{"approver": "Ana@x.com", "secret_hash": "c" * 64}],
        "requester": "ben@x.com",
        "separation_of_duties": True,
        "quorum": 1,
        "decision": {"approved": False, "reviewed_hash": PLAN, "approver": "ana@x.com", "reason": "no",
                     "decided_at": utc_iso(NOW)},
    }  # fmt: skip
    read = ApprovalRecord.model_validate(old)
    assert read.status == "rejected" and read.policy.approvers == ("ana@x.com",) and read.requester == "ben@x.com"


def test_the_last_version_a_policy_allows_is_not_revised() -> None:
    for version, refused in ((1, False), (2, False), (3, True), (7, True)):
        approval = record(max_versions=3).model_copy(update={"version": version})
        refusal = authorize_revision(approval, "ana@x.com", NOW)
        assert (refusal is not None and refusal.code is RefusalCode.VERSION_LIMIT) is refused, version
    # The bound is checked after who asks: someone who may not vote learns nothing of it.
    outsider = authorize_revision(record(max_versions=1), "eve@x.com", NOW)
    assert outsider is not None and outsider.code is RefusalCode.UNAUTHORIZED_APPROVER
    # A record written before the bound existed has none, and keeps its stored text (no new key in it).
    unbounded = record().model_copy(update={"version": 9})
    assert authorize_revision(unbounded, "ana@x.com", NOW) is None
    assert (
        "max_versions" not in unbounded.policy.model_dump()
        and "max_versions" in record(max_versions=3).policy.model_dump()
    )
