"""Which customer requests are the same request, and the key a run stores so a second start is found at once.

A request is named by three things (issue 27):

    sender        the From address, case-folded ("" for pasted text without headers: unknown)
    Message-ID    the envelope's id, angle brackets, spaces and case dropped ("" when it has none)
    request       the newest message and what it quotes, whitespace runs made one, case folded
                  (headers, dates and the signature are the envelope, not the request)

Judged against the earlier runs of the same request (one indexed read: ``runs_of_request(request_hash)``):

    same sender, same Message-ID, same request  -> a duplicate: the earlier run answers (still open: its ids;
                                                   decided: refused unless ``--again``)
    same sender, same request, other envelope   -> a *possible duplicate*: held beside the earlier run until a
      (no Message-ID, pasted, a new Message-ID)    person starts it (``--again``) or drops it
    the same Message-ID with another request    -> a new request (the reuse is noted in its audit event)
    another sender                              -> a new request

An unknown sender (pasted text) is the same as any sender: a person looks before it is planned twice.

The run's :class:`RunRequest` is written in its checkpoint's transaction, keyed by (request hash, generation):
two starts that both counted ``generation`` earlier runs write the same key, and one of them wins. The
store reads only the runs of one request, so a start costs the same at 1,000 stored runs as at none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..canonical import sha256_hex
from ..records import CheckpointId, require_hash

if TYPE_CHECKING:  # a store reads keys without the e-mail reader
    from .customer_message import CustomerMessage

RUN_REQUEST_SCHEMA_VERSION: Literal[1] = 1
_HASH = r"^[0-9a-f]{64}$"
MAX_GENERATION = 999_999  # a request started a million times is not a customer's request any more


def normalized_request(message: CustomerMessage) -> str:
    """The request's words as compared: the newest message and what it quotes (the subject when there is no
    body), whitespace runs made one and case folded."""
    words = "\n".join(part for part in (message.body, message.earlier) if part.strip()) or message.subject
    return " ".join(words.split()).casefold()


def request_hash(message: CustomerMessage) -> str:
    """The key every run of the same request shares (the index the duplicate check reads)."""
    return sha256_hex(normalized_request(message).encode("utf-8"))


def sender_of(message: CustomerMessage) -> str:
    """Who sent it, in the one compared form ("" when the text carries no sender)."""
    return message.sender.strip().casefold()


def message_key(message: CustomerMessage) -> str:
    """The sender's Message-ID as one key ("" when the envelope has none): a Message-ID is the sender's, so two
    senders' equal ids never meet."""
    message_id = "".join(message.message_id.split()).strip("<>").casefold()
    if not message_id:
        return ""
    return sha256_hex(f"{sender_of(message)}\n{message_id}".encode())


def envelope_hash(message: CustomerMessage) -> str:
    """This very envelope (headers and text): what a held possible duplicate is named by, so the same envelope
    handed in again finds its hold instead of making a second."""
    return sha256_hex(" ".join(message.text.split()).casefold().encode("utf-8"))


class RunRequest(BaseModel):
    """The request key a run stores with its checkpoint: the ``generation``-th run of ``request_hash``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when first used

    schema_version: Literal[1] = RUN_REQUEST_SCHEMA_VERSION
    checkpoint_id: CheckpointId
    request_hash: str = Field(pattern=_HASH)
    generation: int = Field(ge=0, le=MAX_GENERATION)
    sender: str = Field(default="", max_length=320)
    message_key: str = Field(default="", pattern=r"^([0-9a-f]{64})?$")
    created_at: str = ""


def run_request(message: CustomerMessage, checkpoint_id: str, generation: int, created_at: str = "") -> RunRequest:
    """The key ``message``'s run writes as the ``generation``-th run of its request."""
    return RunRequest(
        checkpoint_id=checkpoint_id,
        request_hash=require_hash(request_hash(message), "request hash"),
        generation=generation,
        sender=sender_of(message),
        message_key=message_key(message),
        created_at=created_at,
    )


def same_sender(a: str, b: str) -> bool:
    """Whether two senders may be one person (an unknown sender may be anyone)."""
    return not a or not b or a == b


Verdict = Literal["new", "duplicate", "possible_duplicate"]


@dataclass(frozen=True)
class Match:
    """How a new request relates to one earlier run of the same words."""

    verdict: Verdict
    earlier: RunRequest | None = None


def judge(message: CustomerMessage, earlier: Sequence[RunRequest]) -> Match:
    """``message`` against the earlier runs of its request (oldest first, closed-by-"propose again" ones left
    out by the caller): the latest same-envelope run makes it a duplicate, else the latest run of the same
    sender a possible duplicate, else it is new."""
    sender, key = sender_of(message), message_key(message)
    mine = [r for r in earlier if same_sender(r.sender, sender)]
    exact = [r for r in mine if key and r.message_key == key]  # the key holds the sender
    if exact:
        return Match("duplicate", exact[-1])
    if mine:
        return Match("possible_duplicate", mine[-1])
    return Match("new")


_ID = re.compile(r"^[0-9a-f]{64}\Z")


def is_request_hash(value: str) -> bool:
    """True for a key :func:`request_hash` makes (a store key is validated before it is used)."""
    return _ID.fullmatch(value) is not None
