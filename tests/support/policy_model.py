"""A model-based check of the approval policy: random sequences of everything that can reach a decision, run
in-process against the real lifecycle code, compared step by step with a small reference model of the rules.

    start (random policies, some unsatisfiable)   page GET/POST by link holders (case variants at the CLI)
    CLI resume (anyone)   resume-approval   propose again   shop changes   clock jumps (expiry, leases)
    the workflow's expiry step   crashes at the fault points outside the agent loop   two votes at once

After every step: an applied plan had a quorum of distinct eligible approvals of exactly its hash and no
recorded reject; at most one application per approval chain; a refusal wrote nothing; every checkpoint has
its approval; the keyed audit chain and every vote's receipt verify. The reference predicts, for every
decision asked, whether it goes and, if not, with which code; a disagreement is a failure too.

Used by tests/approvals/test_policy_model.py (SQLite, ``make test``), scripts/torture.py (family ``policy``,
DynamoDB on moto) and scripts/evidence_policy.py (``evidence/policy.json``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from production_orchestrator import faults
from production_orchestrator.agent.providers import build_binding
from production_orchestrator.approval_web.endpoint import DecisionEndpoint, PageResponse
from production_orchestrator.domain.approval.policy import build_policy
from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.errors import BackendError, OrchestratorError, ResumeRefusedError
from production_orchestrator.domain.planning.proposal import load_proposal
from production_orchestrator.domain.records import parse_utc
from production_orchestrator.services.asking.expire import Expire, expire_approvals
from production_orchestrator.services.asking.request_approval import LinkPlan
from production_orchestrator.services.audit import verify_audit
from production_orchestrator.services.deciding.resume_approval import (
    ResumeDecided,
    ResumeDirect,
    resume_decided,
    resume_direct,
)
from production_orchestrator.services.runs.repropose import ProposeAgain, propose_again
from production_orchestrator.services.runs.start import StartRun, start_run
from production_orchestrator.services.runtime import Runtime

BINDING = build_binding("deterministic")
WINDOW = timedelta(days=1)
POOL = ("ana@x.com", "ben@x.com", "cy@x.com", "dee@x.com")
OUTSIDER = "zed@x.com"
SAFE_CRASH_POINTS = ("after_decision_claim", "after_agent_resume", "after_completion")
START_CRASH_POINTS = ("after_seed", "after_session_save", "after_checkpoint_write")
GO, ALREADY = "go", "already"


class Crash(BaseException):
    """The process died at a fault point (in-process: an exception nothing in the code catches)."""


@dataclass
class Tally:
    """What the runs did, for the evidence report: counted, never assumed."""

    sequences: int = 0
    steps: int = 0
    cases: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def case(self, name: str, outcome: str) -> None:
        self.steps += 1
        self.cases[name] = self.cases.get(name, 0) + 1
        self.outcomes[f"{name}:{outcome}"] = self.outcomes.get(f"{name}:{outcome}", 0) + 1

    def violate(self, message: str) -> None:
        self.violations.append(message)
        raise AssertionError(message)


class Clock:
    """The time every store, page and resume of one sequence reads."""

    def __init__(self) -> None:
        self.now = datetime(2026, 8, 12, 8, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class Callback:
    """The workflow's wake-up: records the pointer; ``failing`` models a throttled SendTaskSuccess."""

    def __init__(self) -> None:
        self.woken: list[str] = []
        self.failing = False

    def send_success(self, task_token: str, output: dict[str, Any]) -> None:
        if self.failing:
            raise BackendError("states SendTaskSuccess failed: ThrottlingException")
        self.woken.append(str(output["approval_id"]))


# -- the reference model ----------------------------------------------------------------------------------


def ident(name: str) -> str:
    return name.strip().lower()


