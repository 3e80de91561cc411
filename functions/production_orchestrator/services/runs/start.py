"""Start: read the request, run the agent until it asks for approval, make everything durable, return.

read the e-mail and resolve it against the shop (fail-closed: nothing written yet) -> approval policy
checked -> seed a reference shop if one was named -> agent runs its tools -> hook interrupts before
apply_production_plan -> session durable -> proposal durable (written by propose_schedule) -> checkpoint
sealed and stored with its approval (one transaction) -> return (exit)

A policy that can never be satisfied is refused before anything is seeded or any model is called. In AWS
the approval is created later, by request_approval, once the workflow has a task token; until then the
checkpoint is not approvable by any path.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from ... import faults
from ...agent.extraction import read_request
from ...agent.factory import build_agent
from ...agent.prompts import first_message
from ...domain.approval.approvals import ApprovalRecord
from ...domain.approval.policy import checked_policy
from ...domain.canonical import canonical_bytes
from ...domain.errors import IntakeError, StartError
from ...domain.intake.customer_message import CustomerMessage, read_message
from ...domain.intake.facts import read_facts
from ...domain.intake.request_key import request_hash, run_request
from ...domain.planning.proposal import ProposalContent, load_proposal
from ...domain.planning.versions import version_changes
from ...domain.records import INTERRUPT_NAME, Checkpoint, ProviderBinding, agent_identity, require_hash, utc_iso
from ...domain.scenarios import scenario as find_scenario
from ...domain.shop.model import Order, ShopState, parse_day
from ..asking.request_approval import LinkPlan
from ..evidence import current_state
from ..runtime import Runtime, need, run_context, usage_of
from .held import hold_unread, started_hold
from .holding import holding_plans
from .plan_request import REQUEST_RUN, PlanRequest, plannable, shop_for
from .requests import Checked, WriteRun, admit, write_run


@dataclass(frozen=True)
class StartResult:
    """What a start leaves for the human and for the resume."""

    checkpoint: Checkpoint
    proposal: ProposalContent
    stop_reason: str
    revision: int
    usage: dict[str, int] = field(default_factory=dict)
    approval: ApprovalRecord | None = None


def revision_detail(rt: Runtime, proposal: ProposalContent) -> dict[str, object]:
    """What the audit event of a revised version records of it (nothing for a first plan): its version, what it
    supersedes, who asked for what, and what changed since the version before."""
    revision = proposal.revision
    if revision is None:
        return {}
    stored = rt.store.get_proposal(revision.supersedes)
    changes = version_changes(load_proposal(stored, revision.supersedes), proposal) if stored is not None else []
    return {
        "version": revision.version,
        "supersedes_proposal": revision.supersedes,
        "revised_by": revision.given_by,
        "guidance": revision.guidance.words(),
        "changes": changes,
    }


def _add(*usages: dict[str, int]) -> dict[str, int]:
    return {key: sum(u.get(key, 0) for u in usages) for key in {k for u in usages for k in u}}


def _fresh_id(shop: ShopState, order_id: str) -> str:
    n = 2
    while shop.order(f"{order_id}-{n}") is not None:
        n += 1
    return f"{order_id}-{n}"


def _successor(rt: Runtime, message: CustomerMessage) -> Checked:
    return Checked(len(rt.store.runs_of_request(request_hash(message))))


def _checked(rt: Runtime, message: CustomerMessage, cmd: StartRun) -> Checked:
    """A customer's request admitted (requests.admit); "propose again" carries its request on unchecked (its
    run is keyed too, so later starts find it)."""
    return _successor(rt, message) if cmd.replacing else admit(rt, message, again=cmd.again)


def _reuse_note(checked: Checked | None) -> dict[str, list[str]]:
    """The runs whose Message-ID this new request reuses, for its audit event (none: no field)."""
    if checked is None or not checked.reuses_message_id_of:
        return {}
    return {"reuses_message_id_of": list(checked.reuses_message_id_of)}


def _recheck(rt: Runtime, message: CustomerMessage, cmd: StartRun) -> int:
    """After another start of the request wrote its key first: answer as a start after it would."""
    return _checked(rt, message, cmd).generation


@dataclass(frozen=True)
class StartRun:
    """Plan ``request`` (a customer's request, or a reference scenario by name) with the agent on ``binding``,
    for an approval window of ``window``. ``approval``: the run's approval, written with its checkpoint (None:
    the workflow requests it later); ``again``: plan a decided request anew; ``replacing``: "propose again"."""

    request: PlanRequest | str
    binding: ProviderBinding
    window: timedelta
    approval: LinkPlan | None = None
    again: bool = False
    replacing: bool = False
    from_hold: bool = False  # a held request a person completed (request complete): its hold closes as started
    # A reference scenario's shop is seeded into an empty store; False in AWS, where only the apply and the
    # operator's shop commands may write the shop's state (infra/permissions.py): the scenario's shop is imported.
    seed: bool = True


def _read_so_far(message: CustomerMessage, shop: ShopState, planning_day: str) -> dict[str, str]:
    """What the rules read of a request that cannot be planned yet, for the person who completes it."""
    facts = read_facts(message, shop.products, message.sent_day or parse_day(planning_day))
    read = {"product": facts.product, "quantity": facts.quantity, "due": facts.due}
    return {name: str(value) for name, value in read.items() if value is not None}


def _read(
    rt: Runtime, binding: ProviderBinding, message: CustomerMessage, shop: ShopState, request: PlanRequest
) -> tuple[Order, dict[str, int]]:
    """The order the request asks for; one that cannot be read waits as *needs facts* (``NeedsFactsError``, the
    hold its only write), never lost. A reference scenario's e-mail is refused as it always was."""
    try:
        return read_request(binding, rt.model_settings, message, shop, request.planning_day, request.given)
    except IntakeError as refused:
        if request.scenario:
            raise
        raise hold_unread(rt, message, refused, _read_so_far(message, shop, request.planning_day)) from None


