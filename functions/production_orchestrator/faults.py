"""Fault injection for the crash torture suite: named persistence points that can kill this process.

``PO_FAULT_KILL_AT=<point>`` makes :func:`point` send SIGKILL to the own process when execution reaches
``<point>``: no ``finally``, no flush, no atexit, exactly like a Lambda sandbox or a laptop dying there.
Unset (always, in production) it is one dict lookup.

start:   after_seed -> after_proposal_write -> after_session_save -> after_checkpoint_write
resume:  after_decision_claim -> inside_apply (state written, not committed) -> inside_apply_outbox (messages
         written too, not committed) -> after_apply_before_session_sync -> after_agent_resume (session synced,
         completion not yet written) -> after_completion
outbox:  after_outbox_claim (claimed, not handed to the transport) -> after_outbox_send (the transport took
         it, not yet marked sent: the one at-least-once window)
approval: inside_approval_change (approval + audit event written, not committed) -> after_approval_mail_claim
         -> after_approval_mail_send
"""

from __future__ import annotations

import os
import signal
from typing import Final

from .contracts import ENV_FAULT_KILL_AT

ENV_KILL_AT: Final = ENV_FAULT_KILL_AT

START_POINTS: Final = ("after_seed", "after_proposal_write", "after_session_save", "after_checkpoint_write")
RESUME_POINTS: Final = (
    "after_decision_claim",
    "inside_apply",
    "inside_apply_outbox",
    "after_apply_before_session_sync",
    "after_agent_resume",
    "after_completion",
)
OUTBOX_POINTS: Final = ("after_outbox_claim", "after_outbox_send")
# An approval change with its audit event (relink, escalation, a queued reminder) written, not committed; an
# approval e-mail claimed, and handed to the transport but not marked sent.
APPROVAL_POINTS: Final = ("inside_approval_change", "after_approval_mail_claim", "after_approval_mail_send")
POINTS: Final = START_POINTS + RESUME_POINTS + OUTBOX_POINTS + APPROVAL_POINTS


def point(name: str) -> None:
    """Die here, by SIGKILL, when ``PO_FAULT_KILL_AT`` names this point; otherwise do nothing."""
    if os.environ.get(ENV_KILL_AT) == name:
        os.kill(os.getpid(), signal.SIGKILL)
