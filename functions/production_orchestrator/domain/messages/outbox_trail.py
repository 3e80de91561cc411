"""What the audit trail says of each outbox message's delivery, and whether the stored row agrees.

Every step that moves a message on is written with its audit event in one transaction (sent, failed, void,
queued again by a person); the steps without one leave it queued (a claim, a transient refusal, an unreachable
server). So a row's status is always the one its last event set, or ``queued`` when none names it yet:

    message_sent | approval_mail_sent      -> sent   (for good)
    message_failed | approval_mail_failed  -> failed (until ``outbox retry``)
    approval_mail_void                     -> void   (for good)
    message_requeued                       -> queued

A row that disagrees (a sent message edited back to queued, a failed one queued without ``outbox retry``) was
changed in storage: it is named and never sent. Rows and trail are read apart, so a step that commits between
the two reads must not look like an edit: the trail is read before the rows, and a row that disagrees is judged
again against a trail read after them (:meth:`OutboxTrail.problem` with ``since``), where any state the message
held between the two reads is its own.

Approval mail queued before its events named the message (no ``message`` field) is not tracked: the trail holds
nothing to compare it with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..records import AuditEvent
from .outbox import OutboxMessage

TRAIL_STATES = {
    "message_sent": "sent",
    "approval_mail_sent": "sent",
    "message_failed": "failed",
    "approval_mail_failed": "failed",
    "approval_mail_void": "void",
    "message_requeued": "queued",
}


@dataclass(frozen=True)
class OutboxTrail:
    """Each message's delivery steps as the audit trail records them: key -> [(position, state, seq)]."""

    length: int
    steps: dict[str, list[tuple[int, str, int]]] = field(default_factory=dict)

    @classmethod
    def of(cls, events: Sequence[AuditEvent | None]) -> OutboxTrail:
        """The trail of ``events`` (the audit trail, oldest first)."""
        steps: dict[str, list[tuple[int, str, int]]] = {}
        for position, event in enumerate(events, start=1):
            state = TRAIL_STATES.get(event.event_type) if event is not None else None
            key = event.detail.get("message") if event is not None else None
            if event is not None and state is not None and isinstance(key, str):
                steps.setdefault(key, []).append((position, state, event.seq))
        return cls(len(events), steps)

    def problem(self, message: OutboxMessage, since: int | None = None) -> str | None:
        """Why ``message``'s stored status is not one the trail gave it (None when it is). ``since``: the length
        of a trail read before the row; any state held from that moment to this trail's end counts."""
        steps = self.steps.get(message.key, [])
        if not steps and not message.is_plan:
            return None  # approval mail from before its events named it: nothing to compare
        start = self.length if since is None else since
        earlier = [s for s in steps if s[0] <= start]
        held = {earlier[-1][1] if earlier else "queued"} | {s[1] for s in steps if s[0] > start}
        if message.status in held:
            return None
        told = (
            f"the audit trail records it {earlier[-1][1]} at seq {earlier[-1][2]}"
            if earlier
            else "the audit trail records no delivery of it"
        )
        return (
            f"message {message.key} is {message.status} in the outbox but {told} (changed in storage): it is not sent"
        )
