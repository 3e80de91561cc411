"""The words of a request: labels (``Quantity: 60``, ``Menge: 60``, ``Quantité : 60``...), product words with
their plurals and common inflections, and which products a phrase names.

    "300 patches" -> patch;  "Taschen" -> Tasche;  "embroidered" ~ "embroidery";  "Stück" -> stueck
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from .dates import fold

# "Label: value" lines; the label is matched folded (lower case, no accents), in any of the five languages.
_LABEL = re.compile(r"^\s*\*{0,2}([^\W\d_][^\W\d_ ./-]{0,24}(?:[ ./-]{1,2}[^\W\d_]+){0,3})\*{0,2}\s*:\s*(.+?)\s*\Z")
LABELS = {
    "product": (
        "product", "product code", "item", "article", "sku", "produkt", "artikel", "artikelnummer", "produit",
        "article", "reference", "ref", "producto", "articulo", "referencia", "artikelnr", "art.-nr", "art nr",
    ),
    "quantity": (
        "quantity", "qty", "amount", "pieces", "units", "menge", "anzahl", "stueckzahl", "stuckzahl", "stueck",
        "quantite", "nombre", "cantidad", "unidades", "aantal", "hoeveelheid", "stuks",
    ),
    "due": (
        "needed by", "due", "due date", "deadline", "delivery date", "required by", "deliver by", "wanted by",
        "date needed", "liefertermin", "lieferdatum", "termin", "faellig", "faellig am", "benoetigt bis",
        "gewuenschter liefertermin", "date de livraison", "date limite", "echeance", "livraison", "pour le",
        "fecha de entrega", "fecha limite", "entrega", "plazo", "leverdatum", "leveringsdatum", "uiterlijk",
        "deadline datum", "gewenste leverdatum",
    ),
    "priority": ("priority", "prioritaet", "prioritat", "priorite", "prioridad", "prioriteit"),
    "customer": (
        "customer", "company", "client", "kunde", "firma", "cliente", "empresa", "klant", "bedrijf", "societe",
    ),
    "order": (
        "order", "order id", "order number", "po", "purchase order", "bestellung", "bestellnummer",
        "auftrag", "auftragsnummer", "commande", "numero de commande", "bon de commande", "pedido",
        "numero de pedido", "orden", "bestelling", "bestelnummer", "ordernummer",
    ),
}  # fmt: skip
_LABEL_OF = {label: fact for fact, labels in LABELS.items() for label in labels}
_STOP = {
    "with", "and", "the", "for", "of", "a", "an", "in", "on", "to", "our", "your", "some", "please", "more",
    "und", "der", "die", "das", "mit", "fuer", "von", "ein", "eine", "einen", "unsere", "unser", "bitte",
    "le", "la", "les", "des", "de", "du", "et", "avec", "pour", "un", "une", "nos", "notre", "en",
    "el", "los", "las", "con", "para", "y", "una", "nuestro", "nuestra", "nuestros", "nuestras",
    "het", "een", "van", "met", "voor", "onze", "ons",
}  # fmt: skip
# A whole number: 1,000 / 1.000 / 1 000 (no-break or thin space) / 1'000 as thousands, never a decimal.


class Catalogued(Protocol):
    """What a reader needs of a product: its code and description."""

    @property
    def code(self) -> str: ...

    @property
    def description(self) -> str: ...


def stem(word: str) -> str:
    """``word`` folded, its plural ending dropped: bags -> bag, patches -> patch, hoodies -> hoody."""
    word = fold(word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> set[str]:
    """The words of ``text`` as :func:`stem` gives them, without stop words (for description matching)."""
    return {stem(word) for word in re.findall(r"[a-z0-9]+", fold(text)) if word not in _STOP}


def alike(a: str, b: str) -> bool:
    """True when two stems are one word inflected: equal, one the other plus ``n``/``en`` (Tasche, Taschen),
    or the same stem of at least six letters with short endings (embroidered, embroidery)."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= 4 and long in (short + "n", short + "en", short + "e"):
        return True
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= 6 and len(a) - shared <= 3 and len(b) - shared <= 3


def covers(said: set[str], wanted: set[str]) -> bool:
    """True when every word of ``wanted`` is, inflected or not, among ``said``."""
    return all(w in said or any(alike(w, s) for s in said) for w in wanted)


def _label_key(text: str) -> str:
    return " ".join(fold(text).replace("*", " ").split())


def labels(body: str) -> dict[str, list[str]]:
    """Each known ``Label: value`` line, by fact (a fact may be labelled more than once)."""
    found: dict[str, list[str]] = {}
    for line in body.splitlines():
        match = _LABEL.match(line)
        fact = _LABEL_OF.get(_label_key(match.group(1))) if match else None
        if match is not None and fact is not None:
            found.setdefault(fact, []).append(match.group(2).strip("* "))
    return found


def prose(body: str) -> str:
    """``body`` without its known ``Label: value`` lines: what the customer wrote in sentences."""
    kept = []
    for line in body.splitlines():
        match = _LABEL.match(line)
        if match is None or _label_key(match.group(1)) not in _LABEL_OF:
            kept.append(line)
    return "\n".join(kept)


def code_in(code: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9._-]){re.escape(code)}(?![A-Za-z0-9_-])", text, re.IGNORECASE) is not None


def most_specific(matches: Sequence[Catalogued]) -> list[Catalogued]:
    """Of products whose descriptions all match, the one whose words include every other's, if there is one."""
    for candidate in matches:
        if all(words(other.description) < words(candidate.description) for other in matches if other != candidate):
            return [candidate]
    return list(matches)


def match_products(phrase: str, products: Sequence[Catalogued]) -> list[Catalogued]:
    """The products ``phrase`` names: an exact code, codes in it, descriptions in it, or it in descriptions
    (words matched with their plurals and common inflections)."""
    exact = [p for p in products if p.code.lower() == phrase.strip().lower()]
    if exact:
        return exact
    coded = [p for p in products if code_in(p.code, phrase)]
    if coded:
        return coded
    said = words(phrase)
    described = [p for p in products if covers(said, words(p.description))]
    if described:
        return most_specific(described)
    return [p for p in products if said and covers(words(p.description), said)]