@dataclass
class Chain:
    """One approval as the reference sees it: its policy, votes and what became of it."""

    root: str
    approval_id: str
    checkpoint_id: str
    proposal_hash: str
    approvers: tuple[str, ...]
    requester: str
    sod: bool
    restricted: bool
    required: int
    expires_at: datetime
    domain_digest: str
    secrets: dict[str, str]
    first_day: str = ""  # the first day the plan changes: once it has passed in the shop, the plan is stale by time
    made_at: datetime | None = None  # judged by time from the day after the day it was made
    red_needed: int = 0  # THREAD-RED-40 its order needs beyond what the plan buys: less on hand, and it is stale
    status: str = "pending"
    votes: list[tuple[str, bool]] = field(default_factory=list)
    resumed: bool = False
    crashed: bool = False

    def eligible(self, who: str, approve: bool) -> bool:
        who = ident(who)
        if self.restricted and who not in self.approvers:
            return False
        return not (approve and self.sod and who == self.requester)

    def approvals(self) -> int:
        return len({who for who, approve in self.votes if approve})


@dataclass(frozen=True)
class Asking:
    """``who`` asks, ``via`` the link or the CLI, for ``approve`` on the plan ``reviewed`` (default: the chain's)."""

    via: str
    who: str
    approve: bool
    reviewed: str = ""


def predict(chain: Chain, asking: Asking, stale: bool, now: datetime) -> str:
    """What the rules say about ``who`` asking for ``approve`` on ``chain`` (written apart from the product)."""
    via, who, approve = asking.via, asking.who, asking.approve
    reviewed = asking.reviewed or chain.proposal_hash
    if chain.status in ("decided", "rejected"):
        return _predict_closed(chain, via, who, approve, reviewed)
    if chain.status == "superseded":
        return "ALREADY_DECIDED"
    if chain.status == "expired" or now >= chain.expires_at:
        return "EXPIRED"
    if reviewed != chain.proposal_hash:
        return "REVIEWED_HASH_MISMATCH"
    if not chain.eligible(who, approve):
        return "UNAUTHORIZED_APPROVER"
    if ident(who) in {voter for voter, _ in chain.votes}:
        return "ALREADY_DECIDED"
    if not approve:
        return GO
    if stale:
        return "STALE_DOMAIN_STATE"
    if via == "cli" and chain.approvals() + 1 < chain.required:
        return "UNAUTHORIZED_APPROVER"
    return GO


def _predict_closed(chain: Chain, via: str, who: str, approve: bool, reviewed: str) -> str:
    """A closed approval: only its own decision, asked again, goes (a CLI asker must be eligible)."""
    if approve != (chain.status == "decided") or reviewed != chain.proposal_hash:
        return "ALREADY_DECIDED"
    if via == "cli" and not chain.eligible(who, approve):
        return "UNAUTHORIZED_APPROVER"
    return ALREADY


def required_for(policy: dict[str, Any], procured: int) -> int:
    above = policy["quorum_above"]
    return 1 if above is None or procured <= above else int(policy["quorum"])


def satisfiable(policy: dict[str, Any]) -> bool:
    approvers = list(dict.fromkeys(ident(a) for a in policy["approvers"]))
    requester = ident(policy["requester"])
    if any(len(a) < 3 for a in approvers) or (policy["separation_of_duties"] and not requester):
        return False
    eligible = [a for a in approvers if not (policy["separation_of_duties"] and a == requester)]
    if not eligible and policy["restricted"]:
        return False  # (an open local policy lets anyone but the requester approve at the CLI)
    if policy["quorum_above"] is not None and policy["quorum"] > 1:
        return bool(policy["restricted"]) and policy["quorum"] <= len(eligible)
    return True


POLICIES = st.fixed_dictionaries(
    {
        "approvers": st.lists(st.sampled_from(POOL), min_size=1, max_size=3, unique=True),
        "requester": st.sampled_from((*POOL, "", "ops@x.com", " ANA@X.com ")),
        "separation_of_duties": st.booleans(),
        "quorum": st.integers(1, 4),
        "quorum_above": st.sampled_from((None, None, 0, 700, 5000)),
        "restricted": st.sampled_from((True, True, True, False)),
    }
)
VARIANTS = st.sampled_from((str, str.upper, str.title, lambda s: f"  {s} "))


