"""The agent's eight tools. Seven read or propose; only ``apply_production_plan`` writes the schedule.

Tools compute the plan (pure domain functions); the model only orchestrates them. Each call is
audited by the :class:`AuditHook`, so the trail shows what the agent looked at before it proposed.
"""

from __future__ import annotations

import json
from typing import Any

from strands import tool
from strands.types.tools import AgentTool

from .. import faults
from ..domain.errors import IntakeError, IntegrityError, NotFoundError, PlanningError, ShopError, StaleStateError
from ..domain.messages.outbox import messages_digest, queue_messages
from ..domain.planning.holds import held_minutes
from ..domain.planning.proposal import ProposalContent, load_proposal
from ..domain.planning.propose import Requested, analyze_blockers, apply_proposal, build_proposal
from ..domain.planning.still_holds import judged_today
from ..domain.records import parse_utc, require_hash
from ..domain.shop.model import Order, ShopState, add_days, hours
from .context import RunContext

INTAKE_TOOL = "intake_customer_request"
PROPOSE_TOOL = "propose_schedule"
APPLY_TOOL = "apply_production_plan"
TOOL_SEQUENCE = (
    INTAKE_TOOL,
    "list_active_orders",
    "get_inventory",
    "get_machine_capacity",
    "analyze_blockers",
    PROPOSE_TOOL,
    "draft_communications",
    APPLY_TOOL,
)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _state(ctx: RunContext) -> ShopState:
    state = ctx.store.load_state()
    if state is None:
        raise ShopError("the shop has not been seeded")
    return state


def stored_proposal(ctx: RunContext, proposal_hash: str) -> ProposalContent:
    """The proposal stored under ``proposal_hash``, re-hashed on read."""
    require_hash(proposal_hash, "proposal_hash")
    data = ctx.store.get_proposal(proposal_hash)
    if data is None:
        raise NotFoundError(f"no proposal {proposal_hash}; call propose_schedule first and use the hash it returns")
    return load_proposal(data, proposal_hash)


def apply_approved(ctx: RunContext, proposal_hash: str) -> str:
    """The gated write: apply ``proposal_hash`` once, only with a verified approval of exactly that hash."""
    checkpoint = ctx.approved_checkpoint
    decision = ctx.decision
    # Defence in depth: the hook already gated this call; the tool still refuses without a
    # verified, approved decision for exactly this hash.
    if checkpoint is None or decision is None or not decision.approved:
        raise PlanningError("no verified human approval is present for this run")
    if proposal_hash != checkpoint.proposal_hash or decision.reviewed_hash != proposal_hash:
        raise IntegrityError("the approved proposal is not the one this call names")
    proposal = stored_proposal(ctx, proposal_hash)
    for _ in range(APPLY_ATTEMPTS):
        state = _state(ctx)
        if ctx.store.application_count(proposal_hash):
            # A resume that died after its apply is being finished: the plan is in, never apply it again.
            return _json({"applied": False, "revision": state.revision, "summary": proposal.summary()})
        try:
            new_state, applied_now = _apply_on(ctx, proposal, proposal_hash, state)
        except StaleStateError:
            continue  # the shop moved between the read and the write: judge again on it, rebase again
        faults.point("after_apply_before_session_sync")
        return _json({"applied": applied_now, "revision": new_state.revision, "summary": proposal.summary()})
    raise StaleStateError("the shop kept changing while the plan was applied; nothing was written")


APPLY_ATTEMPTS = 5


def _apply_on(
    ctx: RunContext, proposal: ProposalContent, proposal_hash: str, state: ShopState
) -> tuple[ShopState, bool]:
    """Apply ``proposal`` on ``state`` as read: the one staleness rule again, then the plan's changes rebased onto
    ``state`` in one write conditioned on exactly that state (``StaleStateError`` when it moved meanwhile)."""
    checkpoint, decision = ctx.approved_checkpoint, ctx.decision
    assert checkpoint is not None and decision is not None
    new_state = apply_proposal(state, proposal, judged_today(state, parse_utc(checkpoint.created_at), ctx.clock()))
    check = "unchanged" if state.digest() == proposal.base_digest else "still holds"
    # The drafted messages were part of what the human approved: queued with the plan, in the same write.
    messages = queue_messages(proposal, proposal_hash, checkpoint.checkpoint_id, ctx.clock())
    applied_now = ctx.store.apply_plan(
        proposal_hash=proposal_hash,
        checkpoint_id=checkpoint.checkpoint_id,
        new_state=new_state,
        expected=(state.revision, state.digest()),
        event=ctx.event(
            "plan_applied",
            proposal_hash,
            revision=new_state.revision,
            approver=decision.approver,
            messages_queued=len(messages),
            messages_digest=messages_digest(messages),  # binds each queued message to this MACed event
            proposed_on_digest=proposal.base_digest,
            applied_on_digest=state.digest(),
            result_digest=new_state.digest(),
            footprint_digest=proposal.footprint_digest,
            staleness_rule=state.staleness,
            staleness_check=check,  # unchanged | still holds: the plan rebased onto a changed shop
        ),
        messages=messages,
    )
    return new_state, applied_now


