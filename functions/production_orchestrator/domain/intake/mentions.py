"""Which products a customer's sentences name next to a number ("50 navy totes", "45 hoodies with our logo"),
and which of several mentions count: the product counted, not one named in passing."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .dates import fold
from .distinctive import MEASURE_UNITS
from .number_forms import NUMBER, UNITS
from .numbers import ANY_DATE
from .spelled import spelled_numbers
from .vocabulary import Catalogued, covers, joined_sizes, names_of, words

_UNIT_WORD = re.compile(rf"(?:{UNITS})\.?")
_MEASURE_WORD = re.compile(rf"(?:{MEASURE_UNITS})")
_OF = {"of", "de", "d", "van", "von"}
# Up to six words after a number: words, sizes ("6x30"), counts glued to a word ("24T", "40-tooth").
_WORDS_AFTER = r"((?:\s+(?:[a-z][\w-]*|\d{1,4}(?:\.\d{1,2})?x\d[\w.]*|\d{1,4}-?[a-z][\w-]*)){1,6})"
_LEADING = {
    "of", "the", "de", "des", "du", "la", "les", "van", "von", "der", "die", "das", "del", "los", "las", "your",
    "our", "these", "those", "vos", "nos", "ihre", "unsere", "sus", "nuestros", "nuestras", "jullie", "onze",
}  # fmt: skip
# What units come in: a count of them counts the product inside ("30 Kartons Riffeldübel").
_PACK_WORD = re.compile(
    r"boxes|box|cartons?|kartons?|cajas?|boites?|packs?|packages?|bags?|pallets?|palettes?|paletten|dozen|dozijn|"
    r"doos|dozen|pakken|rolls?|rollen|sets?"
)


def shortened(text: str, products: Sequence[Catalogued]) -> list[tuple[str, set[str]]]:
    """Names people shorten after a number ("50 navy totes"): for each number, the longest run of the words that
    follow it that is all words of one or more products' names, with the products it fits (one mention each)."""
    named: list[tuple[str, set[str]]] = []
    common = common_words(products)
    plain = joined_sizes(spelled_numbers(ANY_DATE.sub(" ", fold(text))))  # "6 x 30" is one word, "6x30", never a number
    for match in re.finditer(NUMBER + _WORDS_AFTER, plain):
        tokens = match.group(2).split()
        if tokens and _MEASURE_WORD.fullmatch(tokens[0].rstrip(".,;:")):
            continue  # "60 ml", "40 cm": a size, not how many of something
        while tokens and _UNIT_WORD.fullmatch(tokens[0]):
            tokens = tokens[1:]  # "500 off DP-SS-8X40", "60 Stück Taschen": the unit is no part of the name
            if tokens and tokens[0] in _OF:
                tokens = tokens[1:]  # "40 pairs of shorts": what is counted follows the "of"
        while tokens and tokens[0] in _LEADING:
            tokens = tokens[1:]  # "2000 of the black ABS sensor housings": the words counted follow
        packed = tokens
        if packed and _PACK_WORD.fullmatch(packed[0]):
            packed = packed[1:]  # "40 boxes of the 10mm dowels", "80 cartons of your fluted dowels"
            while packed and packed[0] in _LEADING:
                packed = packed[1:]
        found = (_longest_run(packed[:4], products, common) if packed is not tokens else None) or _longest_run(
            tokens[:4], products, common
        )
        if found is not None:
            named.append(found)
    return named


def _longest_run(tokens: list[str], products: Sequence[Catalogued], common: set[str]) -> tuple[str, set[str]] | None:
    """The longest run of ``tokens``, from the first or after one word the names lack ("60 black machine guard
    panels": the panels, though "black" alone is also a word of the black brackets), that is all words of one or
    more products' names, with the products it fits."""
    best: tuple[int, str, set[str]] | None = None
    for start in range(min(2, len(tokens))):
        for size in range(len(tokens) - start, 0, -1):
            run = tokens[start : start + size]
            said = words(" ".join(run)) - common
            fits = {p.code for p in products if said and any(covers(words(n), said) for n in names_of(p))}
            if fits:
                kept = [t for t in run if not words(t) or not words(t) <= common]
                # One word each way: the thing a name ends in, not the word before it ("100 wollen sjaals": the
                # scarves, "lamswollen sjaal", though "wollen" alone is a word of the "wollen plaid").
                if (
                    best is None
                    or size > best[0]
                    or (size == best[0] == 1 and start == 1 and _heads(run, tokens, products))
                ):
                    best = (size, " ".join(kept), fits)
                break
        if best is not None and start == 0 and _names_in_full(tokens[: best[0]], products, common):
            break  # "160 Flaschenöffner aus Eiche": the first words name a product whole; what follows describes it
    return (best[1], best[2]) if best is not None else None


def _heads(run: list[str], tokens: list[str], products: Sequence[Catalogued]) -> bool:
    """True when ``run`` (the word after the first) ends a product's name and the first word ends none."""
    heads = {w for p in products for n in names_of(p) for w in words(n.split()[-1])} if products else set()
    return bool(words(run[0]) & heads) and not words(tokens[0]) & heads


def _names_in_full(run: list[str], products: Sequence[Catalogued], common: set[str]) -> bool:
    said = words(" ".join(run))
    return any(covers(said, words(n) - common) and words(n) - common for p in products for n in names_of(p))


def common_words(products: Sequence[Catalogued]) -> set[str]:
    """Words three in four of the shop's products (four at least) are named with ("logo" in "... embroidered
    logo", "... printed logo"): after a number ("60 hoodies with our logo") they tell no product from another."""
    if len(products) < 4:  # with fewer, a shared word still tells products apart (navy, white)
        return set()
    counts: dict[str, int] = {}
    for product in products:
        for word in {w for name in names_of(product) for w in words(name)}:
            counts[word] = counts.get(word, 0) + 1
    return {word for word, count in counts.items() if count * 4 >= len(products) * 3}


Mentions = list[tuple[str, set[str]]]


def counted_first(mentions: Mentions, counted: Mentions) -> Mentions:
    """The mentions that count: when every product named next to a number ("45 hoodies") agrees, and exactly
    one of them is also named in full elsewhere, the others named without a number ("the emblem you did on
    our caps last year") are context, not the order."""
    if not counted:
        return mentions
    shared = set.intersection(*(matched for _, matched in counted))
    named = {code for value, matched in mentions if (value, matched) not in counted for code in matched}
    chosen = shared & named
    counted_codes = {code for _, matched in counted for code in matched}
    if len(chosen) == 1 and named - shared and not (named - chosen) & counted_codes:
        return [(value, matched) for value, matched in mentions if matched & chosen]
    return mentions
