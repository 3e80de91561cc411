"""Which customer requests are the same request: one key per e-mail, so a second start of it is recognised.

Message-ID present  -> "message-id:" + the id (angle brackets, spaces and case dropped)
no Message-ID       -> "text:" + sha256 of the canonical text with runs of whitespace made one and case
                       folded (a re-sent or re-wrapped copy of the same words is the same request)
"""

from __future__ import annotations

from ..canonical import sha256_hex
from .customer_message import CustomerMessage


def request_key(message: CustomerMessage) -> str:
    """The key two starts of the same request share."""
    message_id = "".join(message.message_id.split()).strip("<>").casefold()
    if message_id:
        return f"message-id:{message_id}"
    return "text:" + sha256_hex(" ".join(message.text.split()).casefold().encode("utf-8"))