# What the read-only tools show a model: enough to follow the plan, never the whole of a large shop.
SHOWN_ORDERS = 50
SHOWN_DAYS = 14


def same_text(a: str, b: str) -> bool:
    """True when two e-mail texts differ at most in whitespace (a model may re-wrap what it copies)."""
    return " ".join(a.split()) == " ".join(b.split())


def take_in(ctx: RunContext, email: str) -> Order:
    """The run's request (read and validated before the run) as an unscheduled order, held with the run.

    It waits beside the shop, not in it: the shop (and its digest) gains the order only when an approved
    plan for it applies, so a start stales no other plan and a reject or an expiry leaves the shop as it was.
    """
    if ctx.request is None:
        raise IntakeError("no customer request was read for this run")
    if not same_text(email, ctx.request_text):
        raise IntakeError("this is not the customer's e-mail; pass it exactly as received")
    existing = _state(ctx).order(ctx.request.id)
    if existing is not None:
        if existing.model_copy(update={"schedule": ()}) != ctx.request:
            raise IntakeError(f"order {ctx.request.id} is already in the shop with different details")
        return existing
    ctx.store.append_audit(ctx.event("order_taken_in", order_id=ctx.request.id, held="with the run"))
    return ctx.request


def _planning_state(ctx: RunContext) -> ShopState:
    """The shop as the run plans on it: with the run's request, held beside it, taken in unscheduled."""
    state = _state(ctx)
    if ctx.request is None or state.order(ctx.request.id) is not None:
        return state
    return state.with_order(ctx.request)


def _planning_day(ctx: RunContext) -> str:
    if not ctx.planning_day:
        raise PlanningError("this run has no planning day: plans are made by start, not by a resume")
    return ctx.planning_day


def _orders_view(ctx: RunContext) -> dict[str, Any]:
    state = _planning_state(ctx)
    first = ctx.planning_day or "0000-01-01"
    last = add_days(first, SHOWN_DAYS - 1) if ctx.planning_day else "9999-12-31"
    relevant = [o for o in state.orders if not o.schedule or any(first <= a.day <= last for a in o.schedule)]
    return {
        "orders_in_shop": len(state.orders),
        "shown": f"unscheduled orders and orders running {first} to {last} (at most {SHOWN_ORDERS})",
        "orders": [
            {
                "order_id": o.id,
                "customer": o.customer,
                "product": o.product,
                "quantity": o.quantity,
                "priority": o.priority,
                "due": o.due,
                "schedule": [f"{a.machine} {a.day} {hours(a.minutes)}" for a in o.schedule],
            }
            for o in relevant[:SHOWN_ORDERS]
        ],
    }


def _capacity_view(ctx: RunContext) -> dict[str, Any]:
    state = _state(ctx)
    first = _planning_day(ctx)
    days = [add_days(first, i) for i in range(SHOWN_DAYS)]
    product = state.product(ctx.request.product) if ctx.request else None
    machines = [m for m in state.machines if product is None or m.id in product.machines]
    booked: dict[tuple[str, str], int] = {}
    for order in state.orders:
        for a in order.schedule:
            booked[(a.machine, a.day)] = booked.get((a.machine, a.day), 0) + a.minutes
    # What other open pending plans book is taken for this run's plan as well (domain/planning/holds.py).
    held = held_minutes(state, ctx.holds, ctx.request) if ctx.request is not None else {}
    view: dict[str, Any] = {}
    for m in machines:
        view[m.id] = {}
        for d in days:
            taken = booked.get((m.id, d), 0) + held.get((m.id, d), 0)
            view[m.id][d] = {
                "capacity": hours(m.minutes_on(d)) if m.works_on(d) else "closed",
                "booked": hours(booked.get((m.id, d), 0)),
                "free": hours(max(0, m.minutes_on(d) - taken)) if m.works_on(d) else "0h",
            }
            if held.get((m.id, d)):
                view[m.id][d]["held_by_pending_plans"] = hours(held[(m.id, d)])
    return view


