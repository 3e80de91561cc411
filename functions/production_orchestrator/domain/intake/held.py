"""Held requests: a customer request that waits for a person before any plan is made for it.

    start / submit / receive_email -> the request is a *possible duplicate* (request_key.judge) of run R
        -> PossibleDuplicate(kind possible_duplicate, duplicate_of R, the text) stored once (its id names the envelope)
        -> nothing planned, no model called
    a person: start it (``start --again``: status started, the new run named) or drop it (``request drop``)
    start / receive_email -> the request cannot be read (a fact missing or unclear)
        -> PossibleDuplicate(kind needs_facts, what was read, what is missing) stored once
    a person: ``request complete HELD_ID --product --quantity --due`` (given facts; the run starts) or drop it

The id is derived from the request and the envelope, so the same envelope handed in again (a retried
delivery, a second paste) finds its hold instead of making a second one.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..canonical import sha256_hex
from ..records import Timestamp, require_id

HELD_SCHEMA_VERSION: Literal[1] = 1
HELD_ID_PATTERN = re.compile(r"^held-[0-9a-f]{16}\Z")
HeldKind = Literal["possible_duplicate", "needs_facts"]
HeldStatus = Literal["held", "started", "dropped"]


def held_id(request_hash: str, envelope: str) -> str:
    """The id of the hold of the request ``request_hash`` in the envelope ``envelope`` (request_key.envelope_hash)."""
    return "held-" + sha256_hex(f"{request_hash}\n{envelope}".encode())[:16]


def require_held_id(value: str) -> str:
    """``value`` if it is a held request's id, else ``ValueError`` (ids become store keys)."""
    return require_id(value, HELD_ID_PATTERN, "held request id")


class PossibleDuplicate(BaseModel):
    """One held request: what it says, whose run it may repeat, and what a person did with it."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when first used

    schema_version: Literal[1] = HELD_SCHEMA_VERSION
    held_id: str = Field(pattern=r"^held-[0-9a-f]{16}$")
    kind: HeldKind = "possible_duplicate"
    status: HeldStatus = "held"
    request_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    sender: str = Field(default="", max_length=320)
    message_id: str = Field(default="", max_length=200)
    subject: str = Field(default="", max_length=300)
    text: str = Field(min_length=1)
    duplicate_of: str = Field(default="", pattern=r"^(?:ckpt-[0-9a-f]{32})?$")  # the earlier run's checkpoint
    duplicate_order: str = ""  # the earlier run's order id, as its run shows it
    created_at: Timestamp
    closed_at: str = ""
    closed_by: str = ""
    started_as: str = ""  # the checkpoint of the run a person started from it
    reason: str = Field(default="", max_length=500)
    # needs_facts: what the reader made of it (product, quantity, due as read) and what it still lacks.
    read: dict[str, str] = Field(default_factory=dict)
    missing: tuple[str, ...] = ()

    @property
    def is_open(self) -> bool:
        """Nobody has started or dropped it yet."""
        return self.status == "held"

    @property
    def about(self) -> str:
        """The request in a few words: its subject, else its first line (raw: escape it before a terminal)."""
        first = next((line.strip() for line in self.text.splitlines() if line.strip()), "")
        return (self.subject or first)[:80]

    @property
    def why(self) -> str:
        """Why it waits, in words: what is missing and what was read, or the run it may repeat."""
        if self.kind == "needs_facts":
            read = ", ".join(f"{name} {value}" for name, value in sorted(self.read.items())) or "nothing"
            return f"needs facts: {'; '.join(self.missing) or 'a fact'} (read: {read})"
        return f"possible duplicate of run {self.duplicate_of} (order {self.duplicate_order or '?'})"

    def line(self) -> str:
        """One line for a list: id, status, sender, what it is and why it waits (raw: escape it)."""
        who = self.sender or "(unknown sender)"
        return f"{self.held_id}  {self.status:<8} from {who}  {self.about!r}  {self.why}"
