"""What a count is of, from the words around it: an earlier order told beside the new one ("The last lot of 20 went
down a treat ... thirty this time"), and the pack a product is sold in ("120 rolls" of labels sold by the roll)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .dates import fold
from .number_forms import NUMBER_CORE
from .vocabulary import Catalogued, names_of

# The packs a product is sold in, when its name says so ("round labels, roll of 500", "swing tags, pack of 100",
# "paper tape, 50 m roll"): a count of those packs is a count of the product ("120 rolls", "50 pakjes van 100 stuks",
# "150 rouleaux de 500 étiquettes", "30 Packungen à 100 Bogen").
_PACK_WORDS = {
    "roll": r"rolls?|rollen?|rouleaux?|rollos?|rol|rollen|rolletjes?",
    "pack": r"packs?|packets?|packungen?|pakete?|paquets?|paquetes?|pakken?|pakjes?|pkts?",
    "crate": r"crates?|kratten?|krat|kisten?|kiste|caisses?|cagettes?|cajas?",
}
# A name that says how many a pack holds: "roll of 500", "pack of 100 sheets", "crate of 12".
_PACK_SIZE = re.compile(rf"(?<![a-z])(?:{'|'.join(_PACK_WORDS.values())})\s+(?:of|de|van|von|mit|a)\s+\d{{1,6}}(?!\d)")
_PACK_OF = {kind: re.compile(rf"(?<![a-z])(?:{pattern})(?![a-z])") for kind, pattern in _PACK_WORDS.items()}


def sold_in(candidates: Sequence[Catalogued]) -> str | None:
    """The pattern of the pack words every candidate is sold by (None: not all in one kind of pack)."""
    kinds = [{k for k, p in _PACK_OF.items() if any(p.search(fold(n)) for n in names_of(c))} for c in candidates]
    shared = set.intersection(*kinds) if kinds else set()
    return "|".join(_PACK_WORDS[k] for k in sorted(shared)) or None


def packs_as_units(text: str, candidates: Sequence[Catalogued]) -> str:
    """``text`` (folded) with a count of the packs the candidates are sold in written as a count of them: ``120
    rolls`` -> ``120 pcs``, ``50 pakjes van 100 stuks`` -> ``50 pcs`` (what a pack holds is the product's)."""
    packs = sold_in(candidates)
    if packs is None:
        return text
    return re.sub(
        NUMBER_CORE + rf"(?![.,]\d|\d)\s{{0,2}}(?:{packs})(?:\s{{1,3}}(?:of|a|zu|mit|je|de|van|met|with)\s{{1,3}}"
        r"\d{1,6}(?:\s{1,3}[a-z]+)?)?(?![a-z])",
        lambda m: f"{m.group(1)} pcs",
        text,
    )


def counted_inside(text: str, candidates: Sequence[Catalogued]) -> set[str]:
    """The numbers of ``text`` (folded) that count what a pack holds where the product is sold by a pack of a size
    ("96 pots" of the yoghurt sold in crates of 12: 96 pots, or 96 crates?), not the packs ("8 crates")."""
    packs = sold_in(candidates)
    if packs is None or not any(_PACK_SIZE.search(fold(n)) for c in candidates for n in names_of(c)):
        return set()
    said_packs = {m.group(1) for m in re.finditer(NUMBER_CORE + rf"\s{{0,2}}(?:{packs})(?![a-z])", text)}
    inside = re.finditer(NUMBER_CORE + rf"(?![.,]\d|\d)\s{{0,2}}(?!(?:{packs}|of|x)(?![a-z]))[a-z]{{3,}}", text)
    return {m.group(1) for m in inside} - said_packs


# What was ordered before, said beside what is ordered now: "The last lot of 20 (your ref ORD-2710) went down a
# treat", "Previous PO 7712 (1,200 cartons) arrived perfectly", "de vorige bestelling (450 stuks)", "(that was 120 of
# them)". Its counts are history; "same as last time, 200 caps" and "this time we'd want 150" are not.
_PAST = re.compile(
    r"(?<![\w'])(?:previous|prior|last\s+(?:lot|order|batch|delivery|run|shipment|time\s+(?:we|you|it|they))|"
    r"(?:that|it|which)\s+was|were\s+delivered|arrived|went\s+down|vorige[n]?\s+(?:bestelling|levering|keer)|"
    r"vorherige\w*|letzte[nrs]?\s+(?:bestellung|lieferung|auftrag)|derniere\s+(?:commande|livraison)|"
    r"commande\s+precedente|pedido\s+anterior|ultimo\s+pedido|laatste\s+(?:bestelling|levering))(?![\w'])"
)
_NOW = re.compile(
    r"(?<![\w'])(?:this\s+time|now|again|same\s+as|diesmal|dieses\s+mal|cette\s+fois|esta\s+vez|deze\s+keer|nu)(?![\w'])"
)
# A clause (up to a comma or a sentence's end; wrapped lines and brackets inside it): "Suite à notre commande
# précédente (ORD-2718, 250 pièces), nous souhaitons commander 300 ..." tells of the old order in its first clause.
_SENTENCE_PIECE = re.compile(
    r"(?:[^.!?,;\n(]|[.!?,;](?![\s.!?,;]|\Z)|\([^()]{0,200}\)|\((?![^()]{0,200}\))"
    r"|\n(?![ \t]*(?:\n|[-*\u2022]|\d+[.)])))+[.!?,;]*"
)
_BRACKET = re.compile(r"\([^()]{0,200}\)")


# Goods that come from elsewhere: "The 180 espresso cups are coming from our other supplier, so saucers only".
_ELSEWHERE = re.compile(
    r"(?<![\w'])(?:coming|come|comes|bought|ordered|sourced|supplied|getting|get)\s+(?:\w+\s+){0,2}?from\s+"
    r"(?:our|another|a|an|the)\s+(?:other\s+|different\s+|usual\s+)?(?:supplier|vendor|company|manufacturer|source)"
)


def _past(piece: str) -> bool:
    """A clause telling of what is not ordered now: an earlier order, or goods from another supplier."""
    return (_PAST.search(piece) is not None and _NOW.search(piece) is None) or _ELSEWHERE.search(piece) is not None


def without_past_orders(text: str) -> str:
    """``text`` (folded) without the clauses and brackets that tell of an earlier order (see ``_PAST``)."""

    def sentence(match: re.Match[str]) -> str:
        if _past(_BRACKET.sub(" ", match.group(0))):
            return " "
        return _BRACKET.sub(lambda b: " " if _past(b.group(0)) else b.group(0), match.group(0))

    return _SENTENCE_PIECE.sub(sentence, text)
