"""The words of a request: labels (``Quantity: 60``, ``Menge: 60``, ``Quantité : 60``...), product words with
their plurals and common inflections, and which products a phrase names.

    "300 patches" -> patch;  "Taschen" -> Tasche;  "embroidered" ~ "embroidery";  "Stück" -> stueck
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from .dates import fold

# "Label: value" lines; the label is matched folded (lower case, no accents), in any of the five languages.
_LABEL = re.compile(
    r"^[ \t]{0,40}(?:[-*\u2022\u00b7\u2013>][ \t]{1,3})?\*{0,2}"  # a list item's mark, bold
    r"([^\W\d_][^\W\d_ ./-]{0,24}(?:[ ./-]{1,2}[^\W\d_]+){0,4}\.?)\*{0,2}[ \t]{0,40}:\s*(.+)"
)
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
        "deadline datum", "gewenste leverdatum", "required date", "date required", "required delivery",
        "requested date", "requested delivery", "required delivery date", "requested delivery date", "dock date",
        "in-hands date", "arrival date", "date souhaitee", "date de livraison souhaitee", "fecha deseada",
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
# Labels people word in their own way ("Required delivery date", "Gewünschter Liefertermin", "Fecha de entrega
# deseada"): a label none of LABELS names is the fact its words point to, when they point to one fact only.
_LABEL_WORDS = {
    "due": re.compile(
        r"\b(?:due|deadline|delivery|deliver|needed|need|required\s+by|wanted|requested\s+by|ship|shipping|"
        r"req\.?\s*date|reqd|"
        r"finish|finished|completion|completed|ready|fertig\w*|fertigstellung|klaar|gereed|pret|terminado|listo|"
        r"faellig|benoetigt|gewuenscht\w*\s+(?:am|bis)|wunschtermin|\w*liefer\w*|\w*termin\w*|livraison|"
        r"livrer|echeance|delai|entrega|entregar|plazo|\w*lever\w*|uiterlijk)\b"
    ),
    "quantity": re.compile(
        r"\b(?:quantity|qty|amount|pieces|units|menge|anzahl|stueckzahl|quantite|nombre|cantidad|unidades|"
        r"aantal|hoeveelheid|stuks|bestellmenge|liefermenge)\b"
    ),
    "product": re.compile(
        r"\b(?:product|item|article|part|sku|produkt|artikel|teil|produit|piece|producto|articulo|pieza|"
        r"artikelnummer|onderdeel)\b"
    ),
}
_ORDER_WORDS = re.compile(
    r"\b(?:po|p\.\s?o|purchase\s+order|order|bestellnummer|bestellung|bestell\w*|auftrag\w*|commande|pedido|"
    r"orden|bestelling|bestelnummer|ordernummer)\b"
)
_NOT_A_FACT = re.compile(
    r"\b(?:order\s+date|sent|quote|invoice|offer|angebot|rechnung|devis|facture|factura|address|adresse|"
    r"\w*anschrift|\w*adresse|direccion|adres|afleveradres|terms|bedingungen|\w*bedingungen|conditions|"
    r"condiciones|voorwaarden|note|notes|hinweis|remarque|nota|opmerking|contact|kontakt|method|mode|via|"
    r"costs?|kosten|frais|gastos|price|preis|prix|precio|prijs)\b"
    # "Delivery to:", "Ship to:", "Lieferung an:", "Livraison à:": where, not when.
    r"|\b(?:delivery|deliver|ship|shipping|lieferung|liefern|livraison|livrer|entrega|entregar|levering|leveren)"
    r"\s+(?:to|an|a|en|naar|bei|chez)\Z"
)


def label_fact(label: str) -> str | None:
    """The fact a label names (``due``, ``quantity``...), None when it names none or several."""
    key = _label_key(label)
    if key in _LABEL_OF:
        return _LABEL_OF[key]
    if _NOT_A_FACT.search(key):
        return None
    facts = [fact for fact, pattern in _LABEL_WORDS.items() if pattern.search(key)]
    if not facts and _ORDER_WORDS.search(key):
        return "order"  # "PO number", "Your order no." (but "Order quantity" is the quantity)
    return facts[0] if len(facts) == 1 else None


_STOP = {
    "with", "and", "the", "for", "of", "a", "an", "in", "on", "to", "our", "your", "some", "please", "more",
    "und", "der", "die", "das", "mit", "fuer", "von", "ein", "eine", "einen", "unsere", "unser", "bitte",
    "le", "la", "les", "des", "de", "du", "et", "avec", "pour", "un", "une", "nos", "notre", "en",
    "el", "los", "las", "con", "para", "y", "una", "nuestro", "nuestra", "nuestros", "nuestras",
    "het", "een", "van", "met", "voor", "onze", "ons",
}  # fmt: skip
# A whole number: 1,000 / 1.000 / 1 000 (no-break or thin space) / 1'000 as thousands, never a decimal.


class Catalogued(Protocol):
    """What a reader needs of a product: its code and description (and, where the shop gives them, its
    ``aliases``: the other names customers use for it)."""

    @property
    def code(self) -> str: ...

    @property
    def description(self) -> str: ...


def names_of(product: Catalogued) -> tuple[str, ...]:
    """The product's description and its aliases: every name a customer may call it by."""
    return (product.description, *getattr(product, "aliases", ()))