# -- the machine ------------------------------------------------------------------------------------------


class PolicyMachine(RuleBasedStateMachine):
    """Subclassed per store: ``new_world`` (a fresh shop per sequence; ``world(clock)`` is a new runtime on
    it, with its own connections) and ``tally``."""

    tally: Tally
    new_world: Callable[[], Callable[[Clock], Runtime]]

    def __init__(self) -> None:
        super().__init__()
        self.tally.sequences += 1
        self.clock = Clock()
        self.new_runtime = self.new_world()
        self.rt = self.new_runtime(self.clock)
        self.callback = Callback()
        self.chains: list[Chain] = []
        self.starts = 0

    # -- helpers --------------------------------------------------------------------------------------------

    def endpoint(self, rt: Runtime | None = None) -> DecisionEndpoint:
        rt = rt or self.rt
        assert rt.approvals is not None
        return DecisionEndpoint(dataclasses.replace(rt, callback=self.callback, clock=self.clock))

    def fingerprint(self) -> Any:
        """Everything a refusal must leave as it was (wake bookkeeping aside)."""
        store, approvals = self.rt.store, self.rt.approvals
        assert approvals is not None
        state = store.load_state()
        ids = sorted(json.loads(raw)["checkpoint_id"] for raw in store.list_checkpoints())
        decisions = [(i, store.get_decision(i)) for i in ids]
        records = [(a.approval_id, a.status, a.votes, a.superseded_by) for a in approvals.list_approvals()]
        return state and state.digest(), store.application_count(), ids, decisions, records, len(store.audit_events())

    def stale(self, chain: Chain) -> bool:
        """The chain's plan no longer holds (a fact of the store and the clock, not of the policy): a day of it
        passed in the shop, another plan placed its order, or less red thread is on hand than it counts on.
        More thread than it found is no conflict."""
        state = self.rt.store.load_state()
        if state is None:
            return False
        today = state.today(self.clock())
        if chain.made_at is not None and today > state.today(chain.made_at) and today > chain.first_day:
            return True
        if state.digest() == chain.domain_digest:
            return False
        target, red = state.order("RUSH-200"), state.material("THREAD-RED-40")
        return bool(target and target.schedule) or (red is not None and red.on_hand < chain.red_needed)

    def check(self, case: str, predicted: str, observed: str) -> None:
        self.tally.case(case, observed)
        if predicted != observed:
            self.tally.violate(f"{case}: the rules say {predicted}, the system did {observed}")

    def refused_cleanly(self, case: str, before: Any) -> None:
        if self.fingerprint() != before:
            self.tally.violate(f"{case}: a refusal wrote something")

    def new_chain(self, result: Any, policy: dict[str, Any], secrets: dict[str, str], root: str = "") -> Chain:
        approval = result.approval
        proposal = load_proposal(
            self.rt.store.get_proposal(result.checkpoint.proposal_hash) or b"", result.checkpoint.proposal_hash
        )
        procured = sum(a.quantity for a in proposal.procurement_actions)
        red = sum(a.quantity for a in proposal.procurement_actions if a.material_id == "THREAD-RED-40")
        chain = Chain(
            first_day=min(a.day for c in proposal.schedule_changes for a in (*c.before, *c.after)),
            made_at=parse_utc(result.checkpoint.created_at),
            red_needed=proposal.target_order.quantity * 10 - red,  # CREST-PATCH-RED: 10 RED-40 per patch
            root=root or approval.approval_id,
            approval_id=approval.approval_id,
            checkpoint_id=result.checkpoint.checkpoint_id,
            proposal_hash=result.checkpoint.proposal_hash,
            approvers=tuple(dict.fromkeys(ident(a) for a in policy["approvers"])),
            requester=ident(policy["requester"]),
            sod=policy["separation_of_duties"],
            restricted=policy["restricted"],
            required=required_for(policy, procured),
            expires_at=parse_utc(result.checkpoint.expires_at),
            domain_digest=result.checkpoint.domain_digest,
            secrets=secrets,
        )
        if chain.required != approval.required:
            self.tally.violate(
                f"the plan buys {procured}: the rules need {chain.required}, the record {approval.required}"
            )
        self.chains.append(chain)
        return chain

    @contextlib.contextmanager
    def crash_at(self, point: str | None) -> Iterator[None]:
        original = faults.point

        def die(name: str) -> None:
            if name == point:
                raise Crash(name)

        faults.point = die  # type: ignore[assignment]
        try:
            yield
        finally:
            faults.point = original  # type: ignore[assignment]

    def applied(self, chain: Chain) -> None:
        chain.resumed = True

    # -- rules ----------------------------------------------------------------------------------------------

    @precondition(lambda self: self.starts < 4 and self.rt.store.application_count() == 0)
    @rule(policy=POLICIES, crash=st.sampled_from((*[None] * 7, *START_CRASH_POINTS)))
    def start(self, policy: dict[str, Any], crash: str | None) -> None:
        self.starts += 1
        fields = {**policy, "approvers": policy["approvers"] if policy["restricted"] else ["shop-owner"]}
        before = self.fingerprint()
        try:
            made = build_policy(**fields)
        except OrchestratorError:
            self.check("start", "refused" if not satisfiable(fields) else GO, "refused")
            return self.refused_cleanly("start", before)
        self.check("start", GO if satisfiable(fields) else "refused", GO)
        plan = LinkPlan.fresh(made, "local")
        try:
            with self.crash_at(crash):
                result = start_run(self.rt, StartRun("rush-order", BINDING, WINDOW, plan))
        except Crash:
            self.tally.case("start-crash", crash or "")
            if crash != "after_checkpoint_write":
                return None
            ids = [json.loads(raw) for raw in self.rt.store.list_checkpoints()]
            assert self.rt.approvals is not None
            approval = self.rt.approvals.approvals_for(ids[-1]["checkpoint_id"])[-1]
            result = _Started(approval, _checkpoint(self.rt, ids[-1]["checkpoint_id"]))
        self.new_chain(result, fields, dict(plan.secrets))
        return None

    @precondition(lambda self: bool(self.chains))
    @rule(data=st.data(), approve=st.booleans(), reason=st.sampled_from(("", "  ", "not now")), old_tab=st.booleans())
    def page_post(self, data: st.DataObject, approve: bool, reason: str, old_tab: bool) -> None:
        root = data.draw(st.sampled_from([c for c in self.chains if c.secrets]))
        who = data.draw(st.sampled_from(sorted(root.secrets)))
        current = self._current(root)
        lineage = [c for c in self.chains if c.root == root.root]
        reviewed = lineage[0].proposal_hash if old_tab else current.proposal_hash  # a tab left open on the first plan
        self.callback.failing = data.draw(st.sampled_from((False, False, True)))
        before = self.fingerprint()
        page = self.endpoint().post(
            {"a": root.approval_id, "s": root.secrets[who]},  # the link as mailed: the first approval's id
            {"decision": "approve" if approve else "reject", "reviewed_hash": reviewed, "reason": reason},
        )
        predicted = predict(current, Asking("link", who, approve, reviewed), self.stale(current), self.clock())
        if predicted == GO and not approve and not reason.strip():
            predicted = "invalid"
        self.check("page_post", _page_expected(predicted), _page_outcome(page))
        if predicted == GO:
            _apply_vote(current, who, approve)
        else:
            self.refused_cleanly("page_post", before)

    @precondition(lambda self: any(c.secrets for c in self.chains))
    @rule(data=st.data())
    def page_get(self, data: st.DataObject) -> None:
        root = data.draw(st.sampled_from([c for c in self.chains if c.secrets]))
        who = data.draw(st.sampled_from(sorted(root.secrets)))
        current = self._current(root)
        before = self.fingerprint()
        page = self.endpoint().show({"a": root.approval_id, "s": root.secrets[who]})
        takes_vote = current.status == "pending" and self.clock() < current.expires_at
        takes_vote = takes_vote and ident(who) not in {voter for voter, _ in current.votes}
        expected = ("stale_shown" if self.stale(current) else "confirmation_shown") if takes_vote else "state_shown"
        self.check("page_get", expected, page.label)
        if self.fingerprint() != before:
            self.tally.violate("page_get: opening a link wrote something")

    @precondition(lambda self: not self.chains and (self.starts >= 4 or self.rt.store.application_count() > 0))
    @rule()
    def nothing_left_to_do(self) -> None:
        self.tally.case("idle", "done")

    @precondition(lambda self: bool(self.chains))
    @rule(data=st.data(), approve=st.booleans(), variant=VARIANTS)
    def cli_resume(self, data: st.DataObject, approve: bool, variant: Callable[[str], str]) -> None:
        chain = self._current(data.draw(st.sampled_from(self.chains)))
        who = data.draw(st.sampled_from((*chain.approvers, OUTSIDER, chain.requester or OUTSIDER)))
        before = self.fingerprint()
        request = ResumeRequest(chain.checkpoint_id, approve, chain.proposal_hash)
        predicted = predict(chain, Asking("cli", who, approve), self.stale(chain), self.clock())
        if predicted == ALREADY:
            predicted = self._resume_prediction(chain, approve)
        try:
            result = resume_direct(self.rt, ResumeDirect(request, BINDING, approver=variant(who), reason="typed"))
        except ResumeRefusedError as refused:
            observed = refused.code.value
        else:
            observed = GO if result.outcome in ("applied", "rejected") else result.outcome
        if chain.crashed and predicted in (GO, ALREADY, "ALREADY_DECIDED") and observed in self._after_crash(chain):
            predicted = observed  # a crashed resume's lease decides which; convergence is checked below
        self.check("cli_resume", predicted, observed)
        if observed == GO:
            if chain.status == "pending":
                chain.votes.append((ident(who), approve))
                chain.status = "decided" if approve else "rejected"
            self.applied(chain)
            chain.crashed = False
        else:
            self.refused_cleanly("cli_resume", before)

    @precondition(lambda self: bool(self.chains))
    @rule(data=st.data(), crash=st.sampled_from((None, None, *SAFE_CRASH_POINTS)))
    def resume_approval(self, data: st.DataObject, crash: str | None) -> None:
        chain = self._current(data.draw(st.sampled_from(self.chains)))
        before = self.fingerprint()
        if chain.status in ("decided", "rejected"):
            predicted = self._resume_prediction(chain, chain.status == "decided", workflow=True)
        else:
            predicted = {"pending": "UNAUTHORIZED_APPROVER", "superseded": "ALREADY_DECIDED"}.get(
                chain.status, "EXPIRED"
            )
            if chain.status == "pending" and self.clock() >= chain.expires_at:
                predicted = "EXPIRED"
        try:
            with self.crash_at(crash if predicted == GO else None):
                resume_decided(self.rt, ResumeDecided(chain.checkpoint_id, chain.approval_id, BINDING))
        except Crash:
            self.tally.case("resume-crash", crash or "")
            chain.crashed = True
            return
        except ResumeRefusedError as refused:
            observed = refused.code.value
        except OrchestratorError as exc:
            observed = type(exc).__name__
        else:
            observed = GO
        if chain.crashed and observed in self._after_crash(chain):
            predicted = observed
        self.check("resume_approval", predicted, observed)
        if observed == GO:
            self.applied(chain)
            chain.crashed = False
        else:
            self.refused_cleanly("resume_approval", before)

    @precondition(lambda self: bool(self.chains))
    @rule(data=st.data())
    def propose_again(self, data: st.DataObject) -> None:
        chain = self._current(data.draw(st.sampled_from(self.chains)))
        open_now = chain.status == "pending" and self.clock() < chain.expires_at
        predicted = GO if open_now and self.stale(chain) else "refused"
        before = self.fingerprint()
        try:
            result = propose_again(self.rt, ProposeAgain(chain.approval_id, BINDING))
        except OrchestratorError:
            observed = "refused"
        else:
            observed = GO
        if predicted == GO and observed == "refused" and self.rt.store.application_count():
            predicted = observed  # the order is scheduled already: the agent has nothing to plan (not a policy matter)
        self.check("propose_again", predicted, observed)
        if observed == GO:
            chain.status = "superseded"
            policy = {"approvers": chain.approvers, "requester": chain.requester, "separation_of_duties": chain.sod,
                      "quorum": result.approval.policy.quorum, "quorum_above": result.approval.policy.quorum_above,
                      "restricted": chain.restricted}  # fmt: skip
            self.new_chain(result, policy, {}, root=chain.root)  # the root's links open the successor
        else:
            self.refused_cleanly("propose_again", before)

    @precondition(lambda self: bool(self.chains))
    @rule(quantity=st.sampled_from((600, 600, 600, 0, 1500, 5000)))  # 600: as seeded (no change)
    def shop_change(self, quantity: int) -> None:
        if self.rt.store.load_state() is None:
            return
        from production_orchestrator.domain.records import audit_event

        self.rt.store.set_inventory("THREAD-RED-40", quantity, audit_event("inventory_set", self.clock()))
        self.tally.case("shop_change", "done")

    @precondition(lambda self: bool(self.chains))
    @rule(minutes=st.sampled_from((1, 11, 11, 180, 180, 60 * 30)))
    def clock_jump(self, minutes: int) -> None:
        self.clock.now += timedelta(minutes=minutes)
        self.tally.case("clock_jump", str(minutes))

    @precondition(lambda self: any(self.clock() >= c.expires_at for c in self.chains))
    @rule(data=st.data())
    def workflow_expiry(self, data: st.DataObject) -> None:
        chain = data.draw(st.sampled_from([c for c in self.chains if self.clock() >= c.expires_at]))
        assert self.rt.approvals is not None
        acted_on = self.rt.store.get_decision(chain.checkpoint_id) is not None
        record = self.rt.approvals.get_approval(chain.approval_id)
        expire_approvals(self.rt, Expire(chain.checkpoint_id))
        expected = chain.status
        # The workflow ended expired: what no resume claimed expires, woken or not (a resend that heard TaskTimedOut
        # after an earlier try judges it woken though the wait had timed out).
        if chain.status == "pending" or (chain.status in ("decided", "rejected") and record and not acted_on):
            expected = "expired"
        after = self.rt.approvals.get_approval(chain.approval_id)
        self.check("workflow_expiry", expected, after.status if after else "missing")
        chain.status = expected

    @precondition(lambda self: any(len(c.secrets) >= 2 for c in self.chains))
    @rule(data=st.data())
    def two_votes_at_once(self, data: st.DataObject) -> None:
        root = data.draw(st.sampled_from([c for c in self.chains if len(c.secrets) >= 2]))
        chain = self._current(root)
        a, b = data.draw(st.lists(st.sampled_from(sorted(root.secrets)), min_size=2, max_size=2, unique=True))
        runtimes = [self.new_runtime(self.clock), self.new_runtime(self.clock)]
        pages: dict[str, PageResponse] = {}
        start = threading.Barrier(2)

        def vote(who: str, rt: Runtime) -> None:
            start.wait(timeout=30)
            form = {"decision": "approve", "reviewed_hash": chain.proposal_hash, "reason": ""}
            pages[who] = self.endpoint(rt).post({"a": root.approval_id, "s": root.secrets[who]}, form)

        threads = [threading.Thread(target=vote, args=(who, rt)) for who, rt in zip((a, b), runtimes, strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert self.rt.approvals is not None
        record = self.rt.approvals.get_approval(chain.approval_id)
        assert record is not None
        recorded = [ident(v.decision.approver) for v in record.votes][len(chain.votes) :]
        stale, now = self.stale(chain), self.clock()
        for who, other in ((a, b), (b, a)):
            if who not in pages:
                self.tally.violate(f"a concurrent vote by {who} did not finish")
            # Each read the record before or after the other's vote landed: either answer is right.
            options = {_page_expected(predict(chain, Asking("link", who, True), stale, now))}
            if ident(other) in recorded:
                after = copy.deepcopy(chain)
                _apply_vote(after, other)
                options.add(_page_expected(predict(after, Asking("link", who, True), stale, now)))
            observed = _page_outcome(pages[who])
            self.check("two_votes_at_once", observed if observed in options else "|".join(sorted(options)), observed)
            if (observed == GO) != (ident(who) in recorded):
                self.tally.violate(f"{who}'s page says {observed}; the record disagrees")
        for who in recorded:
            _apply_vote(chain, who)

    # -- invariants -----------------------------------------------------------------------------------------

    @invariant()
    def every_application_was_approved_by_a_quorum(self) -> None:
        store, approvals = self.rt.store, self.rt.approvals
        assert approvals is not None
        applied = [e for e in store.audit_events() if e.event_type == "plan_applied"]
        if len(applied) != store.application_count():
            self.tally.violate(f"{store.application_count()} applications but {len(applied)} plan_applied events")
        per_root: dict[str, int] = {}
        for event in applied:
            chain = next((c for c in self.chains if c.checkpoint_id == event.checkpoint_id), None)
            records = approvals.approvals_for(event.checkpoint_id)
            if chain is None or not records:
                self.tally.violate(f"plan {event.proposal_hash[:12]} applied without an approval")
                return
            record = records[-1]
            approvers = {ident(v.decision.approver) for v in record.votes if v.decision.approved}
            eligible = {w for w in approvers if chain.eligible(w, True)}
            hashes = {v.decision.reviewed_hash for v in record.votes}
            rejects = [v for v in record.votes if not v.decision.approved]
            if len(eligible) < chain.required or hashes != {event.proposal_hash} or rejects:
                self.tally.violate(f"plan {event.proposal_hash[:12]} applied without a quorum of its hash: {record}")
            per_root[chain.root] = per_root.get(chain.root, 0) + 1
        if any(count > 1 for count in per_root.values()):
            self.tally.violate(f"an approval chain applied more than once: {per_root}")

    @invariant()
    def every_checkpoint_has_its_approval_and_the_audit_verifies(self) -> None:
        store, approvals = self.rt.store, self.rt.approvals
        assert approvals is not None
        for raw in store.list_checkpoints():
            if not approvals.approvals_for(json.loads(raw)["checkpoint_id"]):
                self.tally.violate("a checkpoint exists without its approval record")
        report = verify_audit(dataclasses.replace(self.rt, audit_key=self.rt.receipt_key))
        if not report.intact:
            self.tally.violate(f"the audit does not verify: {report.problem}")

    # -- internals ------------------------------------------------------------------------------------------

    def _current(self, chain: Chain) -> Chain:
        """The approval a chain's links open now (the newest successor)."""
        newest = [c for c in self.chains if c.root == chain.root]
        return newest[-1]

    def _after_crash(self, chain: Chain) -> set[str]:
        """What re-running a crashed resume may answer: in progress (its lease is live), finished (a takeover, or
        the recorded outcome) or, for an approve that had not applied when the shop moved on, stale."""
        options = {GO, "ALREADY_DECIDED"}
        if chain.status == "decided" and self.stale(chain) and not self.rt.store.application_count(chain.proposal_hash):
            options.add("STALE_DOMAIN_STATE")
        return options

    def _resume_prediction(self, chain: Chain, approve: bool, workflow: bool = False) -> str:
        """A closed approval's own decision resumes: the replay is the recorded outcome (workflow) or
        ALREADY_DECIDED (CLI); the gate still needs the window and, for an approve, a fresh shop."""
        if chain.resumed:
            return GO if workflow else "ALREADY_DECIDED"
        if self.clock() >= chain.expires_at and not chain.crashed:
            return "EXPIRED"
        if approve and self.stale(chain) and not chain.crashed:
            return "STALE_DOMAIN_STATE"
        return GO


@dataclass
class _Started:
    approval: Any
    checkpoint: Any


def _checkpoint(rt: Runtime, checkpoint_id: str) -> Any:
    from production_orchestrator.services.evidence import load_checkpoint

    return load_checkpoint(rt.store, checkpoint_id)


def _apply_vote(chain: Chain, who: str, approve: bool = True) -> None:
    chain.votes.append((ident(who), approve))
    if not approve or chain.approvals() >= chain.required:
        chain.status = "decided" if approve else "rejected"


def _page_outcome(page: PageResponse) -> str:
    return {
        "recorded": GO,
        "vote_recorded": GO,
        "unauthorized": "UNAUTHORIZED_APPROVER",
        "hash_mismatch": "REVIEWED_HASH_MISMATCH",
        "stale": "STALE_DOMAIN_STATE",
        "invalid": "invalid",
    }.get(page.label, "closed")


def _page_expected(predicted: str) -> str:
    """The page shows ALREADY_DECIDED, EXPIRED and an already recorded decision alike: what was recorded."""
    return "closed" if predicted in ("ALREADY_DECIDED", "EXPIRED", ALREADY) else predicted


def machine_for(new_world: Callable[[], Callable[[Clock], Runtime]], tally: Tally) -> type[PolicyMachine]:
    """A machine class bound to a store: ``new_world()`` makes a fresh shop and returns how to open it."""
    return type("BoundPolicyMachine", (PolicyMachine,), {"new_world": staticmethod(new_world), "tally": tally})


def sqlite_worlds(root: Any) -> Callable[[], Callable[[Clock], Runtime]]:
    """A fresh data dir under ``root`` per sequence; each runtime opens its own connections to it."""
    import itertools
    from dataclasses import replace

    from production_orchestrator.cli.root import local_runtime

    counter = itertools.count()

    def new_world() -> Callable[[Clock], Runtime]:
        data_dir = root / f"seq-{next(counter)}"
        return lambda clock: replace(local_runtime(data_dir, create=True), clock=clock)

    return new_world


def dynamodb_worlds(endpoint: str, key_dir: Any) -> Callable[[], Callable[[Clock], Runtime]]:
    """A fresh table and bucket on the moto server at ``endpoint`` per sequence (the environment must point
    boto3 at it); receipts and the audit chain are MACed with a key file (KMS is the integration tests')."""
    import itertools
    import os

    import boto3

    from production_orchestrator.adapters.aws.dynamodb_approvals import DynamoApprovalStore
    from production_orchestrator.adapters.aws.dynamodb_store import DynamoShopStore
    from production_orchestrator.adapters.aws.s3_sessions import S3SessionStore
    from production_orchestrator.adapters.local.mac_key import FileMacKey
    from tests.support.moto_aws import AwsWorld

    key_dir.mkdir(parents=True, exist_ok=True)
    key = FileMacKey(key_dir / "receipt.key")
    counter = itertools.count()

    def new_world() -> Callable[[Clock], Runtime]:
        aws = AwsWorld(endpoint, f"pm{os.getpid()}x{next(counter)}")

        def runtime(clock: Clock) -> Runtime:
            session = boto3.Session(region_name="us-east-1")
            dynamodb = session.client("dynamodb")
            return Runtime(
                store=DynamoShopStore(dynamodb, aws.table, audit_key=key),
                sessions=S3SessionStore(aws.bucket, aws.prefix, session),
                clock=clock,
                pid=os.getpid(),
                approvals=DynamoApprovalStore(dynamodb, aws.table),
                receipt_key=key,
            )

        return runtime

    return new_world


def run_machine(new_world: Callable[[], Callable[[Clock], Runtime]], *, examples: int, steps: int) -> tuple[Tally, str]:
    """Run the machine ``examples`` times; the tally and the failure (empty when none was found)."""
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    tally = Tally()
    machine = machine_for(new_world, tally)
    chosen = settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    try:
        run_state_machine_as_test(machine, settings=chosen)
    except AssertionError as exc:
        return tally, str(exc).splitlines()[0][:500]
    return tally, ""
