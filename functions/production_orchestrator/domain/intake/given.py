"""What the customer's e-mail said of the facts a person gave (``start --product --quantity --due --customer``),
so the approver sees both: the given fact is what is planned, the e-mail's is shown beside it.
"""

from __future__ import annotations

import re

from ..planning.proposal import GivenFacts
from ..shop.model import ShopState, parse_day
from .customer_message import CustomerMessage
from .dates import resolve_due
from .facts import read_facts, thread_labels
from .vocabulary import match_products


def _said(value: object) -> str:
    """``value`` on one line, without control characters, at most 120 characters (it is shown to people)."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", "?", " ".join(str(value).split()))[:120]


def _unclear(problem: str) -> str:
    """``'the e-mail gives several (300; 400); say which one'`` -> ``'several (300; 400)'``."""
    return re.sub(r"^the e-mail gives |; say which one$", "", problem.split(":", 1)[-1].strip())


def given_against_email(
    message: CustomerMessage, shop: ShopState, planning_day: str, given: GivenFacts | None
) -> GivenFacts | None:
    """``given`` with what the e-mail said of each given fact when it said something else (read by the rules,
    the same for every provider): the approver sees both, and that the given one is what is planned."""
    if given is None:
        return None
    anchor = message.sent_day or parse_day(planning_day)
    facts = read_facts(message, shop.products, anchor)
    unclear = {str(u).split(":", 1)[0].strip().lower(): _unclear(str(u)) for u in facts.unclear}
    matched = match_products(facts.product, shop.products) if facts.product else []
    due = resolve_due(facts.due, anchor) if facts.due else None
    found = thread_labels(message)
    labelled = list(dict.fromkeys(" ".join(v.split()) for v in found.get("customer", [])))
    customer = (labelled[0] if len(labelled) == 1 else "") or message.sender_name or message.signed_name
    read: dict[str, object] = {
        "product": matched[0].code if len(matched) == 1 else facts.product or unclear.get("product"),
        "quantity": facts.quantity if facts.quantity is not None else unclear.get("quantity"),
        "due": due.isoformat() if due is not None else facts.due or unclear.get("due date"),
        "customer": customer or None,
    }
    said = {
        name: _said(read[name])
        for name, value in given.facts().items()
        if read.get(name) not in (None, "") and _said(read[name]) != str(value)
    }
    return given.model_copy(update={"email_said": said})
