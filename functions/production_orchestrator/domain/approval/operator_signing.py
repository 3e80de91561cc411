"""What the stack's operator function MACs for the operator's CLI: links and heads of the audit chain for the
operator's own writes, never anything else.

The audit key's ``GenerateMac`` is the functions' alone (the key policy withholds it from the account), so the
operator's ``--table`` writes (``shop import``, ``shop receive``, ``order complete|cancel|progress``,
``approvals relink``) ask the operator function for their MACs:

    link request (the link's message)       -> its event is an operator kind        -> the link's MAC
    head request (the head's message + the  -> each link is an operator kind, MACed by the key, and they chain
      links written with it)                   from the stored head to the head asked for -> the head's MAC
    a head that does not follow the stored head (this process guessed it) -> "" (the store's conditional write
      then fails on the moved head, and it links again on the one it finds)

So an operator can MAC only what their own commands would append, after the chain's stored head: no decision,
vote or plan event, and no head that drops events already appended.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ..canonical import content_hash
from ..errors import ValidationError
from .audit_chain import _HEAD, _LINK, GENESIS

if TYPE_CHECKING:
    from .mac import MacKey

# The audit events the operator's commands append (services/shop/importing.py, services/shop/life.py,
# services/asking/relink.py).
OPERATOR_EVENTS: Final = frozenset(
    {
        "shop_imported",
        "material_received",
        "order_completed",
        "order_cancelled",
        "order_progressed",
        "approval_relinked",
    }
)
MAX_LINKS = 40


@dataclass(frozen=True)
class SigningRequest:
    """One request: the message to MAC and, for a head, the links (message, MAC) it closes."""

    message: bytes
    links: tuple[tuple[bytes, str], ...] = ()


def link_content(message: bytes) -> dict[str, Any]:
    """The event content a link message carries; ValidationError when it is not a link message."""
    if not message.startswith(_LINK):
        raise ValidationError("not an audit link message")
    try:
        content = json.loads(message[len(_LINK) :])
    except ValueError:
        raise ValidationError("the audit link message is not JSON") from None
    if not isinstance(content, dict):
        raise ValidationError("the audit link message is not an event")
    return content


def operator_mac(request: SigningRequest, key: MacKey, stored: tuple[int, str] | None) -> str:
    """The MAC ``request`` asks for, "" for a head that does not follow ``stored``; ValidationError for
    anything an operator's command would not append."""
    if request.message.startswith(_LINK):
        _operator_link(request.message)
        return key.sign(request.message)
    if not request.message.startswith(_HEAD):
        raise ValidationError("only audit links and heads are signed")
    if not request.links or len(request.links) > MAX_LINKS:
        raise ValidationError(f"a head closes 1 to {MAX_LINKS} links")
    try:
        head = json.loads(request.message[len(_HEAD) :])
        seq, digest = int(head["seq"]), str(head["hash"])
    except (ValueError, KeyError, TypeError):
        raise ValidationError("the audit head message is malformed") from None
    at_seq, at_hash = stored if stored is not None else (0, GENESIS)
    for message, mac in request.links:
        content = _operator_link(message)
        if not hmac.compare_digest(key.sign(message), mac):
            raise ValidationError("a link was not MACed by the audit key")
        if (content.get("seq"), content.get("prev_hash")) != (at_seq + 1, at_hash):
            return ""  # linked on a head this process guessed: the conditional write fails and relinks
        at_seq, at_hash = at_seq + 1, content_hash(content)
    if (seq, digest) != (at_seq, at_hash):
        raise ValidationError("the head does not close the links given")
    return key.sign(request.message)


def _operator_link(message: bytes) -> dict[str, Any]:
    content = link_content(message)
    if content.get("event_type") not in OPERATOR_EVENTS:
        raise ValidationError(f"{content.get('event_type')!r} is not an operator's audit event")
    return content