_IRREGULAR = {
    "teeth": "tooth", "feet": "foot", "knives": "knife", "shelves": "shelf", "halves": "half", "leaves": "leaf",
}  # fmt: skip


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """``word`` folded, its plural ending dropped: bags -> bag, patches -> patch, hoodies -> hoody (and a
    singular in ``-ie`` meets its plural: hoodie -> hoody; French muraux -> mural, panneaux -> panneau)."""
    word = fold(word)
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 5 and word.endswith("eaux"):  # French: panneaux -> panneau, muraux -> mural
        return word[:-1]
    if len(word) > 5 and word.endswith("aux"):
        return word[:-3] + "al"
    if len(word) > 4 and word.endswith("ie"):
        return word[:-2] + "y"
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


# A size as people write it: "6 x 30", "6x30", "6 * 30 mm" are one word, "6x30" (it names a part, not a count).
_SIZE = re.compile(r"(?<![\w.,])(\d{1,4}(?:[.,]\d{1,2})?)\s{0,3}[x\u00d7*]\s{0,3}(?=\d)")


def joined_sizes(text: str) -> str:
    """``text`` with each size written as one word: ``6 x 30`` -> ``6x30``."""
    return _SIZE.sub(lambda m: m.group(1).replace(",", ".") + "x", text)


# One material, two names: what a buyer writes ("PP", "alu", "inox") and what a catalogue does.
_SAME_MATERIAL = {
    "polypropylene": "pp", "polypropylen": "pp", "polypropileno": "pp", "polycarbonate": "pc", "polycarbonat": "pc",
    "policarbonato": "pc", "polyethylene": "pe", "polyethylen": "pe", "polietileno": "pe", "aluminum": "aluminium",
    "alu": "aluminium", "aluminio": "aluminium", "inox": "stainless", "rvs": "stainless", "edelstahl": "stainless",
    "color": "colour", "colors": "colour", "gray": "grey",
}  # fmt: skip
_NUMBER_UNIT = re.compile(r"(?<![\w.])(\d{1,5})(mm|cm|ml|kg|m|g|l)(?![a-z])")


def words(text: str) -> set[str]:
    """The words of ``text`` as :func:`stem` gives them, without stop words (for description matching); a size
    and its unit as two words ("38mm": 38, mm), a material by one name ("polypropylene" and "PP": pp)."""
    said = re.findall(r"[a-z0-9]+", _NUMBER_UNIT.sub(r"\1 \2", joined_sizes(fold(text))))
    return {_SAME_MATERIAL.get(w, w) for w in (stem(word) for word in said if word not in _STOP)}


_VERB_ENDING = re.compile(r"(?:ing|ed|er)\Z")


@lru_cache(maxsize=1 << 16)
def root(word: str) -> str:
    """A stem without an English verb ending, its doubled consonant single: coating, coated -> coat; stripped,
    stripping -> strip (at least four letters stay)."""
    bare = _VERB_ENDING.sub("", word)
    if len(bare) >= 5 and bare[-1] == bare[-2] and bare[-1] not in "aeiouls":
        bare = bare[:-1]
    return bare if len(bare) >= 4 else word


