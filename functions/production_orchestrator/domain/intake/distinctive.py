"""Products named by the words only they have: "40cm round planters in anthracite" names the product described
as "round planter pot 40 cm, anthracite" though it leaves out "pot".

    a word of a product's names (description, aliases) that no other product's names have, inflected or not
    -> said in the e-mail, with at least half the words of one of that product's names (two at least)
    -> and no size or colour in the e-mail contradicting the product's (``60 ml`` is not the ``100 ml``
       product, "in blue this time" not the red one)
    -> that product; two products named so -> several (the reader asks), never a guess

A last resort after codes, labels and full names, and a check beside readings that rest on part of a name: a
second product named by its own words makes the request unclear.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .dates import fold
from .vocabulary import Catalogued, alike, joined_sizes, names_of, words

# A size: a number and a unit of length, volume or weight ("40cm", "30 L", "100 ml", "2,5 kg").
MEASURE_UNITS = r"mm|cm|ml|cl|kg|ltr|liters?|litres?|l|g"
_MEASURE = re.compile(rf"(?<![\w.,])(\d{{1,5}}(?:[.,]\d{{1,3}})?)\s{{0,2}}({MEASURE_UNITS})(?![a-z])")
_SIZE_WORD = re.compile(r"\d{1,4}(?:\.\d{1,2})?(?:x\d{1,4}(?:\.\d{1,2})?)+")
_DIMENSIONS = re.compile(
    r"(?<![\w.,])(\d{1,5}(?:[.,]\d{1,2})?(?:\s{0,2}[x\u00d7*]\s{0,2}\d{1,5}(?:[.,]\d{1,2})?)+)\s{0,2}(mm|cm)(?![a-z])"
)
_UNIT_OF = {"ltr": "l", "liter": "l", "liters": "l", "litre": "l", "litres": "l"}


# Colours in the five languages, by one name each: an e-mail naming a colour a coloured product's names lack asks
# for another variant than the shop makes.
_COLOURS = {
    "black": r"black|schwarz\w*|noire?s?|negr[oa]s?|zwart\w*",
    "white": r"white|wei(?:ss|\u00df)\w*|blanc\w*|wit(?:te)?",
    "grey": r"gr[ae]y|grau\w*|gris\w*|grijs\w*|anthra\w*|antra\w*",
    "red": r"red|rot(?:e[nmrs]?)?|rouges?|roj[oa]s?|rood|rode",
    "blue": r"blue|blau\w*|bleue?s?|azul\w*|blauwe?",
    "green": r"green|gr(?:ue|u)n\w*|verte?s?|verdes?|groene?",
    "yellow": r"yellow|gelb\w*|jaunes?|amarill[oa]s?|gele?",
    "clear": r"clear|transparent\w*|klar\w*",
    "brown": r"brown|braun\w*|marron|marrones|bruin\w*",
    "orange": r"orange|naranja\w*|oranje",
    "purple": r"purple|violet\w*|lila|morad[oa]s?|paars\w*",
    "pink": r"pink|rosa|roze",
    "silver": r"silver|silber\w*|argent\w*|plata|plateado|zilver\w*",
    "gold": r"gold|golden|doree?s?|dorad[oa]s?|goud\w*",
}
_COLOUR = {name: re.compile(rf"(?<![a-z])(?:{pattern})(?![a-z])") for name, pattern in _COLOURS.items()}


def colours(text: str) -> set[str]:
    """The colours ``text`` names ("anthracite" and "grau" are both grey)."""
    folded = fold(text)
    return {name for name, pattern in _COLOUR.items() if pattern.search(folded)}


def measures(text: str) -> set[tuple[str, str]]:
    """The sizes ``text`` gives, as (unit, number): ``30 litre`` -> ("l", "30"); ``8 x 40 mm`` -> both 8 and 40 mm."""
    found = set()
    folded = fold(text)
    for dimensions, unit in _DIMENSIONS.findall(folded):
        found |= {(unit, n.replace(",", ".")) for n in re.split(r"\s*[x\u00d7*]\s*", dimensions)}
    for number, unit in _MEASURE.findall(_DIMENSIONS.sub(" ", folded)):
        found.add((_UNIT_OF.get(unit, unit), number.replace(",", ".")))
    return found


def _sized_words(text: str) -> set[str]:
    """:func:`words` with sizes split from their units ("40cm" -> 40, cm) and the numbers of a size or a count
    written onto a word said too ("120 x 120" -> 120, "24er", "24-cell" -> 24)."""
    said = words(_MEASURE.sub(lambda m: f" {m.group(1)} {_UNIT_OF.get(m.group(2), m.group(2))} ", fold(text)))
    return said | {n for w in said for n in re.findall(r"(?<![\d.])\d{1,5}(?![\d.])", w) if not w.isdigit()}


def _own_words(product: Catalogued, products: Sequence[Catalogued], *, short_heads: bool = False) -> set[str]:
    others = {w for p in products if p.code != product.code for name in names_of(p) for w in _sized_words(name)}
    mine = {w for name in names_of(product) for w in _sized_words(name)}
    heads = {head for name in names_of(product) if (head := _head_noun(name))} if short_heads else set()
    # "bench pad, 120 cm": the size its name gives tells it from the 180 cm one.
    sizes = {number for name in names_of(product) for _, number in measures(name) if number.isdigit()}
    # A word, or a size written as one ("80x80": the 80 mm bracket, where the 50 mm one shares every word).
    return {w for w in mine if (_telling(w) or w in heads or w in sizes) and not any(alike(w, o) for o in others)}


def _telling(word: str) -> bool:
    return (word.isalpha() and len(word) >= 4) or _SIZE_WORD.fullmatch(word) is not None


def _head_noun(name: str) -> str | None:
    """The last word of a name when it is a short noun ("place mat", "tote bag", "coffee mug"): the thing itself,
    told apart though it has only three letters."""
    last = [w for w in re.findall(r"[a-z]+", fold(name))][-1:]
    return next(iter(words(last[0])), None) if last and len(last[0]) == 3 else None


def _said(word: str, said: set[str]) -> bool:
    return word in said or any(alike(word, s) for s in said)


# "per piece up to 30 cm", "max. 1 m", "bis 6,5 m": a limit of what the product takes, not a size it comes in.
_LIMIT = re.compile(
    r"(?<![\w])(?:up\s+to|max(?:imum)?\.?|under|below|bis(?:\s+zu)?|jusqu'a|hasta|tot|maximal|<=?)\s*"
    r"\d{1,5}(?:[.,]\d{1,3})?(?:\s{0,2}[x\u00d7*]\s{0,2}\d{1,5}(?:[.,]\d{1,3})?)*\s{0,2}(?:[a-z]{1,5})?"
)


def _variant_fits(product: Catalogued, given: set[tuple[str, str]], coloured: set[str]) -> bool:
    """False when the e-mail gives a size in a unit the product's names use and none of its values, or a colour
    the product's names lack (when they name one)."""
    own = {c for name in names_of(product) for c in colours(name)}
    if own and coloured - own:
        return False
    named = {m for name in names_of(product) for m in measures(_LIMIT.sub(" ", fold(name)))}
    for unit in {u for u, _ in given} & {u for u, _ in named}:
        if not {v for u, v in given if u == unit} & {v for u, v in named if u == unit}:
            return False
    return True


