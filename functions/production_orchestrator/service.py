"""Use cases over the ports: start a planning run, resume it with a human decision, report status.

start:  seed shop -> agent runs tools 1..7 -> hook interrupts before apply -> session durable
        -> proposal durable (written by propose_schedule) -> checkpoint sealed and stored -> return
resume: read checkpoint -> verify every fact (no write path exists yet) -> claim decision once
        -> rebuild agent (same id, tools, hooks) -> interruptResponse -> apply once or cancel
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from . import approval_service, faults
from .agent.context import RunContext
from .agent.factory import build_agent
from .agent.prompts import first_message
from .agent.providers import ModelSettings
from .domain.canonical import canonical_bytes
from .domain.claims import DEFAULT_LEASE, ClaimState, completed_refusal, judge_claim
from .domain.errors import (
    DecisionAlreadyClaimedError,
    RefusalCode,
    ResumeRefusedError,
    ShopError,
    StartError,
    ValidationError,
)
from .domain.planning import ProposalContent, load_proposal
from .domain.ports import SessionStore, ShopStore
from .domain.records import (
    CHECKPOINT_ID_PATTERN,
    INTERRUPT_NAME,
    Checkpoint,
    Completion,
    Decision,
    DecisionRecord,
    ProviderBinding,
    agent_identity,
    parse_utc,
    require_hash,
    require_id,
    utc_iso,
)
from .domain.scenarios import scenario as find_scenario
from .domain.shop import ShopState
from .domain.verification import Go, Refusal, ResumeRequest, read_checkpoint, verify_resume


@dataclass(frozen=True)
class Runtime:
    """The composition root's output: adapters, a clock and this process's id."""

    store: ShopStore
    sessions: SessionStore
    clock: Callable[[], datetime]
    pid: int
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    # How long a claimed decision belongs to the resume that claimed it; past it a re-run may finish it.
    # Longer than the resume Lambda's timeout, so a live resume is never taken over.
    lease: timedelta = DEFAULT_LEASE


@dataclass(frozen=True)
class StartResult:
    """What a start leaves for the human and for the resume."""

    checkpoint: Checkpoint
    proposal: ProposalContent
    stop_reason: str
    revision: int
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ResumeResult:
    """How a resume ended."""

    checkpoint: Checkpoint
    decision: Decision
    outcome: str  # "applied" | "rejected" | "not_applied"
    revision: int
    plan_applied_count: int
    stop_reason: str
    final_text: str
    resume_pid: int
    usage: dict[str, int] = field(default_factory=dict)
    replayed: bool = False  # read back from the completed decision record; nothing ran, nothing was written


def _state(store: ShopStore) -> ShopState:
    state = store.load_state()
    if state is None:
        raise ShopError("this data dir holds no shop yet; run start first")
    return state


def _usage(result: Any) -> dict[str, int]:
    """Token counts the model reported for one invocation, and its event-loop cycles."""
    metrics = result.metrics
    usage = {key: int(value) for key, value in dict(metrics.accumulated_usage).items() if isinstance(value, int)}
    usage["eventLoopCycles"] = int(metrics.cycle_count)
    return usage


def _run_ctx(rt: Runtime, session_id: str, checkpoint_id: str) -> RunContext:
    return RunContext(store=rt.store, session_id=session_id, checkpoint_id=checkpoint_id, clock=rt.clock)


def start_run(rt: Runtime, scenario_name: str, binding: ProviderBinding, window: timedelta) -> StartResult:
    """Run the agent until it asks for approval, persist everything, and return the checkpoint."""
    chosen = find_scenario(scenario_name)
    session_id = f"sess-{secrets.token_hex(16)}"
    checkpoint_id = f"ckpt-{secrets.token_hex(16)}"
    ctx = _run_ctx(rt, session_id, checkpoint_id)
    rt.store.seed(chosen.state, ctx.event("shop_seeded", scenario=chosen.name))
    faults.point("after_seed")
    agent_id = agent_identity(binding, chosen.name)
    agent = build_agent(binding, chosen.name, ctx, rt.sessions.session_manager(session_id), rt.model_settings)
    result = agent(first_message(chosen.customer_email))
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
    facts = rt.sessions.read_facts(session_id, agent_id)
    if interrupt.id not in facts.pending_interrupt_ids:
        raise StartError(f"session {session_id} did not persist the pending approval")
    stored = rt.store.get_proposal(proposal_hash)
    if stored is None:
        raise StartError(f"proposal {proposal_hash} was not persisted")
    proposal = load_proposal(stored, proposal_hash)
    state = _state(rt.store)
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
        scenario=chosen.name,
        target_order_id=proposal.target_order.order_id,
        start_pid=rt.pid,
        created_at=utc_iso(now),
        expires_at=utc_iso(now + window),
    ).sealed()
    rt.store.put_checkpoint(
        checkpoint_id,
        checkpoint.model_dump_json(),
        ctx.event(
            "approval_requested",
            proposal_hash,
            interrupt_id=interrupt.id,
            expires_at=checkpoint.expires_at,
            provider=binding.describe(),
        ),
    )
    faults.point("after_checkpoint_write")
    return StartResult(
        checkpoint=checkpoint,
        proposal=proposal,
        stop_reason=str(result.stop_reason),
        revision=state.revision,
        usage=_usage(result),
    )


def _checkpoint(rt: Runtime, checkpoint_id: str) -> Checkpoint:
    require_id(checkpoint_id, CHECKPOINT_ID_PATTERN, "checkpoint id")
    checkpoint = read_checkpoint(rt.store.get_checkpoint(checkpoint_id), checkpoint_id)
    if isinstance(checkpoint, Refusal):
        raise ResumeRefusedError(checkpoint.code, checkpoint.message)
    return checkpoint


def _gate(
    rt: Runtime,
    checkpoint: Checkpoint,
    request: ResumeRequest,
    runtime_binding: ProviderBinding,
    *,
    decided: bool,
    recovering: bool = False,
) -> Go:
    verdict = verify_resume(
        checkpoint,
        request,
        decided=decided,
        session=rt.sessions.read_facts(checkpoint.session_id, checkpoint.agent_id),
        proposal_bytes=rt.store.get_proposal(checkpoint.proposal_hash),
        current_digest=_state(rt.store).digest(),
        runtime_binding=runtime_binding,
        now=rt.clock(),
        recovering=recovering,
        already_applied=recovering and rt.store.application_count(checkpoint.proposal_hash) > 0,
    )
    if isinstance(verdict, Refusal):
        raise ResumeRefusedError(verdict.code, verdict.message)
    return verdict


def verify(rt: Runtime, request: ResumeRequest, runtime_binding: ProviderBinding) -> Go:
    """Run the resume gate against persisted evidence; raise :class:`ResumeRefusedError` on any mismatch.

    Reads only: nothing here can write to the store or the session.
    """
    checkpoint = _checkpoint(rt, request.checkpoint_id)
    decided = rt.store.get_decision(checkpoint.checkpoint_id) is not None
    return _gate(rt, checkpoint, request, runtime_binding, decided=decided)


def _same_ids(request: ResumeRequest, checkpoint: Checkpoint) -> bool:
    """A replay names the checkpoint's own interrupt and session (or none): else it is refused like a replay."""
    return request.interrupt_id in (None, checkpoint.interrupt_id) and request.session_id in (
        None,
        checkpoint.session_id,
    )