@lru_cache(maxsize=1 << 16)
def alike(a: str, b: str) -> bool:
    """True when two stems are one word inflected: equal, one the other plus ``n``/``en`` (Tasche, Taschen), with
    an English verb ending (coat, coating, coated), or the same stem of at least six letters with short endings
    (embroidered, embroidery; aandrijfas, aandrijfassen)."""
    if a == b or root(a) == root(b):
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= 4 and long in (short + "n", short + "en", short + "e", short + short[-1] + "en"):
        return True
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= 6 and len(a) - shared <= 4 and len(b) - shared <= 4


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
        fact = label_fact(match.group(1)) if match else None
        if match is not None and fact is not None:
            found.setdefault(fact, []).append(match.group(2).strip().strip("* "))
    return found


def prose(body: str) -> str:
    """``body`` without its known ``Label: value`` lines: what the customer wrote in sentences."""
    kept = []
    for line in body.splitlines():
        match = _LABEL.match(line)
        if match is None or label_fact(match.group(1)) is None:
            kept.append(line)
        elif label_fact(match.group(1)) == "order" and not re.fullmatch(
            r"[A-Za-z0-9][\w.-]{0,63}", match.group(2).strip()
        ):
            kept.append(match.group(2).strip())  # "Order: stainless dowel pins" is what is ordered, in words
        elif label_fact(match.group(1)) == "product" and re.match(r"\d[\d,.' ]*\s+[^\W\d_]", match.group(2).strip()):
            kept.append(match.group(2).strip())  # "Item: 75 steel chair frames (...)": a count and what is counted
    return "\n".join(kept)


def code_in(code: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9._-]){re.escape(code)}(?![A-Za-z0-9_-])", text, re.IGNORECASE) is not None


def _named_words(product: Catalogued) -> list[set[str]]:
    return [w for w in (words(name) for name in names_of(product)) if w]


def most_specific(matches: Sequence[Catalogued], said: set[str] | None = None) -> list[Catalogued]:
    """Of products whose names all match, the one whose matched name's words include every other's, if any."""

    def best(product: Catalogued) -> set[str]:
        named = [w for w in _named_words(product) if said is None or covers(said, w)]
        return max(named or _named_words(product) or [set()], key=len)

    for candidate in matches:
        mine = best(candidate)
        if all(best(other) < mine for other in matches if other != candidate):
            return [candidate]
    return list(matches)


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", joined_sizes(fold(text)))


def _said_together(tokens: list[str], name: str) -> bool:
    """True when every word of ``name`` is said within a run of ``text``'s words at most one longer than the
    name: "black canvas aprons" says "canvas apron", "aprons in black canvas" and "covers for our terrace" do
    not say "canvas apron" or "terrace cushion cover" (a word further off tells what it is for, or of another
    thing)."""
    wanted = words(name)
    if not wanted:
        return False
    width = len(_tokens(name)) + 1
    for start, token in enumerate(tokens):
        if token in _STOP or not any(alike(stem(token), w) for w in wanted):
            continue
        window = {stem(t) for t in tokens[start : start + width] if t not in _STOP}
        if covers(window, wanted):
            return True
    return False


def named_in(text: str, products: Sequence[Catalogued]) -> list[Catalogued]:
    """The products one of whose names (description or alias) ``text`` says in full, its words together, most
    specific first."""
    tokens = _tokens(text)
    found = [p for p in products if any(_said_together(tokens, name) for name in names_of(p))]
    return most_specific(found, words(text))


def match_products(phrase: str, products: Sequence[Catalogued]) -> list[Catalogued]:
    """The products ``phrase`` names: an exact code, codes in it, an alias as written, names (description or
    aliases) in it, or it in names (words matched with their plurals and common inflections)."""
    exact = [p for p in products if p.code.lower() == phrase.strip().lower()]
    if exact:
        return exact
    coded = [p for p in products if code_in(p.code, phrase)]
    if coded:
        return coded
    said = words(phrase)
    aliased = [p for p in products if any(words(a) == said for a in getattr(p, "aliases", ())) and said]
    if len(aliased) == 1:
        return aliased
    described = [p for p in products if any(covers(said, w) for w in _named_words(p))]
    if described:
        return most_specific(described, said)
    return [p for p in products if said and any(covers(w, said) for w in _named_words(p))]
