"""Intake of a customer request, fail-closed: a known product, a quantity and a due date, or nothing.

    e-mail -> reader: what, how many, by when (RequestFacts)   rules here (deterministic provider), or a
                                                                model through a typed tool (Bedrock, Ollama)
           -> labels read by rules for every provider: Customer:, Order:, Priority:
           -> resolve_request: the same checks whoever read it -> an unscheduled Order, or IntakeError
              naming every missing or ambiguous fact (nothing is written, no further model call)

Facts a model returns pass the same resolver as the rules' facts, so the same e-mail read by any provider
becomes the same order and the same proposal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..canonical import content_hash
from ..errors import IntakeError
from ..shop.model import ID_PATTERN, Order, Product, ShopState, parse_day
from .customer_message import CustomerMessage
from .dates import DATE_EXPRESSION, resolve_due

DEFAULT_PRIORITY = 50
MAX_QUANTITY = 10_000_000
_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z ]{0,24}?)\s*:\s*(.+?)\s*\Z")
LABELS = {
    "product": ("product", "product code", "item", "article", "sku"),
    "quantity": ("quantity", "qty", "amount", "pieces", "units"),
    "due": ("needed by", "due", "due date", "deadline", "delivery date", "required by", "deliver by", "wanted by"),
    "priority": ("priority",),
    "customer": ("customer", "company", "client"),
    "order": ("order", "order id", "order number", "po", "purchase order"),
}
_LABEL_OF = {label: fact for fact, labels in LABELS.items() for label in labels}
_STOP = {"with", "and", "the", "for", "of", "a", "an", "in", "on", "to", "our", "your", "some"}
_NUMBER = r"(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d{1,7})(?![\w-])"
_UNIT = re.compile(_NUMBER + r"\s*(?:x|\u00d7|pcs|pc|pieces|units|items)\b", re.IGNORECASE)
_DUE = re.compile(
    r"\b(?:by|before|until|till|no\s+later\s+than|due(?:\s+(?:on|by))?|deadline\s*:?|latest)\s+"
    rf"(?P<phrase>{DATE_EXPRESSION})|(?P<alone>(?:in|within)\s+\S+\s+(?:days?|weeks?)\b)",
    re.IGNORECASE,
)
_ANY_DATE = re.compile(DATE_EXPRESSION, re.IGNORECASE)


class Catalogued(Protocol):
    """What a reader needs of a product: its code and description."""

    @property
    def code(self) -> str: ...

    @property
    def description(self) -> str: ...


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


def words(text: str) -> set[str]:
    """Lower-case words of ``text`` without stop words, plural ``s`` dropped (for description matching)."""
    found = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in _STOP:
            continue
        found.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return found


def labels(body: str) -> dict[str, list[str]]:
    """Each known ``Label: value`` line, by fact (a fact may be labelled more than once)."""
    found: dict[str, list[str]] = {}
    for line in body.splitlines():
        match = _LABEL.match(line)
        fact = _LABEL_OF.get(" ".join(match.group(1).lower().split())) if match else None
        if match is not None and fact is not None:
            found.setdefault(fact, []).append(match.group(2))
    return found


def _code_in(code: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9._-]){re.escape(code)}(?![A-Za-z0-9_-])", text, re.IGNORECASE) is not None


def _most_specific(matches: Sequence[Catalogued]) -> list[Catalogued]:
    """Of products whose descriptions all match, the one whose words include every other's, if there is one."""
    for candidate in matches:
        if all(words(other.description) < words(candidate.description) for other in matches if other != candidate):
            return [candidate]
    return list(matches)


def match_products(phrase: str, products: Sequence[Catalogued]) -> list[Catalogued]:
    """The products ``phrase`` names: an exact code, codes in it, descriptions in it, or it in descriptions."""
    exact = [p for p in products if p.code.lower() == phrase.strip().lower()]
    if exact:
        return exact
    coded = [p for p in products if _code_in(p.code, phrase)]
    if coded:
        return coded
    said = words(phrase)
    described = [p for p in products if words(p.description) <= said]
    if described:
        return _most_specific(described)
    return [p for p in products if said and said <= words(p.description)]


def _distinct(values: list[str], fact: str, problems: list[str]) -> str | None:
    unique = list(dict.fromkeys(" ".join(v.split()) for v in values))
    if len(unique) > 1:
        problems.append(f"{fact}: the e-mail gives several ({'; '.join(unique)}); say which one")
        return None
    return unique[0] if unique else None


def _quantities(text: str, product: Catalogued | None) -> list[str]:
    plain = _ANY_DATE.sub(" ", text)
    found = [m.group(1) for m in _UNIT.finditer(plain)]
    if product is not None:
        names = {w for w in words(product.description) if len(w) >= 3} | {product.code.lower()}
        for match in re.finditer(_NUMBER + r"((?:\s+[A-Za-z][\w-]*){1,4})", plain):
            if names & (words(match.group(2)) | {w.lower() for w in match.group(2).split()}):
                found.append(match.group(1))
    return [q.replace(",", "") for q in found]


