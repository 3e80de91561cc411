"""Operator alerts: what a person running the shop must hear about without watching a terminal.

    a customer request waits as *needs facts* (services/runs/held.py) -> OperatorNotice -> OperatorAlerts
        (locally: none, the command's own output says it; in AWS: the stack's alarm topic, adapters/aws)

A notice names the held request and what a person must give; it never carries the e-mail's text, a link or a
secret, so the topic's subscribers learn no more than ``request list`` shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .intake.held import PossibleDuplicate


@dataclass(frozen=True)
class OperatorNotice:
    """One alert: a short subject and a plain-text body."""

    subject: str
    body: str


class OperatorAlerts(Protocol):
    """Tells the operator (SNS in AWS). ``BackendError`` when the alert could not be handed over."""

    def alert(self, notice: OperatorNotice) -> None:
        """Hand ``notice`` over once."""
        ...


def needs_facts_notice(held: PossibleDuplicate) -> OperatorNotice:
    """The alert for a request that waits as *needs facts*: its id, sender, what was read and what is missing, and
    how to complete it; neither its text nor its subject (the customer's words stay in the store)."""
    read = ", ".join(f"{name} {value}" for name, value in sorted(held.read.items())) or "nothing"
    lines = [
        f"A customer request waits as needs facts: {held.held_id}",
        f"From: {held.sender or '(unknown sender)'}",
        f"Read: {read}",
        "Missing:",
        *(f"  - {problem}" for problem in held.missing or ("a fact",)),
        "",
        "Nothing was planned. It waits among the held requests, with the customer's words:",
        "  production-orchestrator request list --table <the stack's TableName>",
    ]
    return OperatorNotice(subject=f"Customer request needs facts ({held.held_id})", body="\n".join(lines))
