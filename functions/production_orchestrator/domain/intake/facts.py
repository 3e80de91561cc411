"""Intake of a customer request, fail-closed: a known product, a quantity and a due date, or nothing.

    e-mail -> reader: what, how many, by when (RequestFacts)   rules here (deterministic provider), or a
                                                                model through a typed tool (Bedrock, Ollama)
           (vocabulary.py: labels and product words; thread.py: the newest message that states each fact;
            due_phrases.py: due dates in sentences)
           -> labels read by rules for every provider: Customer:, Order:, Priority: (order_labels.py)
           -> resolve_request: the same checks whoever read it -> an unscheduled Order, or IntakeError
              naming every missing or ambiguous fact (nothing is written, no further model call)

Facts a model returns pass the same resolver as the rules' facts, so the same e-mail read by any provider
becomes the same order and the same proposal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from ..canonical import content_hash
from ..errors import IntakeError
from ..planning.drafts import GENERATED_ID_PREFIX
from ..planning.greedy import HORIZON_DAYS
from ..planning.proposal import GivenFacts
from ..shop.model import Order, Product, ShopState, parse_day
from .customer_message import CustomerMessage, sent_day
from .dates import fold, resolve_due
from .due_phrases import read_due
from .how_many import bare_quantity, read_quantity
from .intent import not_an_order
from .order_labels import customer_reference, in_order_id_form, labelled, priority_of, trusts_priority
from .product_named import read_product
from .thread import earlier_messages
from .visible_text import text_tables
from .vocabulary import (
    Catalogued,
    labels,
    match_products,
)

MAX_QUANTITY = 10_000_000


class RequestFacts(BaseModel):
    """What a customer's e-mail asks for. Copy each value from the e-mail; use null for anything it does not
    state, never a guess."""

    # A model's extra keys are dropped rather than refused: a refusal would cost another model call.
    model_config = ConfigDict(frozen=True, extra="ignore")

    product: str | None = Field(
        default=None,
        max_length=200,
        description="The product as the customer names it: its product code or its description. Null if none.",
    )
    quantity: int | None = Field(default=None, description="How many units are ordered. Null if not stated.")
    due: str | None = Field(
        default=None,
        max_length=100,
        description="When it is needed, copied as written (2026-12-04, December 4, by Friday, in 10 days). "
        "Null if not stated.",
    )
    unclear: list[str] = Field(
        default_factory=list,
        max_length=5,
        description="Facts the e-mail gives in conflicting ways, each as 'fact: why' (for example "
        "'due date: Friday and Monday'); that fact is then null.",
    )


@dataclass(frozen=True)
class _Part:
    """One message of a thread (the newest first), with the day its relative dates count from."""

    text: str
    anchor: date
    day_first: bool | None = None  # the sender writes 04/06/2027 for 4 June
    subject: str = ""


def _thread(message: CustomerMessage, anchor: date) -> list[_Part]:
    # A line holding only "." keeps a number in the subject ("Order 4411") from being read with the body's words
    # ("60 x TOTE-NAVY"): no reading of a number and its product crosses it.
    day_first = message.day_first
    # A table typed in plain text is read cell by cell under its header (the message itself stays as written).
    parts = [_Part(f"{message.subject}\n.\n{text_tables(message.body)}", anchor, day_first, message.subject)]
    for text, dated in earlier_messages(message.earlier):
        parts.append(_Part(text_tables(text), sent_day(dated) or anchor, day_first))
    return parts


_REPLY = re.compile(r"^\s*(?:(?:re|aw|sv|antw|wg|fw|fwd|tr|rv|r)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)


# "The same again", "same as last time", "wie beim letzten Mal", "comme la dernière fois", "igual que la última
# vez", "hetzelfde als vorige keer": a repeat, whose facts the newest message may leave to an old one.
_REPEAT = re.compile(
    r"(?<![\w'])(?:(?:the\s+)?same\s+(?:again|as\s+(?:last|before|the\s+last)|order\s+as)|repeat\s+(?:of\s+)?"
    r"(?:the\s+|our\s+|that\s+)?(?:last|previous)|(?:wie|als)\s+(?:beim\s+)?(?:letzte[ns]?|vorige[ns]?)\s+mal|"
    r"nochmal\s+(?:das\s+)?gleiche|comme\s+la\s+(?:derniere|precedente)\s+fois|la\s+meme\s+(?:chose|commande)|"
    r"(?:igual|lo\s+mismo|el\s+mismo\s+pedido)\s+que\s+(?:la\s+)?(?:ultima|vez\s+pasada|anterior)|"
    r"(?:het\s+)?zelfde\s+als\s+(?:vorige|de\s+vorige|de\s+laatste|laatst)|nog\s+een\s+keer\s+hetzelfde)(?![\w'])"
)
# "same as last time but with longer hooks": a repeat changed is an order a person settles.
_CHANGED = re.compile(r"[^.!?\n]{0,60}?(?<![\w'])(?:but|aber|jedoch|mais|pero|maar)(?![\w'])")


def _repeated(body: str, earlier: set[str]) -> list[str]:
    """What makes a repeat ("the same again") no plain order: changed, or its facts only in an old message."""
    repeat = _REPEAT.search(fold(body))
    if repeat is not None and _CHANGED.match(fold(body), repeat.end()):
        return ["request: the e-mail asks for an earlier order changed; a person settles what is ordered"]
    if repeat is not None and earlier:
        return [
            "request: the e-mail asks for the same as an earlier order, and only an earlier message says "
            f"{' and '.join(sorted(earlier))}; a person confirms what is repeated (nothing was planned)"
        ]
    return []


def thread_labels(message: CustomerMessage) -> dict[str, list[str]]:
    """Each labelled fact from the newest message of the thread that labels it."""
    found: dict[str, list[str]] = {}
    for part in _thread(message, date(2000, 1, 1)):
        for fact, values in labels(part.text).items():
            found.setdefault(fact, values)
    return found


def read_facts(message: CustomerMessage, products: Sequence[Catalogued], anchor: date) -> RequestFacts:
    """The rule-based reader (the deterministic provider). Each fact from the newest message of the thread that
    states it: labels and sentences both (disagreeing, the fact is unclear and both are named), codes,
    descriptions and their plurals, numbers next to units or product words, dates after "by", "bis",
    "avant le", "para el", "uiterlijk"... Due dates come back as ISO days, counted from their own message."""
    problems: list[str] = []
    parts = _thread(message, anchor)
    product = due = None
    quantity: int | str | None = None
    earlier: set[str] = set()  # the facts read only from an earlier message of the thread
    for index, part in enumerate(parts):
        product = read_product(part.text, part.subject, products, problems)
        if product is not None or problems:
            earlier |= {"product"} if index else set()
            break
    matched = match_products(product, products) if product else []
    if not matched and product is None and problems:  # several products named: a number next to any of them
        matched = list(products)
    # "Re: Delivery confirmation - 3 rack trolleys" / "another 2 of the same": a reply's subject is the old order's.
    replied = _REPLY.match(message.subject) is not None
    body = text_tables(message.body)
    counted = [_Part(body, parts[0].anchor, parts[0].day_first), *parts] if replied else parts
    newest = len(counted) - len(parts) + 1  # the parts of the newest message (in a reply: its body, its subject)
    for index, part in enumerate(counted):
        unclear: list[str] = []
        said = bare_quantity(body, matched, unclear) if index == newest else None
        if said is not None or unclear:
            # "Yes please go ahead. We'll go with 40 in the end" above the quote for 20: the newest message's one
            # number says how many now; several there ("make it 30, the 20 below") are asked about, never left
            # to the quote.
            quantity = said
            problems += unclear
            break
        quantity = read_quantity(part.text, matched, problems)
        if quantity is not None or any(p.startswith("quantity") for p in problems):
            # past the newest message (in a reply its body, then its subject and body)
            earlier |= {"quantity"} if index > len(counted) - len(parts) else set()
            break
    else:
        quantity = bare_quantity(body, matched, problems)
    problems += _repeated(body, earlier)
    for part in parts:
        due = read_due(part.text, part.anchor, part.day_first, problems)
        if due is not None or any(p.startswith("due date") for p in problems):
            break
    if isinstance(quantity, str):
        problems.append(f"quantity: {quantity!r} is not a whole number")
        quantity = None
    return RequestFacts(product=product, quantity=quantity, due=due, unclear=problems)


def _product(facts: RequestFacts, products: Sequence[Product], problems: list[str]) -> Product | None:
    known = ", ".join(p.code for p in products)
    if not facts.product or not facts.product.strip():
        problems.append(f"product: missing (name a product code or description; the shop makes {known})")
        return None
    matched = match_products(facts.product, products)
    if len(matched) == 1:
        return next(p for p in products if p.code == matched[0].code)
    if matched:
        names = ", ".join(p.code for p in matched)
        problems.append(f"product: {facts.product!r} matches several products ({names}); say which one")
    else:
        problems.append(f"product: {facts.product!r} is not a product of this shop (it makes {known})")
    return None


def _quantity(facts: RequestFacts, problems: list[str]) -> int | None:
    if facts.quantity is None:
        problems.append("quantity: missing (how many units?)")
    elif not 1 <= facts.quantity <= MAX_QUANTITY:
        problems.append(f"quantity: must be a whole number from 1 to {MAX_QUANTITY}, got {facts.quantity}")
    else:
        return facts.quantity
    return None


# An order of which part fits is planned with the rest at risk (planning/propose.py); one that would keep its
# machines busy for more than this many whole horizons is a slip of the keyboard, not a plan to propose.
HORIZONS_AT_MOST = 10


def _fits_horizon(product: Product, quantity: int, shop: ShopState, problems: list[str]) -> bool:
    """False (and the problem named) when ``quantity`` needs more machine time than the product's machines have
    in :data:`HORIZONS_AT_MOST` planning horizons, every day free: refused here, before anything is written."""
    need = quantity * product.minutes_per_unit
    most = HORIZONS_AT_MOST * HORIZON_DAYS * sum(m.minutes_per_day for m in shop.machines if m.id in product.machines)
    if need <= most:
        return True
    problems.append(
        f"quantity: {quantity} x {product.code} needs {need} machine-minutes, more than its machines have in "
        f"{HORIZONS_AT_MOST} x {HORIZON_DAYS} days ({most}); order fewer or split the order"
    )
    return False


def _due(
    facts: RequestFacts, anchor: date, planning_day: str, problems: list[str], day_first: bool | None
) -> str | None:
    if not facts.due or not facts.due.strip():
        problems.append("due date: missing (by when is it needed?)")
        return None
    day = resolve_due(facts.due, anchor, day_first=day_first)
    if day is None:
        problems.append(f"due date: {facts.due!r} is not a date this shop can read (write e.g. 2026-12-04)")
        return None
    if day < parse_day(planning_day):
        problems.append(f"due date: {day.isoformat()} is before the planning day {planning_day}")
        return None
    return day.isoformat()


_GIVEN_FACT_NAMES = {"product": "product", "quantity": "quantity", "due": "due date"}


def with_given(facts: RequestFacts, given: GivenFacts | None) -> RequestFacts:
    """``facts`` with what a person gave filling or replacing them (and no longer unclear)."""
    if given is None:
        return facts
    replaced = {name: value for name, value in given.facts().items() if name in _GIVEN_FACT_NAMES}
    named = {_GIVEN_FACT_NAMES[name] for name in replaced}
    unclear = [u for u in facts.unclear if str(u).split(":", 1)[0].strip().lower() not in named]
    return facts.model_copy(update={**replaced, "unclear": unclear})


def resolve_request(
    message: CustomerMessage,
    facts: RequestFacts,
    shop: ShopState,
    planning_day: str,
    given: GivenFacts | None = None,
) -> Order:
    """The unscheduled order ``facts`` describe on ``shop``, or ``IntakeError`` naming every problem.

    Relative due dates count from the e-mail's ``Date:`` (else the planning day). ``given`` facts (from the
    person who started the run) fill or replace the e-mail's, and what the e-mail left unclear about them.
    """
    facts = with_given(facts, given)
    problems: list[str] = []
    anchor = message.sent_day or parse_day(planning_day)
    product = _product(facts, shop.products, problems)
    quantity = _quantity(facts, problems)
    if product is not None and quantity is not None and not _fits_horizon(product, quantity, shop, problems):
        quantity = None
    due = _due(facts, anchor, planning_day, problems, message.day_first)
    found = thread_labels(message)
    priority, asked_priority = priority_of(found, trusts_priority(shop, message.sender), problems)
    customer = (
        (given.customer if given is not None else None)
        or labelled(found, "customer", problems)
        or message.sender_name
        or message.signed_name
        or message.sender
        or "unnamed customer"
    )
    labelled_order = labelled(found, "order", problems)
    order_id = labelled_order if labelled_order and in_order_id_form(labelled_order, shop) else None
    reference = customer_reference(labelled_order) if order_id is None else ""
    # What the reader found unclear is named once, in the reader's words.
    unclear = [" ".join(str(u).split())[:300] for u in facts.unclear if str(u).strip()]
    reported = {u.split(":", 1)[0].strip().lower() for u in unclear}
    problems = [*unclear, *(p for p in problems if p.split(":", 1)[0] not in reported)]
    intent = None if given is not None else not_an_order(f"{message.subject}\n{message.body}", _held_names(shop))
    problems += [intent] if intent else []
    if problems or product is None or quantity is None or due is None:
        raise IntakeError("the request cannot be planned: " + "; ".join(problems), problems=tuple(problems))
    order = Order(
        id=order_id
        or GENERATED_ID_PREFIX
        + content_hash([message.sender, message.message_id, product.code, quantity, due])[:10].upper(),
        customer=customer[:120],
        customer_email=message.sender,
        product=product.code,
        quantity=quantity,
        due=due,
        priority=priority,
        language=message.language,
        reference=reference,
        asked_priority=asked_priority,
    )
    _check_existing(shop, order)
    return order


def _held_names(shop: ShopState) -> dict[str, str]:
    """What names an order the shop holds in an e-mail: its id and the customer's own reference, folded (one
    lookup per word of the e-mail, however many orders the shop holds)."""
    return {fold(name): name for o in shop.orders for name in (o.id, o.reference) if name}


def _check_existing(shop: ShopState, order: Order) -> None:
    existing = shop.order(order.id)
    if existing is None:
        return
    if existing.schedule:
        raise IntakeError(f"order: {order.id} is already in the shop and scheduled; nothing to plan")
    if existing != order:
        raise IntakeError(f"order: {order.id} is already in the shop with different details")