def _replayed(rt: Runtime, checkpoint: Checkpoint, record: DecisionRecord) -> ResumeResult:
    """The recorded outcome of a finished resume, read back without writing anything."""
    done = record.completion
    assert done is not None
    return ResumeResult(
        checkpoint=checkpoint,
        decision=record.decision,
        outcome=done.outcome,
        revision=done.revision,
        plan_applied_count=done.plan_applied_count,
        stop_reason=done.stop_reason,
        final_text=done.final_text,
        resume_pid=record.resume_pid,
        replayed=True,
    )


def _hold(
    rt: Runtime, ctx: RunContext, checkpoint: Checkpoint, decision: Decision, previous: DecisionRecord | None
) -> DecisionRecord:
    """Claim the decision (or take over the claim of a resume that died); the record this process holds."""
    now = rt.clock()
    lease = {"claim_token": secrets.token_hex(16), "lease_expires_at": utc_iso(now + rt.lease), "resume_pid": rt.pid}
    try:
        if previous is None:
            held = DecisionRecord(
                checkpoint_id=checkpoint.checkpoint_id, decision=decision, claimed_at=decision.decided_at, **lease
            )
            rt.store.claim_decision(
                held,
                ctx.event(
                    "decision_recorded",
                    checkpoint.proposal_hash,
                    approved=decision.approved,
                    approver=decision.approver,
                    reason=decision.reason,
                ),
            )
        else:
            held = previous.model_copy(update={**lease, "claimed_at": utc_iso(now), "attempt": previous.attempt + 1})
            rt.store.take_over_decision(
                held,
                previous.claim_token,
                ctx.event(
                    "decision_claim_taken_over",
                    checkpoint.proposal_hash,
                    attempt=held.attempt,
                    previous_pid=previous.resume_pid,
                    previous_lease_expired_at=previous.lease_expires_at,
                ),
            )
    except DecisionAlreadyClaimedError as exc:
        # Lost a race that verification could not see: another resume claimed between read and claim.
        raise ResumeRefusedError(RefusalCode.ALREADY_DECIDED, str(exc)) from None
    faults.point("after_decision_claim")
    return held