def start_run(rt: Runtime, cmd: StartRun) -> StartResult:
    """Read the request, run the agent until it asks for approval, persist everything, return the checkpoint.

    ``request`` may name a reference scenario. A request that does not resolve to a known product, a
    quantity and a due date raises ``IntakeError`` before anything is written or planned. With ``approval``
    the run's approval record is written in the checkpoint's transaction (and, for "propose again", the
    approval it replaces is closed in it, if it is still open); its policy is checked before anything else.

    A customer's request on the data dir's shop is started once (services/runs/requests.py): while a run of it
    is open, ``AlreadyPendingError`` carries that run's ids; once decided, ``RequestAlreadyDecidedError``
    unless ``again``; both before any model call, with nothing written. The same words in another envelope
    of the same sender are held (``PossibleDuplicateError``, the hold its only write) unless ``again``; a
    start with ``again`` closes that hold as started. ``replacing`` ("propose again")
    starts the open request's successor run. Reference scenarios re-seed their own shop and are exempt.
    """
    request, binding, approval, again = cmd.request, cmd.binding, cmd.approval, cmd.again
    sessions = need(rt.sessions, "session store")
    if approval is not None:
        checked_policy(approval.policy)  # ValidationError: nothing seeded, no model called
    if isinstance(request, str):
        request = PlanRequest.of_scenario(request)
    parse_day(request.planning_day)
    message = read_message(request.text)
    shop = shop_for(rt, request, seed=cmd.seed)
    checked = None if request.scenario else _checked(rt, message, cmd)
    request = request.told(message, shop)  # facts given, beside what the e-mail said of them
    order, read_usage = _read(rt, binding, message, shop, request)
    if again and shop.order(order.id) is not None:
        order = order.model_copy(update={"id": _fresh_id(shop, order.id)})  # the earlier plan for it applied
    # Other open pending plans hold what they book: this plan is made around them (services/runs/holding.py).
    holds = holding_plans(rt, shop)
    plannable(shop, order, request, message.text, holds)  # refused before anything is written, once, greedy only
    session_id = f"sess-{secrets.token_hex(16)}"
    checkpoint_id = f"ckpt-{secrets.token_hex(16)}"
    ctx = run_context(rt, session_id, checkpoint_id)
    ctx.request, ctx.request_text, ctx.planning_day = order, message.text, request.planning_day
    ctx.given, ctx.revision, ctx.holds = request.given, request.revision, holds
    run_name = request.scenario or REQUEST_RUN
    if request.scenario and cmd.seed:
        ctx.store.seed(find_scenario(request.scenario).state, ctx.event("shop_seeded", scenario=request.scenario))
    faults.point("after_seed")
    agent_id = agent_identity(binding, run_name)
    agent = build_agent(binding, run_name, ctx, sessions.session_manager(session_id), rt.model_settings)
    guidance = request.revision.guidance.words() if request.revision is not None else ()
    result = agent(first_message(message.text, guidance))
    if result.stop_reason != "interrupt":
        raise StartError(f"the agent finished without asking for approval: {str(result).strip()}")
    faults.point("after_session_save")  # the session manager synced the interrupted agent
    interrupts = [i for i in result.interrupts or () if i.name == INTERRUPT_NAME]
    if len(interrupts) != 1 or not isinstance(interrupts[0].reason, dict):
        raise StartError("the agent stopped without exactly one approval request")
    interrupt = interrupts[0]
    proposal_hash = require_hash(str(interrupt.reason.get("proposal_hash")), "proposal hash")

    # The checkpoint is written last, after the session and the proposal are durable: a checkpoint
    # that exists always points at evidence that exists.
    facts = sessions.read_facts(session_id, agent_id)
    if interrupt.id not in facts.pending_interrupt_ids:
        raise StartError(f"session {session_id} did not persist the pending approval")
    stored = rt.store.get_proposal(proposal_hash)
    if stored is None:
        raise StartError(f"proposal {proposal_hash} was not persisted")
    proposal = load_proposal(stored, proposal_hash)
    state = current_state(rt.store)
    # What the plan was proposed on, kept by digest, so a stale refusal can say what changed since.
    rt.store.put_state_snapshot(state.digest(), canonical_bytes(state.to_canonical()))
    now = rt.clock()
    checkpoint = Checkpoint(
        checkpoint_id=checkpoint_id,
        interrupt_id=interrupt.id,
        interrupt_name=interrupt.name,
        session_id=session_id,
        agent_id=agent_id,
        proposal_hash=proposal_hash,
        domain_digest=state.digest(),
        provider_binding=binding,
        scenario=run_name,
        target_order_id=proposal.target_order.id,
        start_pid=rt.pid,
        created_at=utc_iso(now),
        expires_at=utc_iso(now + cmd.window),
    ).sealed()
    record = None if approval is None else approval.record(checkpoint, proposal, now)
    key = None if checked is None else run_request(message, checkpoint_id, checked.generation, checkpoint.created_at)

    write_run(
        rt,
        WriteRun(
            checkpoint,
            lambda: _recheck(rt, message, cmd),
            key,
            ctx.event(
                "approval_requested" if request.revision is None else "plan_revised",
                proposal_hash,
                interrupt_id=interrupt.id,
                expires_at=checkpoint.expires_at,
                provider=binding.describe(),
                approval_id="" if record is None else record.approval_id,
                supersedes="" if record is None else record.supersedes,
                required=0 if record is None else record.required,
                **_reuse_note(checked),
                **revision_detail(rt, proposal),
            ),
            record,
        ),
    )
    if key is not None:
        started_hold(rt, message, checkpoint_id)  # the envelope's open hold, if any (--again, request complete)
    faults.point("after_checkpoint_write")
    return StartResult(
        checkpoint=checkpoint,
        proposal=proposal,
        stop_reason=str(result.stop_reason),
        revision=state.revision,
        usage=_add(read_usage, usage_of(result)),
        approval=record,
    )
