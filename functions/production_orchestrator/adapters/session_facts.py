"""Read what a stored Strands session says about its pending interrupt, without restoring an agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..domain.approval.verification import SessionFacts
from ..domain.records import INTERRUPT_NAME

if TYPE_CHECKING:  # the type only: reading facts needs no Strands import of its own
    from strands.session.session_repository import SessionRepository

_NOTHING = SessionFacts(
    session_exists=False, agent_exists=False, interrupt_activated=False, pending_interrupt_ids=frozenset()
)


def facts_from(repository: SessionRepository, session_id: str, agent_id: str) -> SessionFacts:
    """Facts from Strands' own repository read path (file or S3); unreadable data counts as absent."""
    try:
        session = repository.read_session(session_id)
        if session is None:
            return _NOTHING
        agent = repository.read_agent(session_id, agent_id)
    except Exception:  # a corrupt or tampered session is "not the session we stored"
        return _NOTHING
    if agent is None:
        return SessionFacts(
            session_exists=True,
            agent_exists=False,
            interrupt_activated=False,
            pending_interrupt_ids=frozenset(),
        )
    state: dict[str, Any] = dict(agent._internal_state.get("interrupt_state") or {})
    interrupts: dict[str, Any] = dict(state.get("interrupts") or {})
    pending = frozenset(
        str(iid)
        for iid, item in interrupts.items()
        if isinstance(item, dict) and item.get("name") == INTERRUPT_NAME and item.get("response") is None
    )
    proposal_hash = None
    for item in interrupts.values():
        reason = item.get("reason") if isinstance(item, dict) else None
        if isinstance(reason, dict) and isinstance(reason.get("proposal_hash"), str):
            proposal_hash = reason["proposal_hash"]
    return SessionFacts(
        session_exists=True,
        agent_exists=True,
        interrupt_activated=bool(state.get("activated")),
        pending_interrupt_ids=pending,
        interrupt_proposal_hash=proposal_hash,
    )