def resume_run(
    rt: Runtime,
    request: ResumeRequest,
    runtime_binding: ProviderBinding,
    *,
    approver: str,
    reason: str,
    replay_completed: bool = False,
) -> ResumeResult:
    """Verify, claim the decision exactly once, then resume the agent with the decision object.

    A re-run of the same decision whose resume died (its lease ran out) takes the claim over and finishes
    with the recorded decision. A re-run of a finished resume is ALREADY_DECIDED, or with
    ``replay_completed`` (a workflow retry) returns the recorded outcome; neither writes anything.
    """
    try:
        decision = Decision(
            approved=request.approved,
            reviewed_hash=request.reviewed_hash,
            approver=approver,
            reason=reason,
            decided_at=utc_iso(rt.clock()),
        )
    except ValueError as exc:
        raise ValidationError(f"invalid decision: {exc}") from None
    checkpoint = _checkpoint(rt, request.checkpoint_id)
    previous = rt.store.get_decision(checkpoint.checkpoint_id)
    claim = judge_claim(previous, approved=request.approved, reviewed_hash=request.reviewed_hash, now=rt.clock())
    if isinstance(claim, Refusal):
        raise ResumeRefusedError(claim.code, claim.message)
    if claim is ClaimState.COMPLETED:
        assert previous is not None
        if replay_completed and _same_ids(request, checkpoint):
            return _replayed(rt, checkpoint, previous)
        refusal = completed_refusal(previous)
        raise ResumeRefusedError(refusal.code, refusal.message)
    recovering = claim is ClaimState.TAKEOVER
    go = _gate(rt, checkpoint, request, runtime_binding, decided=False, recovering=recovering)
    ctx = _run_ctx(rt, checkpoint.session_id, checkpoint.checkpoint_id)
    held = _hold(rt, ctx, checkpoint, decision, previous if recovering else None)
    decision = held.decision  # a takeover resumes with the decision the first claim recorded

    stop_reason, final_text, usage = "end_turn", "", {}
    if not go.agent_finished:  # else the dead resume's agent already ran to the end: only the outcome is missing
        ctx.approved_checkpoint = checkpoint
        ctx.decision = decision
        agent = build_agent(
            runtime_binding,
            checkpoint.scenario,
            ctx,
            rt.sessions.session_manager(checkpoint.session_id),
            rt.model_settings,
        )
        response = [{"interruptResponse": {"interruptId": checkpoint.interrupt_id, "response": decision.as_response()}}]
        try:
            result = agent(response)  # type: ignore[arg-type]
        except (KeyError, ValueError):
            # Strands: the restored session no longer waits on this interrupt. Only a takeover of a claim
            # whose holder was still running (a lease shorter than the resume) gets here: the holder
            # answered it meanwhile, so only the outcome is left to record, from the store.
            facts = rt.sessions.read_facts(checkpoint.session_id, checkpoint.agent_id)
            if not recovering or checkpoint.interrupt_id in facts.pending_interrupt_ids:
                raise
        else:
            stop_reason, final_text, usage = str(result.stop_reason), str(result).strip(), _usage(result)
    faults.point("after_agent_resume")
    applied = rt.store.application_count(checkpoint.proposal_hash)
    outcome = "applied" if decision.approved and applied else "rejected" if not decision.approved else "not_applied"
    revision = _state(rt.store).revision
    rt.store.complete_decision(
        checkpoint.checkpoint_id,
        held.claim_token,
        Completion(
            outcome=outcome,
            revision=revision,
            plan_applied_count=applied,
            completed_at=utc_iso(rt.clock()),
            stop_reason=stop_reason,
            final_text=final_text[:4000],
        ),
        None if decision.approved else ctx.event("plan_rejected", checkpoint.proposal_hash, reason=decision.reason),
    )
    faults.point("after_completion")
    return ResumeResult(
        checkpoint=checkpoint,
        decision=decision,
        outcome=outcome,
        revision=revision,
        plan_applied_count=applied,
        stop_reason=stop_reason,
        final_text=final_text,
        resume_pid=rt.pid,
        usage=usage,
    )


