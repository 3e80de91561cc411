"""Resume: verify every fact against persisted evidence (no write path exists yet), claim the decision
once, rebuild the agent (same id, tools, hooks) and answer its interrupt: apply once, or cancel.

    (authorized decision) -> load checkpoint -> verify_resume -> claim -> build_agent -> interruptResponse
    -> record the outcome

The decision comes from the approval record, through services/deciding/authorize.py (resume_approval.py is the
only caller): this module never decides whether a decision may proceed, only whether the evidence holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ... import faults
from ...agent.factory import build_agent
from ...domain.approval.claims import ClaimState, completed_refusal, judge_claim
from ...domain.approval.verification import Evidence, Go, Refusal, ResumeRequest, verify_resume
from ...domain.records import Checkpoint, Completion, Decision, ProviderBinding, utc_iso
from ..evidence import current_state, load_checkpoint, proposed_on
from ..runtime import Runtime, need, run_context, usage_of
from .claim import Hold, ResumeResult, hold, replayed, same_ids

if TYPE_CHECKING:
    from ...agent.context import RunContext

_log = logging.getLogger(__name__)
# The stop reason recorded when the model's turn after the gated tool failed (the outcome itself stands).
MODEL_ERROR_AFTER_TOOL = "model_error_after_tool"


def _gate(rt: Runtime, checkpoint: Checkpoint, cmd: Resume, *, decided: bool, recovering: bool = False) -> Go:
    sessions = need(rt.sessions, "session store")
    verdict = verify_resume(
        checkpoint,
        cmd.request,
        Evidence(
            decided=decided,
            session=sessions.read_facts(checkpoint.session_id, checkpoint.agent_id),
            proposal_bytes=rt.store.get_proposal(checkpoint.proposal_hash),
            current=current_state(rt.store),
            proposed_on=proposed_on(rt.store, checkpoint),
            runtime_binding=cmd.binding,
            now=rt.clock(),
            recovering=recovering,
            already_applied=recovering and rt.store.application_count(checkpoint.proposal_hash) > 0,
        ),
    )
    if isinstance(verdict, Refusal):
        raise verdict.error()
    return verdict


@dataclass(frozen=True)
class Resume:
    """Resume ``request``'s checkpoint on this runtime's ``binding`` with ``decision`` (the one the approval
    holds; :func:`verify` needs none). ``replay_completed``: a workflow retry gets a finished resume's outcome
    back; ``before_claim``: checked once, after the gate and before anything is written (the model can be
    reached)."""

    request: ResumeRequest
    binding: ProviderBinding
    decision: Decision | None = None
    replay_completed: bool = False
    before_claim: Callable[[], None] | None = None


def verify(rt: Runtime, cmd: Resume) -> Go:
    """Run the resume gate against persisted evidence; raise :class:`ResumeRefusedError` on any mismatch.

    Reads only: nothing here can write to the store or the session.
    """
    checkpoint = load_checkpoint(rt.store, cmd.request.checkpoint_id)
    decided = rt.store.get_decision(checkpoint.checkpoint_id) is not None
    return _gate(rt, checkpoint, cmd, decided=decided)


def resume_run(rt: Runtime, cmd: Resume) -> ResumeResult:
    """Verify, claim ``decision`` (the one the approval holds) exactly once, then resume the agent with it.

    A re-run of the same decision whose resume died (its lease ran out) takes the claim over and finishes
    with the recorded decision. A re-run of a finished resume is ALREADY_DECIDED, or with
    ``replay_completed`` (a workflow retry) returns the recorded outcome; neither writes anything.
    """
    request, decision = cmd.request, cmd.decision
    assert decision is not None, "a resume carries the decision it resumes with"
    need(rt.sessions, "session store")  # before anything is read or claimed
    checkpoint = load_checkpoint(rt.store, request.checkpoint_id)
    previous = rt.store.get_decision(checkpoint.checkpoint_id)
    claim = judge_claim(previous, approved=request.approved, reviewed_hash=request.reviewed_hash, now=rt.clock())
    if isinstance(claim, Refusal):
        raise claim.error()
    if claim is ClaimState.COMPLETED:
        assert previous is not None
        if cmd.replay_completed and same_ids(request, checkpoint):
            return replayed(rt, checkpoint, previous)
        raise completed_refusal(previous).error()
    recovering = claim is ClaimState.TAKEOVER
    go = _gate(rt, checkpoint, cmd, decided=False, recovering=recovering)
    if cmd.before_claim is not None:
        cmd.before_claim()
    ctx = run_context(rt, checkpoint.session_id, checkpoint.checkpoint_id)
    held = hold(rt, Hold(ctx, checkpoint, decision, previous if recovering else None))
    decision = held.decision  # a takeover resumes with the decision the first claim recorded

    # When the dead resume's agent already ran to the end, only the outcome is missing.
    answered: tuple[str, str, dict[str, int]] = ("end_turn", "", {})
    if not go.agent_finished:
        answered = _answer(rt, cmd, checkpoint, ctx, decision, recovering=recovering)
    stop_reason, final_text, usage = answered
    faults.point("after_agent_resume")
    applied = rt.store.application_count(checkpoint.proposal_hash)
    outcome = "applied" if decision.approved and applied else "rejected" if not decision.approved else "not_applied"
    revision = current_state(rt.store).revision
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


def _answer(
    rt: Runtime, cmd: Resume, checkpoint: Checkpoint, ctx: RunContext, decision: Decision, *, recovering: bool
) -> tuple[str, str, dict[str, int]]:
    """Rebuild the agent and answer its interrupt with ``decision``: (stop reason, final text, usage)."""
    sessions = need(rt.sessions, "session store")
    ctx.approved_checkpoint = checkpoint
    ctx.decision = decision
    agent = build_agent(
        cmd.binding,
        checkpoint.scenario,
        ctx,
        sessions.session_manager(checkpoint.session_id),
        rt.model_settings,
    )
    response = [{"interruptResponse": {"interruptId": checkpoint.interrupt_id, "response": decision.as_response()}}]
    try:
        result = agent(response)  # type: ignore[arg-type]
    except (KeyError, ValueError):
        # Strands: the restored session no longer waits on this interrupt. Only a takeover of a claim
        # whose holder was still running (a lease shorter than the resume) gets here: the holder
        # answered it meanwhile, so only the outcome is left to record, from the store.
        facts = sessions.read_facts(checkpoint.session_id, checkpoint.agent_id)
        if not recovering or checkpoint.interrupt_id in facts.pending_interrupt_ids:
            raise
        return "end_turn", "", {}
    except Exception as exc:
        # The interrupt's answer runs the gated tool first; only the model's closing turn comes after it. When
        # that turn fails (Bedrock throttled past Strands' retries, an outage) the plan has applied, or the
        # rejection cancelled it: the outcome stands and is recorded, so the workflow goes on to send the
        # plan's messages. An approved plan that did not apply is no outcome: raised, as before.
        if decision.approved and not rt.store.application_count(checkpoint.proposal_hash):
            raise
        _log.warning("model failed after the gated tool ran: %s", type(exc).__name__)
        return MODEL_ERROR_AFTER_TOOL, f"{type(exc).__name__}: {exc}"[:400], {}
    return str(result.stop_reason), str(result).strip(), usage_of(result)
