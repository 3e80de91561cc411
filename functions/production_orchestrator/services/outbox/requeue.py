"""Requeue: a person queues failed outbox messages again (``outbox retry``), each with an audit event.

    failed --checked: still the approved plan's draft--> queued, ``attempts_at_retry`` = attempts (a fresh
                                                         budget), ``message_requeued`` (who, the last error)

A failed message is never sent by itself: a server refused it for good, or too often. Once the cause is fixed
(a mailbox created, a greylist passed, a sender allowed) the owner queues it again and the next delivery
round sends it like any queued message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from ...domain.messages.outbox import OutboxMessage
from ...domain.ports import ShopStore
from .deliver import ApprovedDrafts, outbox_event


@dataclass
class RequeueReport:
    """What ``requeue`` did: the failed messages queued again, and those it could not take."""

    requeued: list[OutboxMessage] = field(default_factory=list)
    refused: list[tuple[OutboxMessage, str]] = field(default_factory=list)


def requeue(
    store: ShopStore,
    *,
    clock: Callable[[], datetime],
    by: str,
    keys: tuple[str, ...] = (),
    all_failed: bool = False,
) -> RequeueReport:
    """Queue failed messages again (those at ``keys``, or every failed one), each with a ``message_requeued`` event.

    Named messages are all checked first: an unknown key raises ``KeyError``, one that is not failed or that was
    edited in storage (it would never be sent) raises ``ValueError``, and nothing is written. With
    ``all_failed`` an edited one is left as it is and reported, the others are queued.
    """
    messages = {m.key: m for m in store.outbox_messages()}
    unknown = [k for k in keys if k not in messages]
    if unknown:
        raise KeyError(", ".join(unknown))
    chosen = [m for m in messages.values() if m.status == "failed"] if all_failed else [messages[k] for k in keys]
    plans = ApprovedDrafts(store)
    problems = [(m, plans.problem(m)) for m in chosen]
    if not all_failed:
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
        event = outbox_event("message_requeued", message, clock(), by=by, last_error=message.last_error[:300])
        if store.replace_outbox_message(message, again, event):
            report.requeued.append(again)
        else:
            report.refused.append((message, f"message {message.key} changed meanwhile: see outbox list"))
    return report
