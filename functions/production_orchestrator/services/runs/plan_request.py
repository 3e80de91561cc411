"""What one start plans: a customer's e-mail on a shop (the data dir's own, or a reference scenario's) from
a planning day, and which shop that is, read without writing anything."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...domain.errors import IntakeError, PlanningError, ShopError, UnplannableError
from ...domain.intake.customer_message import CustomerMessage
from ...domain.intake.given import given_against_email
from ...domain.planning.guidance import Revision
from ...domain.planning.proposal import GivenFacts, ProposalContent
from ...domain.planning.propose import Requested, build_proposal
from ...domain.planning.still_holds import judged_today
from ...domain.records import Checkpoint, parse_utc
from ...domain.scenarios import SCENARIOS
from ...domain.scenarios import scenario as find_scenario
from ...domain.shop.model import Order, ShopState
from ..evidence import current_state
from ..runtime import Runtime

REQUEST_RUN = "request"  # the checkpoint's "scenario" of a run on the data dir's own shop


@dataclass(frozen=True)
class PlanRequest:
    """What one start plans: a customer's e-mail, on the data dir's shop, from a planning day.

    ``scenario`` names a reference shop to seed first (a no-op when the data dir already holds it);
    ``given`` holds the facts the person starting the run gave themselves (recorded in the proposal);
    ``revision`` makes the plan a revised version of an earlier one, under an approver's guidance.
    """

    text: str
    planning_day: str
    scenario: str = ""
    given: GivenFacts | None = None
    revision: Revision | None = None

    @classmethod
    def of_scenario(cls, name: str, *, text: str | None = None, planning_day: str | None = None) -> PlanRequest:
        """A reference scenario: its shop and e-mail on its day, unless another text or day is given."""
        chosen = find_scenario(name)
        return cls(text=text or chosen.customer_email, planning_day=planning_day or chosen.planning_day, scenario=name)

    def told(self, message: CustomerMessage, shop: ShopState) -> PlanRequest:
        """This request with its given facts recorded beside what the e-mail said of them, for the approver."""
        return dataclasses.replace(self, given=given_against_email(message, shop, self.planning_day, self.given))

    @classmethod
    def again(cls, checkpoint: Checkpoint, proposal: ProposalContent, today: str = "") -> PlanRequest:
        """The same request, for proposing again on the current shop: from its planning day, or from ``today``
        (the shop's calendar day) once that day has passed, so the new plan books no day in the past."""
        scenario = checkpoint.scenario if checkpoint.scenario in SCENARIOS else ""
        day = max(proposal.planning_day, today)
        return cls(text=proposal.request_text, planning_day=day, scenario=scenario, given=proposal.given)

    def revised(self, revision: Revision) -> PlanRequest:
        """This request planned again under ``revision``: the facts it gives replace the ones given before
        (given by the reviser), the rest of what was given stays."""
        facts = revision.guidance.facts()
        given = self.given
        if facts:
            earlier = given.facts() if given is not None else {}
            given = GivenFacts.model_validate({**earlier, **facts, "given_by": revision.given_by})
        return dataclasses.replace(self, given=given, revision=revision)


def planned_again(rt: Runtime, checkpoint: Checkpoint, proposal: ProposalContent) -> PlanRequest:
    """``checkpoint``'s request, to plan again now (propose again, revise): from its planning day, or from the
    shop's today once a day has passed since it was made (the next day from the shop's ``planning_cutoff`` on,
    when it sets one), so the new plan books, and its guidance names, no day that has passed."""
    shop, now = current_state(rt.store), rt.clock()
    today = judged_today(shop, parse_utc(checkpoint.created_at), now) or ""
    if shop.planning_cutoff is not None:
        today = max(today, shop.planning_day(now))
    return PlanRequest.again(checkpoint, proposal, today)


def on_current_shop(rt: Runtime, text: str, planning_day: str | None = None) -> PlanRequest:
    """A request on the shop the runtime holds, planned from ``planning_day`` (default: today in its time zone, or
    tomorrow from its ``planning_cutoff`` on)."""
    now = rt.clock()
    shop = rt.store.load_state()
    if shop is None:
        raise ShopError("there is no shop to plan on yet: import one first (shop import FILE)")
    return PlanRequest(text=text, planning_day=planning_day or shop.planning_day(now))


def plannable(
    shop: ShopState, order: Order, request: PlanRequest, text: str, holds: tuple[ProposalContent, ...] = ()
) -> None:
    """Refuse a request the planner cannot plan on ``shop`` around the open pending plans ``holds``
    (``UnplannableError`` when nothing of it fits, else ``IntakeError``) before anything is written: the plan is
    built once, in memory, as the run's tool builds it."""
    pending = None if shop.order(order.id) is not None else order
    try:
        # The greedy plan only: the solver falls back to it, so what fails here fails there, at a tenth the cost.
        asked = Requested(text, pending=pending, given=request.given, revision=request.revision, holds=holds)
        build_proposal(shop, order.id, request.planning_day, asked, solver_nodes=0)
    except UnplannableError:
        raise  # nothing of it fits: its own stable code (UNPLANNABLE), not an intake problem
    except PlanningError as exc:
        problem = f"plan: {exc}"
        raise IntakeError(f"the request cannot be planned: {problem}", problems=(problem,)) from None


def shop_for(rt: Runtime, request: PlanRequest, *, seed: bool = True) -> ShopState:
    """The shop the request is planned on, read without writing anything; a reference scenario's own shop when
    the store is empty and ``seed`` (the start seeds it), else the store must hold it."""
    existing = rt.store.load_state()
    if not request.scenario:
        if existing is None:
            raise ShopError("this data dir holds no shop yet; import one (shop import FILE) or name a --scenario")
        return existing
    seeded = find_scenario(request.scenario).state
    if existing is None and not seed:
        raise ShopError(
            f"there is no shop to plan on yet: import one first (shop import "
            f"functions/production_orchestrator/domain/scenario_shops/{request.scenario}.json for the "
            f"{request.scenario!r} scenario)"
        )
    if existing is not None and existing.name != seeded.name:
        raise ShopError(f"this data dir holds the {existing.name!r} shop; use another --data-dir for {seeded.name!r}")
    return existing or seeded
