"""How many a customer's message says: "another 15" over the counts before it, labels and sentences agreeing
("Quantity: 2,500" and no other count), what a pack holds never a second count, a count said roughly asked about,
an article read as one giving way; and, with no count anywhere in the thread, the one bare number that can be
how many ("Can you do 300 by Friday?")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .count_context import counted_inside, packs_as_units
from .dates import fold
from .number_forms import whole_number
from .numbers import bare_quantities, counted_or_not_named, labelled_number, quantities, said_roughly
from .product_named import several
from .vocabulary import Catalogued, labels, prose

# "Please machine another 15", "12 more", "weitere 20", "encore 30", "otros 40", "nog 50": the count ordered now,
# beside counts of what came before ("The first ten IP65 enclosures were perfect").
_ANOTHER = re.compile(
    r"(?<![\w'])(?:another|weitere|nochmals|encore|otr[oa]s|nog)\s+(\d{1,7})(?![\w.,]\d|\w)|"
    r"(?<![\w.,])(\d{1,7})\s+(?:more|further|additional|mehr|de\s+plus|mas|meer|extra)(?![\w'])"
)


def read_quantity(text: str, candidates: Sequence[Catalogued], problems: list[str]) -> int | str | None:
    """How many one message (``text``: its subject and body, or a quoted one) says: "another 15", labels and
    sentences agreeing; a value that is no whole number is returned as written (named by the resolver)."""
    more = {int(m.group(1) or m.group(2)) for m in _ANOTHER.finditer(fold(prose(text)))}
    if len(more) == 1 and not labels(text).get("quantity"):
        return more.pop()
    seen: dict[str, str] = {}
    for value in labels(text).get("quantity", []):
        amount = labelled_number(value)
        if amount is None:  # "Quantity: 120 rolls" of labels sold by the roll
            amount = labelled_number(packs_as_units(fold(value), candidates))
        if amount is None:
            return value  # not a whole number: named by the resolver
        seen.setdefault(str(amount), f"{amount} (labelled)")
    if not _counted_in_sentences(text, candidates, seen, problems):
        return None
    if len(seen) > 1 and seen.get("1") == "1" and not _ONE_WRITTEN.search(fold(prose(text))):
        # "un pedido de cajas", "a cada jugador un llavero", "een doos": an article read as a count of one gives
        # way to a count in digits or words.
        del seen["1"]
    if len(seen) > 1:
        several("quantity", seen, problems)
        return None
    return int(next(iter(seen))) if seen else None


def _counted_in_sentences(
    text: str, candidates: Sequence[Catalogued], seen: dict[str, str], problems: list[str]
) -> bool:
    """The counts of ``text``'s sentences added to ``seen``; False (the problem named) when one is no count yet."""
    inside = counted_inside(fold(prose(text)), candidates)
    for value in quantities(prose(text), candidates):
        amount = whole_number(value)
        if amount is None and value.startswith("about "):
            problems.append(f"quantity: {value!r} is not a count yet; say how many")
            return False
        if value in inside:  # "96 pots of your yoghurt" sold in crates of 12
            problems.append(
                f"quantity: {value} counts what a pack holds, and the product is sold by the pack; say how many packs"
            )
            return False
        if amount is not None:
            seen.setdefault(str(amount), str(amount))
    return True


_ONE_WRITTEN = re.compile(r"(?<![\w.,])1(?![\w.,]\d|\d)")


def bare_quantity(body: str, candidates: Sequence[Catalogued], problems: list[str]) -> int | None:
    """With no number next to a unit or the product anywhere in the thread: the one number of the newest
    message's sentences (not its subject, which often carries an order or ticket number) that can be how
    many ("Can you do 300 by Friday?"); several are named, none is None."""
    found = counted_or_not_named(bare_quantities(prose(body)), body, candidates)  # "hopper 200 L": the hopper
    rough = said_roughly(prose(body)) & set(found)
    if rough:  # "would want around 300 of them": not a count yet
        problems.append(f"quantity: 'about {sorted(rough)[0]}' is not a count yet; say how many")
        return None
    seen = {str(whole_number(value)): str(whole_number(value)) for value in found}
    if len(seen) > 1:
        several("quantity", seen, problems)
        return None
    return int(next(iter(seen))) if seen else None
