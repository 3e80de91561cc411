"""A model-based check of a shop's week: seeded random interleavings of starts (some the same request again),
approvals, rejects, expiries and operator writes on one shop, run in-process against the real lifecycle
code (the real Strands loop with the scripted model) on SQLite or on DynamoDB (moto).

    start e-mail k (k from a small pool: totes and caps in several sizes, with and without a Message-ID)
    approve / reject a run (CLI resume)   operator write (set-inventory)   clock jump (expiry, days passing)
    order complete / shop receive (changes that only free capacity or stock)

The reference is deliberately simple and independent of the staleness code: an approve after a day of the plan
has passed (since the day it was made) is STALE_DOMAIN_STATE; one on a shop whose footprint part
(``footprint_digest``) is what the plan was made on goes; any other may go or be STALE_DOMAIN_STATE, and
when it goes the invariants below say it was right to. Invariants after every step:

- never an overbooked machine-day (capacity and calendar of every machine-day the shop books);
- never a plan applied that breaks a rule or a promise its approvers saw: on the shop just before the apply
  every order it moves was where it found it, the independent checker finds no broken rule, and after it
  every order it changes runs exactly as the plan said, the new order finishing on the day and with the
  on-time verdict the plan showed (and the ``plan_applied`` event names the digests and the check);
- a change that only frees capacity or stock (an order completed that no pending plan moves, a delivery)
  stales no pending plan that held before it;
- exactly one application per approved plan, none for a rejected or expired one;
- a start of a request whose run is open answers ALREADY_PENDING and writes nothing; a reject or an expiry
  leaves the shop's digest exactly as it was.

Used by tests/integration/test_week_model.py (small in ``make test``; ``make week-model`` runs more).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from production_orchestrator.domain.approval.verification import ResumeRequest
from production_orchestrator.domain.errors import (
    AlreadyPendingError,
    OrchestratorError,
    PossibleDuplicateError,
    RequestAlreadyDecidedError,
    ResumeRefusedError,
)
from production_orchestrator.domain.planning import checker
from production_orchestrator.domain.planning.materials import ready_day, shortages
from production_orchestrator.domain.planning.proposal import ProposalContent
from production_orchestrator.domain.planning.still_holds import changed_days
from production_orchestrator.domain.records import audit_event, parse_utc
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.footprint import footprint_digest
from production_orchestrator.domain.shop.model import ShopState
from production_orchestrator.services.asking.request_approval import operator_plan
from production_orchestrator.services.deciding.resume_approval import ResumeDirect, resume_direct
from production_orchestrator.services.evidence import freshness, load_checkpoint
from production_orchestrator.services.runs.plan_request import PlanRequest
from production_orchestrator.services.runs.start import StartRun, start_run
from production_orchestrator.services.runtime import Runtime
from production_orchestrator.services.shop import life as shop_life
from production_orchestrator.services.shop.importing import ImportShop, import_shop
from tests.support.policy_model import BINDING, Clock

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SHOP = read_shop(json.loads((EXAMPLES / "print-shop.json").read_text()))
DAY = "2026-12-01"
WINDOW = timedelta(hours=30)
_TOTES = (EXAMPLES / "request-totes.eml").read_text()
_CAPS = (EXAMPLES / "request-caps.txt").read_text()


def _totes(n: int, quantity: int) -> str:
    return _TOTES.replace("festival-totes-0001", f"festival-totes-{n:04d}").replace("400 navy", f"{quantity} navy")


def _caps(quantity: int) -> str:
    # An e-mail with its own sender and Message-ID, so a second start of it is the same request (issue 27);
    # pasted without them, it would be held as a possible duplicate instead.
    envelope = f"From: Tom <tom@lakeside-rowing.example>\nMessage-ID: <caps-{quantity}@lakeside-rowing.example>\n\n"
    return envelope + _CAPS.replace("80 embroidered caps", f"{quantity} embroidered caps")


EMAILS = (_totes(1, 400), _totes(2, 60), _totes(3, 150), _caps(80), _caps(20), _caps(45))
MATERIALS = tuple(m.id for m in SHOP.materials)


@dataclass
class Tally:
    """What the runs did, counted."""

    sequences: int = 0
    steps: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def case(self, name: str) -> None:
        self.steps += 1
        self.outcomes[name] = self.outcomes.get(name, 0) + 1


@dataclass
class Run:
    """One started run as the model knows it."""

    email: int
    checkpoint_id: str
    proposal_hash: str
    proposal: ProposalContent
    expires: Any
    made_on: str = ""  # the shop's day the plan was made
    status: str = "pending"  # pending | applied | rejected


class WeekModel:
    """One sequence on a fresh shop: each step a random action, then every invariant."""

    def __init__(self, new_world: Callable[[], Callable[[Clock], Runtime]], tally: Tally, rng: random.Random) -> None:
        self.tally, self.rng = tally, rng
        self.tally.sequences += 1
        self.clock = Clock()
        self.clock.now = parse_utc("2026-12-01T07:00:00Z")
        self.rt = new_world()(self.clock)
        import_shop(self.rt, ImportShop(SHOP))
        self.runs: list[Run] = []

    # -- helpers --------------------------------------------------------------------------------------------

    def state(self) -> ShopState:
        state = self.rt.store.load_state()
        assert state is not None
        return state

    def fingerprint(self) -> Any:
        store = self.rt.store
        assert self.rt.approvals is not None
        return (
            self.state().digest(),
            store.application_count(),
            sorted(store.list_checkpoints()),
            [(a.approval_id, a.status, a.votes) for a in self.rt.approvals.list_approvals()],
        )

    def open_run(self, email: int) -> Run | None:
        now = self.clock()
        return next((r for r in self.runs if r.email == email and r.status == "pending" and now < r.expires), None)

    def decide(self, run: Run, approve: bool) -> str:
        request = ResumeRequest(run.checkpoint_id, approve, run.proposal_hash)
        try:
            result = resume_direct(
                self.rt, ResumeDirect(request, BINDING, approver="operator", reason="" if approve else "no")
            )
        except ResumeRefusedError as refused:
            return refused.code.value
        return result.outcome

    # -- rules ----------------------------------------------------------------------------------------------

    def start(self, email: int) -> None:
        before = self.fingerprint()
        waiting = self.open_run(email)
        decided = any(r.email == email for r in self.runs) and waiting is None
        try:
            result = start_run(self.rt, StartRun(PlanRequest(EMAILS[email], DAY), BINDING, WINDOW, operator_plan()))
        except AlreadyPendingError as pending:
            assert waiting is not None, "ALREADY_PENDING for a request with no open run"
            assert pending.checkpoint_id == waiting.checkpoint_id
            assert self.fingerprint() == before, "ALREADY_PENDING wrote something"
            self.tally.case("start:already_pending")
            return
        except PossibleDuplicateError:
            raise AssertionError("the same envelope again was held as a possible duplicate") from None
        except RequestAlreadyDecidedError:
            assert decided, "refused as decided, but no earlier run of it was decided"
            assert self.fingerprint() == before, "a refused start wrote something"
            self.tally.case("start:already_decided")
            return
        except OrchestratorError:
            self.tally.case("start:refused")
            return
        assert waiting is None, "a second run of a request whose run is open"
        assert not decided, "a decided request started again without --again"
        assert self.state().digest() == before[0], "a start changed the shop"
        cp = result.checkpoint
        made_on = self.state().today(parse_utc(cp.created_at))
        self.runs.append(
            Run(email, cp.checkpoint_id, cp.proposal_hash, result.proposal, parse_utc(cp.expires_at), made_on)
        )
        self.tally.case("start:started")

    def day_passed(self, run: Run) -> bool:
        """A day the plan changes (or must buy by) is before today, and a day passed since it was made."""
        state = self.state()
        today = state.today(self.clock())
        days = [d for d, _ in changed_days(run.proposal)] + [a.needed_by for a in run.proposal.procurement_actions]
        return today > run.made_on and min(days) < today

    def approve(self, run: Run) -> None:
        before_state, before = self.state(), self.fingerprint()
        same_footprint = footprint_digest(before_state, run.proposal.footprint) == run.proposal.footprint_digest
        expired = self.clock() >= run.expires
        passed = self.day_passed(run)
        observed = self.decide(run, True)
        self.tally.case(f"approve:{observed}")
        if expired:
            assert observed == "EXPIRED", f"an approve after the window: {observed}"
        elif passed:
            assert observed == "STALE_DOMAIN_STATE", f"a plan whose day has passed was {observed}"
        elif same_footprint:
            assert observed == "applied", f"a plan whose footprint is as its approvers saw it was {observed}"
        else:
            assert observed in ("applied", "STALE_DOMAIN_STATE"), f"a plan on a changed shop was {observed}"
        if observed != "applied":
            assert self.fingerprint() == before, f"a refused approve ({observed}) wrote something"
            return
        run.status = "applied"
        if before_state.digest() != run.proposal.base_digest:
            self.tally.case("approve:applied_on_a_changed_shop")
            if not same_footprint:
                self.tally.case("approve:applied_where_the_footprint_changed")
        self.held_as_promised(run, before_state)
        events = [e.detail for e in self.rt.store.audit_events() if e.event_type == "plan_applied"]
        mine = [d for d in events if d.get("footprint_digest") == run.proposal.footprint_digest]
        assert mine and mine[-1]["applied_on_digest"] == before_state.digest()
        assert mine[-1]["proposed_on_digest"] == run.proposal.base_digest
        assert mine[-1]["result_digest"] == self.state().digest()
        unchanged = before_state.digest() == run.proposal.base_digest
        assert mine[-1]["staleness_check"] == ("unchanged" if unchanged else "still holds")

    def held_as_promised(self, run: Run, before: ShopState) -> None:
        """The applied plan broke no rule and kept every promise its approvers saw (checked independently)."""
        proposal, after = run.proposal, self.state()
        target = proposal.target_order.model_copy(update={"schedule": ()})
        for change in proposal.schedule_changes:
            found = before.order(change.order_id)
            if change.order_id != target.id:
                assert found is not None and found.schedule == change.before, f"{change.order_id} had moved"
            placed = after.order(change.order_id)
            assert placed is not None and placed.schedule == change.after, f"{change.order_id} not as planned"
        shop = before if before.order(target.id) else before.with_order(target)
        product = shop.product(target.product)
        assert product is not None
        day = proposal.planning_day
        earliest = ready_day(shortages(shop, target, product, day), day)
        plan = checker.Plan(shop, target, day, earliest, {c.order_id: c.after for c in proposal.schedule_changes})
        broken = checker.violations(plan)
        assert not broken, f"the applied plan breaks {broken}"
        placed = after.order(target.id)
        assert placed is not None and placed.last_day == max(a.day for a in proposal.new_schedule())
        late_shown = any(r.order_id == target.id and r.finish > r.due for r in proposal.at_risk)
        assert (placed.last_day > placed.due) == late_shown, "the new order's on-time verdict changed"

    def reject(self, run: Run) -> None:
        digest = self.state().digest()
        expired = self.clock() >= run.expires
        observed = self.decide(run, False)
        self.tally.case(f"reject:{observed}")
        assert observed == ("EXPIRED" if expired else "rejected"), f"a reject was {observed}"
        assert self.state().digest() == digest, "a reject or an expired decision changed the shop"
        run.status = "rejected" if observed == "rejected" else run.status

    def operator_write(self, material: str, quantity: int) -> None:
        self.rt.store.set_inventory(material, quantity, audit_event("inventory_set", self.clock()))
        self.tally.case("operator_write")

    def fresh_runs(self) -> set[str]:
        """Pending runs whose plan holds now (the staleness rule, asked without deciding)."""
        found = set()
        for run in self.runs:
            if run.status == "pending" and self.clock() < run.expires:
                checkpoint = load_checkpoint(self.rt.store, run.checkpoint_id)
                if not freshness(self.rt.store, checkpoint, run.proposal, self.clock()).stale:
                    found.add(run.checkpoint_id)
        return found

    def freeing_change(self, pick: int, quantity: int) -> None:
        """An order completes that no pending plan moves, or a delivery arrives: no plan that held may go stale."""
        held = self.fresh_runs()
        moved = {c.order_id for r in self.runs if r.status == "pending" for c in r.proposal.schedule_changes}
        free = [o.id for o in self.state().orders if o.id not in moved]
        try:
            if pick % 2 and free:
                shop_life.complete(self.rt, shop_life.Complete(free[pick % len(free)]))
                self.tally.case("free:complete")
            else:
                material = MATERIALS[pick % len(MATERIALS)]
                shop_life.receive(self.rt, shop_life.Receive(material, quantity))
                self.tally.case("free:receive")
        except OrchestratorError:
            self.tally.case("free:refused")
            return
        still = self.fresh_runs()
        assert held <= still, f"a change that only frees capacity or stock staled {sorted(held - still)}"

    def clock_jump(self, hours: int) -> None:
        self.clock.now += timedelta(hours=hours)
        self.tally.case(f"clock_jump:{hours}")

    # -- invariants -----------------------------------------------------------------------------------------

    def never_an_overbooked_machine_day(self) -> None:
        state = self.state()
        slots = {(a.machine, a.day) for o in state.orders for a in o.schedule}
        for machine_id, day in slots:
            machine = state.machine(machine_id)
            assert machine is not None and machine.works_on(day), f"{machine_id} booked on a closed {day}"
            booked = state.booked_minutes(machine_id, day)
            assert booked <= machine.minutes_per_day, f"{machine_id} on {day} booked {booked}"

    def exactly_one_application_per_approved_plan(self) -> None:
        store = self.rt.store
        for run in self.runs:
            expected = 1 if run.status == "applied" else 0
            assert store.application_count(run.proposal_hash) == expected, f"{run.checkpoint_id}: {run.status}"
        assert store.application_count() == sum(r.status == "applied" for r in self.runs)

    def step(self) -> str:
        """One random action (weighted toward starts and decisions), then the invariants; what it was."""
        pending = [r for r in self.runs if r.status == "pending"]
        roll = self.rng.random()
        if roll < 0.35 or not pending:
            email = self.rng.randrange(len(EMAILS))
            action, act = f"start {email}", lambda: self.start(email)
        elif roll < 0.6:
            run = self.rng.choice(pending)
            action, act = f"approve {run.email}", lambda: self.approve(run)
        elif roll < 0.72:
            run = self.rng.choice(pending)
            action, act = f"reject {run.email}", lambda: self.reject(run)
        elif roll < 0.8:
            material, quantity = self.rng.choice(MATERIALS), self.rng.choice((0, 50, 500, 5000))
            action, act = f"set {material} {quantity}", lambda: self.operator_write(material, quantity)
        elif roll < 0.88:
            pick, quantity = self.rng.randrange(1000), self.rng.choice((1, 50, 500))
            action, act = f"free {pick} {quantity}", lambda: self.freeing_change(pick, quantity)
        else:
            hours = self.rng.choice((1, 6, 31))
            action, act = f"clock +{hours}h", lambda: self.clock_jump(hours)
        act()
        self.never_an_overbooked_machine_day()
        self.exactly_one_application_per_approved_plan()
        return action


def run_week(new_world: Callable[[], Callable[[Clock], Runtime]], *, examples: int, steps: int, seed: int = 0) -> Tally:
    """``examples`` sequences of ``steps`` random actions, sequence i seeded ``seed + i`` (a failure names its
    seed and the actions that led to it, so it reproduces); raises ``AssertionError`` on a violation."""
    tally = Tally()
    for i in range(examples):
        model = WeekModel(new_world, tally, random.Random(seed + i))
        done: list[str] = []
        for _ in range(steps):
            try:
                done.append(model.step())
            except AssertionError as exc:
                raise AssertionError(f"seed {seed + i}, after {done}: {exc}") from exc
    return tally