@dataclass(frozen=True)
class CheckpointStatus:
    """One approval as an operator sees it."""

    checkpoint_id: str
    status: str  # pending | resuming | approved | rejected | expired | invalid
    proposal_hash: str
    target_order_id: str
    created_at: str
    expires_at: str
    approver: str


def review(rt: Runtime, checkpoint_id: str) -> tuple[Checkpoint, ProposalContent]:
    """The checkpoint and its verified proposal: exactly what a human reviews."""
    return approval_service.review(rt.store, checkpoint_id)


def status(rt: Runtime) -> dict[str, Any]:
    """The shop's revision and digest, plan applications, and every approval with its status."""
    state = _state(rt.store)
    now = rt.clock()
    approvals: list[CheckpointStatus] = []
    for raw in rt.store.list_checkpoints():
        try:
            cp = Checkpoint.model_validate_json(raw)
        except ValueError:
            continue
        record = rt.store.get_decision(cp.checkpoint_id)
        if record is not None:
            label = "approved" if record.decision.approved else "rejected"
            if not record.is_complete():
                label = "resuming"  # claimed, outcome not yet recorded (in progress, or died: re-run it)
        else:
            label = "expired" if now >= parse_utc(cp.expires_at) else "pending"
        if not cp.is_intact():
            label = "invalid"
        approvals.append(
            CheckpointStatus(
                checkpoint_id=cp.checkpoint_id,
                status=label,
                proposal_hash=cp.proposal_hash,
                target_order_id=cp.target_order_id,
                created_at=cp.created_at,
                expires_at=cp.expires_at,
                approver=record.decision.approver if record else "",
            )
        )
    return {
        "scenario": state.scenario,
        "revision": state.revision,
        "domain_digest": state.digest(),
        "plan_applied_count": rt.store.application_count(),
        "approvals": [a.__dict__ for a in approvals],
    }
