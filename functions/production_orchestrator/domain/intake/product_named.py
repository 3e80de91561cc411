"""The product one message of a thread names: labelled, by code, by a name said in full, by the words after a
number ("50 navy totes"), by words only it has; every mention must fit one product, and where the rules find
several, the one the message's words are about (relevance.py) or the reader asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..shop.model import ID_PATTERN
from .count_context import without_past_orders
from .dates import fold
from .distinctive import best_named, distinctively_named, other_variant, said_whole
from .mentions import Mentions, counted_first, shortened
from .relevance import most_relevant
from .vocabulary import Catalogued, code_in, labels, match_products, named_in, prose


def several(fact: str, values: dict[str, str], problems: list[str]) -> None:
    problems.append(f"{fact}: the e-mail gives several ({'; '.join(values.values())}); say which one")


@dataclass(frozen=True)
class _Said:
    """What one message says of products: its sentences (with unmatched product labels), the mentions and how."""

    text: str
    mentions: Mentions
    coded: bool  # a product code is written
    named: bool  # a product label names a product
    fully: int  # how many products are named in full


def _mentions(text: str, products: Sequence[Catalogued]) -> _Said:
    found = labels(text)
    # "Order: stainless dowel pins": a label's value that is no order id may still name the product.
    said = [v for v in found.get("order", []) if not ID_PATTERN.fullmatch(v) and match_products(v, products)]
    # "Item: Aluminium facade panels, powder coated RAL 7016 matt": a label's value no name matches is read as the
    # customer's sentences are.
    named = [v for v in found.get("product", []) if match_products(v, products)]
    sentences = without_past_orders(fold(prose(text)))  # "Our last order (PO LG-2198, 300 small jars)": history
    text = "\n".join([sentences, *(v for v in found.get("product", []) if v not in named and v not in sentences)])
    mentions = [(v, {p.code for p in match_products(v, products)}) for v in [*named, *said]]
    coded = [p.code for p in products if code_in(p.code, text)]
    mentions += [(code, {code}) for code in coded]
    fully: list[Catalogued] = []
    if not coded:
        fully = named_in(text, products)
        mentions += [(fully[0].code, {fully[0].code})] if len(fully) == 1 else [(p.code, {p.code}) for p in fully]
    counted = shortened(text, products)
    mentions += counted
    if not mentions:  # no code, label or full name: a product's own words, if they name one product
        mentions = [(p.code, {p.code}) for p in distinctively_named(text, products)]
    elif not coded and len(mentions) == len(counted) + len(fully):  # only words, no label nor code: counted first
        mentions = counted_first(mentions, counted)
    if not mentions:  # a labelled product nothing here names is named back by the resolver
        mentions = [(v, set()) for v in found.get("product", [])[:1] if v not in named]
    return _Said(text, mentions, bool(coded), bool(named), len(fully))


def read_product(text: str, subject: str, products: Sequence[Catalogued], problems: list[str]) -> str | None:
    """The product a message (``subject``, ``text``) names (labelled and in its sentences), None when it names
    none. Every mention must fit one product: a vaguer one ("50 dowel pins") agrees with a precise one ("6x30
    dowel pins"); mentions that fit no one product together are the one the words are about, or named as
    several."""
    said = _mentions(text, products)
    if not said.mentions:
        return None
    if len(said.mentions) == 1 and not said.mentions[0][1]:
        return said.mentions[0][0]

    def weighed(codes: set[str]) -> str | None:  # several named: the one the e-mail's words are about, if any
        if said.coded or said.named:  # a code or a label disagreeing with the words is no tie to break
            return None
        chosen = most_relevant(said.text, subject, [p for p in products if p.code in codes], products)
        return chosen.code if chosen is not None else None

    several_named: list[str] = []
    chosen = _one_product(said.mentions, several_named)
    if several_named:
        chosen = weighed({code for _, matched in said.mentions for code in matched})
        if chosen is None:
            problems += several_named
            return None
    if chosen is not None and not said.coded and len(vague := match_products(chosen, products)) > 1:
        settled = best_named(said.text, chosen, vague)  # "frames": which of the shop's frames the e-mail says
        settled = settled or next((p for p in vague if p.code == weighed({v.code for v in vague})), None)
        chosen = settled.code if settled is not None else chosen
    if chosen is not None and not said.coded and not said.named and said.fully != 1:
        return _from_part_of_a_name(chosen, said.text, products, weighed, problems)
    return chosen


def _from_part_of_a_name(
    chosen: str,
    text: str,
    products: Sequence[Catalogued],
    weighed: Callable[[set[str]], str | None],
    problems: list[str],
) -> str | None:
    """``chosen``, read from part of a name, unless the e-mail asks for another variant of it or names another
    product by its own words that the words are not less about."""
    matched = match_products(chosen, products)
    codes = {p.code for p in matched}
    if len(matched) == 1 and other_variant(text, matched[0]):
        problems.append(
            f"product: {chosen!r} reads as {matched[0].code}, but the e-mail asks for another size or colour "
            f"than {matched[0].description!r}; say which product"
        )
        return None
    passing = distinctively_named(text, products, in_passing=True)
    # One named whole is not made unclear by another named in passing ("Bench pads for the beer garden benches -
    # the 120cm ones": the 120 cm bench pad, not the garden seat pad).
    whole = len(matched) == 1 and said_whole(text, matched[0])
    others = {p.code: p.code for p in passing if p.code not in codes and not whole}
    if others and len(codes) == 1 and weighed(codes | set(others)) not in codes:
        several("product", {next(iter(codes)): chosen, **others}, problems)
        return None
    return chosen


def _one_product(mentions: Mentions, problems: list[str]) -> str | None:
    fits: set[str] | None = None
    seen: dict[str, str] = {}
    for value, matched in mentions:
        key = next(iter(matched)) if len(matched) == 1 else " ".join(value.lower().split())
        seen.setdefault(key, value)
        fits = (matched or {key}) if fits is None else fits & (matched or {key})
    if fits and len(fits) == 1:
        return seen.get(next(iter(fits))) or next(iter(fits))
    if fits:  # every mention fits several products: the resolver names them
        return mentions[0][0]
    several("product", seen, problems)
    return None