def _compounds_joined(text: str, products: Sequence[Catalogued]) -> str:
    """``text`` with each hyphenated compound no product's names hold written as one word: "the flat-pack range"
    names no "flat" door, "Shaker-Tür" stays two words of a name."""
    named = {w for p in products for name in names_of(p) for w in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)+", fold(name))}
    return re.sub(
        r"[a-z0-9]+(?:-[a-z0-9]+)+",
        lambda m: m.group(0) if m.group(0) in named else m.group(0).replace("-", ""),
        fold(text),
    )


def distinctively_named(text: str, products: Sequence[Catalogued], *, in_passing: bool = False) -> list[Catalogued]:
    """The products ``text`` names by a word only they have, with half the words of one of their names and no
    size or colour against them (see the module docstring); ``in_passing``: by such a word alone (what makes a
    reading from part of a name unclear)."""
    said = _sized_words(_compounds_joined(text, products) if in_passing else text)
    given, coloured = measures(text), colours(text)
    found, whole = [], []
    sized = {number for _, number in given}  # "120cm", "180 mm": a size said with its unit (not "160 -> 180")
    for product in products:
        # A short name's noun ("place mat") tells a product named by its words, never one named in passing.
        own = _own_words(product, products, short_heads=not in_passing)
        if not any(_said(w, said) for w in own if not w.isdigit() or w in sized):
            continue
        if in_passing:
            found.append(product)
            continue
        names = [w for w in (_sized_words(n) for n in names_of(product)) if w]
        hits = [sum(_said(w, said) for w in name) for name in names]
        half = any(n >= 2 and 2 * n >= len(name) for n, name in zip(hits, names, strict=True))
        if half and _variant_fits(product, given, coloured):
            found.append(product)
            whole += [product] if any(n == len(name) for n, name in zip(hits, names, strict=True)) else []
    # "Bench pads for the beer garden benches - the 120cm ones": every word of the 120 cm bench pad's name is said,
    # two of the garden seat pad's three; the one said whole is meant.
    return whole if len(found) > 1 and len(whole) == 1 else found


