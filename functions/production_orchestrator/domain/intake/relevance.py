"""Which of several products an e-mail is about, by the weight of what it says: the reading a clerk makes of
"32 steel bistro table bases, powder coated ... we require the finished bases" when the shop also coats chair
bases, and the rules' readings alone name both.

    the words that tell the candidates apart (a word of one's names the others' lack), each weighed by how few of
    the shop's products share it (a word only one product has weighs 1, a word four share 1/4)
    -> said in what a number counts ("32 steel bistro table bases") it counts three times, in the rest of that
       clause (", powder coated") or the subject twice, anywhere else in the message once
    -> a candidate scores what its telling words earn
    -> the best candidate, when the thing counted says a word of its own, it scores at least twice the next, and
       no number counts another candidate more than it ("6 roll-ups and 2 back walls": two orders, the reader
       asks)

Only a tie-break: used where the rules find several products or a vague word that fits several, never over a
code, a label or a name said in full that the rules agree on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .dates import fold
from .distinctive import MEASURE_UNITS, colours, other_variant
from .number_forms import NUMBER
from .numbers import ANY_DATE
from .vocabulary import Catalogued, alike, joined_sizes, names_of, root, words

# What a number counts: the words after it, up to the end of its clause (a line break within it too).
_WORD_AFTER = r"(?:[ \t]*\n)?[ \t]+[^\W\d_][\w'/&-]*|\n[^\W\d_][\w'/&-]*|[ \t]*,[ \t]*[^\W\d_][\w'/&-]*"
_COUNTED = re.compile(NUMBER + rf"((?:{_WORD_AFTER}){{1,8}})")
_MEASURE = re.compile(rf"\s*(?:{MEASURE_UNITS}|m|%|x)(?![a-z])")
_COUNTED_WEIGHT, _SUBJECT_WEIGHT, _SAID_WEIGHT = 3.0, 2.0, 1.0
_MARGIN = 2.0
_MOST_COUNTED = 40  # numbers counting something: more is a table or a list, which the reader asks about
_AFTER_THING = re.compile(
    r"[,;:]|(?<![\w'])(?:for|to|with|from|by|as|that|which|so|because|fuer|zum|zur|mit|pour|avec|para|con|voor|"
    r"met|om)(?![\w'])"
)
# Words a name holds that tell nothing of what is ordered ("masking only", "per part").
_EMPTY = {"only", "per", "part", "piece", "each", "up", "no", "not", "just", "also", "all", "any", "other", "off"}


def counted_words(text: str) -> list[tuple[set[str], set[str]]]:
    """What each number of ``text`` counts: the words of the thing counted ("12 off steel frames"), and the rest
    of its clause ("coming your way for stripping/blasting only"); a size ("40 cm"), a date's numbers and a
    percentage count nothing."""
    plain = joined_sizes(ANY_DATE.sub(" . ", fold(text)))
    found = []
    for match in _COUNTED.finditer(plain):
        if _MEASURE.match(match.group(2)):
            continue
        head, _, rest = _head(match.group(2))
        said = words(head) - _EMPTY
        if said:
            found.append((said, words(rest) - _EMPTY))
    return found


def _head(clause: str) -> tuple[str, str, str]:
    """``clause`` split before the first word that ends the thing counted ("for", "to", "with", a comma...)."""
    split = _AFTER_THING.search(clause)
    return (clause, "", "") if split is None else (clause[: split.start()], "", clause[split.start() :])


def _weights(products: Sequence[Catalogued]) -> dict[str, float]:
    """Each word of the shop's names, by its root, weighed 1 / how many products have it."""
    holders: dict[str, set[str]] = {}
    for product in products:
        for name in names_of(product):
            for word in words(name) - _EMPTY:
                holders.setdefault(root(word), set()).add(product.code)
    return {word: 1.0 / len(codes) for word, codes in holders.items()}


def _said(word: str, said: set[str]) -> bool:
    return word in said or any(alike(word, s) for s in said)


def _score(own: set[str], weights: dict[str, float], places: Sequence[tuple[set[str], float]]) -> float:
    """What a candidate's own words (``own``) earn where they are said (the best place each)."""
    earned = 0.0
    for word in own:
        reach = max((weight for said, weight in places if _said(word, said)), default=0.0)
        earned += reach * weights.get(root(word), 0.0)
    return earned


def _own(product: Catalogued, others: Sequence[Catalogued]) -> set[str]:
    """The words of ``product``'s names no other of ``others`` has: what tells it from them."""
    theirs = {root(w) for p in others if p.code != product.code for name in names_of(p) for w in words(name)}
    mine = {w for name in names_of(product) for w in words(name) - _EMPTY}
    # A colour tells a variant, not a product ("straps in brown leather" is no more the brown watch strap).
    return {w for w in mine if root(w) not in theirs and not w.isdigit() and not colours(w)}


def most_relevant(
    text: str, subject: str, candidates: Sequence[Catalogued], products: Sequence[Catalogued]
) -> Catalogued | None:
    """The one of ``candidates`` the message (``subject`` and ``text``) is about, by the module's rule; None when
    the words do not settle it (the reader asks)."""
    if len(candidates) < 2:
        return None
    counted = counted_words(f"{subject}\n.\n{text}")
    if not counted or len(counted) > _MOST_COUNTED:
        return None  # nothing counted, or a table of numbers: no one thing the words are about
    weights = _weights(products)
    own = {p.code: _own(p, candidates) for p in candidates}
    places = [
        *((head, _COUNTED_WEIGHT) for head, _ in counted),
        *((rest, _SUBJECT_WEIGHT) for _, rest in counted),
        (words(subject), _SUBJECT_WEIGHT),
        (words(text), _SAID_WEIGHT),
    ]
    scores = sorted(((_score(own[p.code], weights, places), p.code) for p in candidates), reverse=True)
    (top, code), (second, _) = scores[0], scores[1]
    if top <= 0 or top < _MARGIN * second:
        return None
    chosen = next(p for p in candidates if p.code == code)
    if not any(_said(w, head) for w in own[code] for head, _ in counted):
        return None  # the thing counted says nothing only it is called: what it is for or goes with is no order
    for rival in (p for p in candidates if p.code != code):  # a number that counts another candidate more
        theirs, mine = _own(rival, [rival, chosen]), _own(chosen, [rival, chosen])  # ("6 gates and 20 rails")
        if any(_score(theirs, weights, [(head, 1.0)]) > _score(mine, weights, [(head, 1.0)]) for head, _ in counted):
            return None
    if other_variant(f"{subject}\n{text}", chosen):
        return None
    return chosen
