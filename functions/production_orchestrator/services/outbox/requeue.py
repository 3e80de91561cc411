"""Requeue: a person queues failed outbox messages of any kind again (``outbox retry``), each audited.

    failed --checked: its status is the audit trail's, and (a plan's) still the approved draft--> queued,
             ``attempts_at_retry`` = attempts (a fresh budget), ``message_requeued`` (who, the last error)

A failed message is never sent by itself: a server refused it for good, or too often. Once the cause is fixed
(a mailbox created, a greylist passed, a sender allowed, a link key restored) the owner queues it again and the
next delivery round sends it like any queued message (an approval's mail is judged again then: void when its
approval closed meanwhile).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...domain.messages.outbox import OutboxMessage
from ..runtime import Runtime
from .deliver import KindRules, read_outbox


@dataclass(frozen=True)
class Requeue:
    """Queue again the failed messages at ``keys``, or (``all_failed``) every failed one; ``by`` is who asks."""

    by: str
    keys: tuple[str, ...] = ()
    all_failed: bool = False


@dataclass
class RequeueReport:
    """What ``requeue`` did: the failed messages queued again, and those it could not take."""

    requeued: list[OutboxMessage] = field(default_factory=list)
    refused: list[tuple[OutboxMessage, str]] = field(default_factory=list)


def requeue(rt: Runtime, command: Requeue) -> RequeueReport:
    """Queue failed messages again, each with a ``message_requeued`` event.

    Named messages are all checked first: an unknown key raises ``KeyError``, one that is not failed, that was
    edited in storage, or whose status the audit trail contradicts (it would never be sent) raises
    ``ValueError``, and nothing is written. With ``all_failed`` such a one is left as it is and reported, the
    others are queued.
    """
    found, trail_problems = read_outbox(rt.store)
    messages = {m.key: m for m in found}
    unknown = [k for k in command.keys if k not in messages]
    if unknown:
        raise KeyError(", ".join(unknown))
    chosen = (
        [m for m in messages.values() if m.status == "failed"]
        if command.all_failed
        else [messages[k] for k in command.keys]
    )
    rules = KindRules(rt, None)
    problems = [(m, trail_problems.get(m.key) or rules.of(m).refusal(m)) for m in chosen]
    if not command.all_failed:
        for message, problem in problems:
            if message.status != "failed":
                raise ValueError(
                    f"message {message.key} is {message.status}, not failed: only a failed message is retried"
                )
            if problem is not None:
                raise ValueError(problem)
    report = RequeueReport()
    for message, problem in problems:
        if problem is not None:
            report.refused.append((message, problem))
            continue
        again = message.requeued()
        event = rules.of(message).event(
            "message_requeued", message, rt.clock(), by=command.by, last_error=message.last_error[:300]
        )
        if rt.store.replace_outbox_message(message, again, event):
            report.requeued.append(again)
        else:
            report.refused.append((message, f"message {message.key} changed meanwhile: see outbox list"))
    return report