def said_whole(text: str, product: Catalogued) -> bool:
    """True when every word of one of ``product``'s names is said in ``text`` ("bench pads ... the 120cm ones"), as
    it is written or in its plural (not merely alike: "banqueting chairs" say no "banquette cover")."""
    said = _sized_words(text)
    return any(name and name <= said for name in (_sized_words(n) for n in names_of(product)))


def other_variant(text: str, product: Catalogued) -> bool:
    """True when ``text`` asks for a size or a colour ``product``'s names contradict (another variant)."""
    return not _variant_fits(product, measures(text), colours(text))


def _said_in(word: str, said: set[str]) -> bool:
    """:func:`_said`, or the end of a compound said ("sandblasting" says "blasting", "Stahlwinkel" "winkel")."""
    return _said(word, said) or (len(word) >= 5 and any(len(s) > len(word) and s.endswith(word) for s in said))


# How far from the vague mention a word still describes it: "18 frame & fork sets for single colour", not "50
# leather straps for our stage and the guitar shop window".
_NEAR = 5
_BESIDE = 2  # one word of a product's own, "walnut ... same size as your oak ones" is no oak shelf


def _near_mention(text: str, mention: str, near: int = _NEAR) -> set[str]:
    """The words said within ``near`` words of a word of ``mention`` ("frames"); a size as one word ("1500 x 700")."""
    tokens = [words(t) for t in re.findall(r"[a-z0-9]+", joined_sizes(fold(text)))]
    wanted = words(mention)
    anchors = [i for i, said in enumerate(tokens) if any(alike(w, m) for w in said for m in wanted)]
    return {w for a in anchors for said in tokens[max(0, a - near) : a + near + 1] for w in said}


def best_named(text: str, mention: str, candidates: Sequence[Catalogued]) -> Catalogued | None:
    """Of the products a vague mention fits ("frames": the stripped frame, the coated one, the chair frame), the one
    the words next to it name: the one with the most words of one of its names all said there ("18 frame & fork
    sets for single colour powder coating": the "single colour frame"), else the only one with a word of its own
    among them said right beside it ("500 steel shelf brackets": the small parts "(brackets, hooks, clips)");
    None when that does not settle it (the reader asks)."""
    said = _near_mention(text, mention)
    given, coloured = measures(text), colours(text)
    fitting = [p for p in candidates if _variant_fits(p, given, coloured)]
    if len(fitting) == 1:
        return fitting[0]

    mentioned = words(mention)

    def telling(word: str) -> bool:  # a word beside the mention that tells products apart; a colour alone does not
        return not colours(word) and not any(alike(word, m) for m in mentioned)

    def full(product: Catalogued) -> int:
        own = {w for w in _own_words(product, fitting) if telling(w)}
        names = [w for w in (_sized_words(n) for n in names_of(product)) if w & own]
        return max((len(w) for w in names if all(_said_in(x, said) for x in w)), default=0)

    scores = sorted(((full(p), p.code) for p in fitting), reverse=True)
    if len(scores) > 1 and scores[0][0] > scores[1][0] and (scores[0][0] >= 2 or scores[1][0] == 0):
        return next(p for p in fitting if p.code == scores[0][1])
    beside = _near_mention(text, mention, _BESIDE)
    owning = [p for p in fitting if any(telling(w) and _said_in(w, beside) for w in _own_words(p, fitting))]
    return owning[0] if len(owning) == 1 else None
