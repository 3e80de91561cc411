"""Which customer requests are the same request: one key per e-mail, so a second start of it is recognised.

Message-ID present  -> "message-id:" + the id (angle brackets, spaces and case dropped)
no Message-ID       -> "text:" + sha256 of the canonical text with runs of whitespace made one and case
                       folded (a re-sent or re-wrapped copy of the same words is the same request)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..canonical import sha256_hex

if TYPE_CHECKING:  # a store reads keys without the e-mail reader
    from .customer_message import CustomerMessage


def request_key(message: CustomerMessage) -> str:
    """The key two starts of the same request share."""
    message_id = "".join(message.message_id.split()).strip("<>").casefold()
    if message_id:
        return f"message-id:{message_id}"
    return "text:" + sha256_hex(" ".join(message.text.split()).casefold().encode("utf-8"))


def claim_key(key: str) -> str:
    """What a request's claims are stored under: the sha256 of its key (a Message-ID may be long, and a
    customer's Message-ID need not sit in a store key)."""
    return sha256_hex(key.encode("utf-8"))


def request_claim(key: str, generation: int) -> str:
    """The claim a run writes with its checkpoint: the ``generation``-th run of request ``key``. Two starts
    of one request that both counted ``generation`` earlier claims write the same claim; one of them wins."""
    if generation < 0:
        raise ValueError("a claim's generation is 0 or more")
    return f"{claim_key(key)}#{generation}"


def split_claim(claim: str) -> tuple[str, int]:
    """(claim key, generation) of a claim made by :func:`request_claim`."""
    stored_key, _, generation = claim.partition("#")
    if len(stored_key) != 64 or not generation.isdigit():
        raise ValueError(f"not a request claim: {claim!r}")
    return stored_key, int(generation)