def build_tools(ctx: RunContext) -> list[AgentTool]:
    """The eight tools bound to one run's context. Start and resume build the same names."""

    @tool(name=INTAKE_TOOL)
    def intake_customer_request(email: str) -> str:
        """Step 1. Take the customer's request in as an order of the shop.

        Pass the customer's e-mail text exactly as received: every line, unchanged. The request was read
        and checked against the shop's products before this run; this records it as an unscheduled order
        and returns it as JSON, including its order_id, which analyze_blockers and propose_schedule need.
        Submitting the same request again returns the order already taken in.

        Args:
            email: the full text of the customer's e-mail, verbatim.
        """
        order = take_in(ctx, email).model_dump(mode="json")
        return _json({"order_id": order.pop("id"), **order})

    @tool
    def list_active_orders() -> str:
        """Step 2. List the shop's orders: customer, product, quantity, priority, due date and schedule.

        Read-only; takes no arguments. A large shop shows the unscheduled orders and those running in the
        next two weeks.
        """
        return _json(_orders_view(ctx))

    @tool
    def get_inventory() -> str:
        """Step 3. Show each material: on hand, on order, supplier and lead time; and procurement requested.

        Read-only; takes no arguments.
        """
        state = _state(ctx)
        return _json(
            {
                "materials": [m.model_dump(mode="json") for m in state.materials],
                "requested": [p.model_dump(mode="json") for p in state.procurement],
            }
        )

    @tool
    def get_machine_capacity() -> str:
        """Step 4. Show capacity, booked and free machine-hours per machine and day for the next two weeks.

        Read-only; takes no arguments. Only the machines that can make the requested product are shown. Hours
        booked by other plans still waiting for approval are shown as held and are not free.
        """
        return _json(_capacity_view(ctx))

    @tool(name="analyze_blockers")
    def analyze(order_id: str) -> str:
        """Step 5. Find what blocks an order by its due date: material shortages and machine overbooking.

        Read-only. Returns a JSON list of blockers; an empty list means nothing blocks the order.

        Args:
            order_id: the order_id returned by intake_customer_request, e.g. "RUSH-200".
        """
        blockers = analyze_blockers(_planning_state(ctx), order_id, _planning_day(ctx), ctx.holds)
        return _json([b.model_dump(mode="json") for b in blockers])

    @tool(name=PROPOSE_TOOL)
    def propose_schedule(order_id: str) -> str:
        """Step 6. Compute the production plan for the order and store it as an immutable proposal.

        The plan (where the order runs, moves of other orders, material to procure, orders at risk,
        message drafts) is computed here from the shop's
        state; nothing is changed in the shop. Returns JSON with the proposal_hash (64 hex characters) that
        names exactly this plan, and a one-line summary. Only the order taken in by
        intake_customer_request for this customer may be planned.

        Args:
            order_id: the order_id returned by intake_customer_request.
        """
        proposal = build_proposal(
            _state(ctx),
            order_id,
            _planning_day(ctx),
            Requested(ctx.request_text, pending=ctx.request, given=ctx.given, revision=ctx.revision, holds=ctx.holds),
            solver_nodes=ctx.solver_nodes,
        )
        proposal_hash = proposal.proposal_hash()
        ctx.store.put_proposal(proposal_hash, proposal.to_bytes())
        faults.point("after_proposal_write")
        ctx.store.append_audit(ctx.event("proposal_created", proposal_hash, order_id=order_id))
        return _json({"proposal_hash": proposal_hash, "summary": proposal.summary()})

    @tool
    def draft_communications(proposal_hash: str) -> str:
        """Step 7. Return the message drafts (customer, operator, supplier) of a stored proposal.

        Read-only: nothing is sent.

        Args:
            proposal_hash: the proposal_hash returned by propose_schedule, all 64 characters.
        """
        proposal = stored_proposal(ctx, proposal_hash)
        return _json([d.model_dump(mode="json") for d in proposal.communication_drafts])

    @tool(name=APPLY_TOOL)
    def apply_production_plan(proposal_hash: str) -> str:
        """Step 8, last. Apply the proposed plan to the shop once a person has approved it.

        Calling this asks a person to approve exactly this proposal; the run pauses until they decide.
        If they approve, the plan is applied once and the result gives the new revision. If they reject,
        the result starts with "rejected" and gives their reason: the plan is not applied and must not be
        retried. A hash that propose_schedule did not return in this conversation is refused.

        Args:
            proposal_hash: the proposal_hash returned by propose_schedule, copied unchanged.
        """
        return apply_approved(ctx, proposal_hash)

    return [
        intake_customer_request,
        list_active_orders,
        get_inventory,
        get_machine_capacity,
        analyze,
        propose_schedule,
        draft_communications,
        apply_production_plan,
    ]