def _shortened(text: str, products: Sequence[Catalogued]) -> list[str]:
    """Descriptions people shorten after a number ("50 navy totes"): the longest run of the words that follow
    it, every one a word of a description, names those products (several: ambiguous, refused later)."""
    named: list[str] = []
    for match in re.finditer(_NUMBER + r"((?:\s+[A-Za-z][\w-]*){1,4})", _ANY_DATE.sub(" ", text)):
        tokens = match.group(2).split()
        for size in range(len(tokens), 0, -1):
            said = words(" ".join(tokens[:size]))
            fits = [p.description for p in products if said and said <= words(p.description)]
            if fits:
                named += fits
                break
    return named


def _due_phrases(text: str, anchor: date) -> list[str]:
    by_day: dict[date, str] = {}
    for match in _DUE.finditer(text):
        phrase = match.group("phrase") or match.group("alone")
        day = resolve_due(phrase, anchor)
        if day is not None:
            by_day.setdefault(day, phrase)
    return list(by_day.values())


def read_facts(message: CustomerMessage, products: Sequence[Catalogued], anchor: date) -> RequestFacts:
    """The rule-based reader (the deterministic provider): labels first, else codes, descriptions, numbers
    next to units or product words, and dates after "by", "before", "until"... Conflicts go to ``unclear``."""
    problems: list[str] = []
    found = labels(message.body)
    text = f"{message.subject}\n{message.body}"
    product = _distinct(found.get("product", []), "product", problems)
    if product is None and "product" not in found:
        named = [p.code for p in products if _code_in(p.code, text)]
        if not named:
            named = [
                p.description for p in _most_specific([p for p in products if words(p.description) <= words(text)])
            ]
        product = _distinct(named or _shortened(text, products), "product", problems)
    matched = match_products(product, products) if product else []
    quantity = _distinct(
        found.get("quantity") or _quantities(text, matched[0] if len(matched) == 1 else None), "quantity", problems
    )
    due = _distinct(found.get("due") or _due_phrases(text, anchor), "due date", problems)
    amount = int(quantity.replace(",", "")) if quantity and re.fullmatch(r"[+-]?[\d,]{1,12}", quantity) else None
    if quantity and amount is None:
        problems.append(f"quantity: {quantity!r} is not a whole number")
    return RequestFacts(product=product, quantity=amount, due=due, unclear=problems)


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


def _due(facts: RequestFacts, anchor: date, planning_day: str, problems: list[str]) -> str | None:
    if not facts.due or not facts.due.strip():
        problems.append("due date: missing (by when is it needed?)")
        return None
    day = resolve_due(facts.due, anchor)
    if day is None:
        problems.append(f"due date: {facts.due!r} is not a date this shop can read (write e.g. 2026-12-04)")
        return None
    if day < parse_day(planning_day):
        problems.append(f"due date: {day.isoformat()} is before the planning day {planning_day}")
        return None
    return day.isoformat()


def _labelled(found: dict[str, list[str]], fact: str, problems: list[str]) -> str | None:
    return _distinct(found.get(fact, []), fact, problems)


def _priority(found: dict[str, list[str]], problems: list[str]) -> int:
    raw = _labelled(found, "priority", problems)
    if raw is None:
        return DEFAULT_PRIORITY
    if not re.fullmatch(r"\d{1,3}", raw) or not 1 <= int(raw) <= 100:
        problems.append(f"priority: must be a whole number from 1 to 100, got {raw!r}")
        return DEFAULT_PRIORITY
    return int(raw)


def resolve_request(
    message: CustomerMessage,
    facts: RequestFacts,
    shop: ShopState,
    planning_day: str,
) -> Order:
    """The unscheduled order ``facts`` describe on ``shop``, or ``IntakeError`` naming every problem.

    Relative due dates count from the e-mail's ``Date:`` (else the planning day).
    """
    problems: list[str] = []
    anchor = message.sent_day or parse_day(planning_day)
    product = _product(facts, shop.products, problems)
    quantity = _quantity(facts, problems)
    due = _due(facts, anchor, planning_day, problems)
    found = labels(message.body)
    priority = _priority(found, problems)
    customer = _labelled(found, "customer", problems) or message.sender_name or message.sender or "unnamed customer"
    order_id = _labelled(found, "order", problems)
    if order_id is not None and not ID_PATTERN.fullmatch(order_id):
        problems.append(f"order: {order_id!r} is not a valid order id")
    # What the reader found unclear is named once, in the reader's words.
    unclear = [" ".join(str(u).split())[:300] for u in facts.unclear if str(u).strip()]
    reported = {u.split(":", 1)[0].strip().lower() for u in unclear}
    problems = [*unclear, *(p for p in problems if p.split(":", 1)[0] not in reported)]
    if problems or product is None or quantity is None or due is None:
        raise IntakeError("the request cannot be planned: " + "; ".join(problems), problems=tuple(problems))
    order = Order(
        id=order_id
        or "REQ-" + content_hash([message.sender, message.message_id, product.code, quantity, due])[:10].upper(),
        customer=customer[:120],
        customer_email=message.sender,
        product=product.code,
        quantity=quantity,
        due=due,
        priority=priority,
    )
    _check_existing(shop, order)
    return order


def _check_existing(shop: ShopState, order: Order) -> None:
    existing = shop.order(order.id)
    if existing is None:
        return
    if existing.schedule:
        raise IntakeError(f"order: {order.id} is already in the shop and scheduled; nothing to plan")
    if existing != order:
        raise IntakeError(f"order: {order.id} is already in the shop with different details")
