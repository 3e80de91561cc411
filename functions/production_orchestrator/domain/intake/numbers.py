"""Numbers as people write them, and which of them say how many of a product are wanted.

    "1,200" / "1.200" / "1 200" / "1\u202f200" / "1'200"  -> 1200   (thousands, never a decimal)
    "60 Stück", "x 40", "300 patches", "120 gorras bordadas (CAP-LOGO)"   -> next to a unit or the product
    "Can you do 300 by Friday?"   -> a bare number, used only when nothing else in the thread says how many

A bare number is one that is not part of a date, a time, money, a share, an id or a count of something the
shop does not make (people, hours...); when the newest message holds several, the intake names them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..limits import MAX_QUANTITY as MOST
from .count_context import packs_as_units, without_past_orders
from .dates import DATE_EXPRESSION, NUMBER_WORDS, fold
from .number_forms import NUMBER, NUMBER_CORE, UNITS, whole_number
from .spelled import small_counts, spelled_numbers
from .vocabulary import Catalogued, alike, names_of, words

_UNIT = re.compile(NUMBER_CORE + rf"(?![.,]\d|\d)\s*(?:{UNITS})(?!\w)")
ANY_DATE = re.compile(DATE_EXPRESSION)
# A count said roughly: "about 80", "ca. 30-35", "environ 200", "unos 80", "zo'n 50".
_ROUGHLY = (
    r"about|approx\.?|approximately|around|roughly|circa|ca\.?|ungefaehr|ungefahr|etwa|rund|zirka|environ|"
    r"a\s+peu\s+pres|unos|unas|aproximadamente|alrededor\s+de|ongeveer|zo'n|rond\s+de"
)


_BRACKETS = re.compile(r"\((?:[^()\n]|\n(?![ \t]*\n)){0,200}\)")  # a wrapped line may break a bracket


def quantities(text: str, candidates: Sequence[Catalogued]) -> list[str]:
    """The numbers of ``text`` that say how many: next to a unit ("60 Stück", "x 40"), before a word of one of
    ``candidates``' descriptions ("300 patches") or a few words before its code, as written. Of several, those
    outside brackets when they are one ("40 steel table bases (dining base, 4 legs + apron)": 40)."""
    found = _quantities(text, candidates)
    if len(found) > 1:
        outside = _quantities(_BRACKETS.sub(" ", text), candidates)
        return outside if len(outside) == 1 else found
    return found


def _quantities(text: str, candidates: Sequence[Catalogued]) -> list[str]:
    plain = spelled_numbers(
        _not_quantities(without_sizes(ANY_DATE.sub(" ", fold(without_years(without_designations(text))))))
    )
    plain = packs_as_units(without_past_orders(plain), candidates)
    totals = [m.group(1) or m.group(2) for m in _TOTAL.finditer(plain)]
    if len(set(totals)) == 1:  # "2 boxes of 500 - 1,000 pcs total": the total is how many
        return totals[:1]
    ranges = [n for m in _RANGE.finditer(plain) for n in m.groups() if n]
    if ranges:  # "entre 150 et 200", "150-200 pcs": how many is not said yet, both are named
        return list(dict.fromkeys(ranges))
    plain = _SPEC_OR_PART.sub(" ", small_counts(_packed(plain)))
    found = [m.group(1) for m in _UNIT.finditer(plain)]
    for product in candidates:
        names = {w for n in names_of(product) for w in words(n) if len(w) >= 3 and not w[0].isdigit()}
        names |= {product.code.lower()}
        # The words after a number, a size or a count of teeth among them ("200 19-inch rack panels", "8000 of
        # the 24T gear"), looked ahead so that a number among them is read too.
        for match in re.finditer(NUMBER + r"(?=((?:\s+(?:[a-z]|\d+-?[a-z])[\w-]*){1,4}))", plain):
            said = words(match.group(2)) | {w.lower() for w in match.group(2).split()}
            if any(alike(n, w) for n in names for w in said):
                found.append(match.group(1))
        # A number a few words before the product's own code: "120 gorras bordadas (CAP-LOGO)".
        code = re.escape(product.code.lower())
        window = NUMBER + rf"(?=(?:\s+[^\s.!?;:]+){{0,8}}?\s+\(?{code}(?![\w-]))"
        found += [m.group(1) for m in re.finditer(window, plain)]
    counts = not_in_name(_not_factors(list(dict.fromkeys(found)), plain), candidates)
    approximate = {m.group(1) for m in _APPROXIMATE.finditer(plain)}
    return [f"about {n}" if n in approximate else n for n in counts]


# A count said roughly is not yet how many: "about 80 smocks", "ca. 30 Gehäuse", "environ 200", "unos 80", "zo'n 50".
_APPROXIMATE = re.compile(rf"(?<![\w'])(?:{_ROUGHLY})\s*" + NUMBER)


def said_roughly(text: str) -> set[str]:
    """The numbers ``text`` says roughly ("would want around 300 of them")."""
    return {m.group(1) for m in _APPROXIMATE.finditer(fold(text))}


# How many colours a print has ("one color print", "2 Farben") and one of a lot ("one of your hoodies", "1 of the
# 200") say nothing of how many are ordered.
_SPEC_OR_PART = re.compile(
    r"(?<![\w.,])\d{1,2}[ -](?:colou?rs?|colou?red|farbig|farben?|couleurs?|colores?|kleuren?|kleurig)\b|"
    r"(?<![\w.,])1\s+(?:of|von|de|van)\s+(?:the|your|our|these|those|my|his|her|their|them|euren|ihren|unseren|vos|"
    r"nos|tus|sus|jullie|onze)\b"
)


# "64 legs ... 16 tables x 4 legs": the working that gives a count is no second count.
_TIMES = re.compile(r"(?<![\w.,])(\d{1,6})\s+[a-z]+\s*(?:x|\u00d7|\*|times|mal|fois|por|keer)\s*(\d{1,6})(?![\w.,])")


def _not_factors(found: list[str], text: str) -> list[str]:
    counts = {whole_number(value): value for value in found}
    for match in _TIMES.finditer(text):
        a, b = int(match.group(1)), int(match.group(2))
        if a * b in counts and len(counts) > 1:
            found = [v for v in found if whole_number(v) not in (a, b) or whole_number(v) == a * b]
    return found


def sized_as_named(found: list[str], text: str, candidates: Sequence[Catalogued]) -> list[str]:
    """The numbers of ``found`` the text does not write as the one product's name writes a size ("hopper 200 L"
    for the "malt hopper 200 L": the hopper, not 200 of them)."""
    if len(candidates) != 1:
        return found
    folded = fold(text)
    sized = {
        (number, unit)
        for name in (candidates[0].code, *names_of(candidates[0]))
        for number, unit in re.findall(r"(?<![\d.,])(\d+)\s*([a-z]{1,5})(?![a-z])", fold(name))
    }
    return [
        value
        for value in found
        if not any(
            number == value and re.search(rf"(?<![\d.,]){number}\s*{unit}(?![a-z])", folded) for number, unit in sized
        )
    ]


def counted_or_not_named(found: list[str], text: str, candidates: Sequence[Catalogued]) -> list[str]:
    """Of bare numbers, drop those the one product's name holds and the text writes within that name ("20 of the
    300 dome shades", "30 tooth": 20 and 200 are how many), unless nothing else is left ("3 textile back walls"
    for the "back wall 3x2.25 m")."""
    if len(candidates) != 1:
        return found
    kept = sized_as_named(found, text, candidates)
    held = set(found) - set(not_in_name(found, candidates))
    names = {w for name in names_of(candidates[0]) for w in words(name)}
    tokens = re.findall(r"[a-z0-9]+", fold(text))

    def within_name(value: str) -> bool:
        digits = re.sub(r"\D", "", value)
        return any(
            t == digits and any(alike(w, n) for w in words(" ".join(tokens[i - 1 : i + 2 : 2])) for n in names)
            for i, t in enumerate(tokens)
        )

    outside = [v for v in kept if v not in held or not within_name(v)]
    return outside or kept


def not_in_name(found: list[str], candidates: Sequence[Catalogued]) -> list[str]:
    """The numbers the one product's own code and names do not hold: in "180 Z brackets (stainless, 40
    offset)" the 40 is the "Z bracket 40 mm offset" itself, not a second count."""
    if not found or len(candidates) != 1:
        return found
    named = {n for name in (candidates[0].code, *names_of(candidates[0])) for n in re.findall(r"\d+", name)}
    # Only numbers the name holds ("20 of the 300 dome shades", "30 tooth"): none is surely the count; the bare
    # numbers then decide (one: it; several: asked about).
    return [value for value in found if value not in named]


# A range of counts: "between 150 and 200", "zwischen 150 und 200", "entre 150 et 200", "150-200 pcs", "150 to 200".
_RANGE_NUMBER = r"(\d{1,3}(?:[,.' ]\d{3}){1,4}|\d{1,8})"
_RANGE = re.compile(
    rf"(?<![\w.,])(?:between|zwischen|entre|tussen)\s+{_RANGE_NUMBER}\s+(?:and|und|et|y|e|en)\s+{_RANGE_NUMBER}(?![\w])"
    rf"|(?<![\w.,-]){_RANGE_NUMBER}(?:[-\u2013]|\s+(?:to|bis|a|tot)\s+){_RANGE_NUMBER}\s*(?:{UNITS})\.?(?![\w])"
    # "ca. 30-35 Briefkastengehäuse", "150 to 200 hoodies": a range before what is counted.
    rf"|(?:(?<![\w'])(?:{_ROUGHLY})\s*{_RANGE_NUMBER}\s?[-\u2013]\s?|(?<![\w.,-]){_RANGE_NUMBER}\s+(?:to|bis|tot|or|oder|ou|o|of)\s+)"
    rf"{_RANGE_NUMBER}(?=\s+[a-z]{{4,}})"
    r"(?!\s+(?:days?|weeks?|months?|years?|hours?|minutes?|tage[n]?|wochen|jours|semaines|dias|semanas|dagen|weken|"
    r"people|persons|guests|players|personen|gaeste|invites|invitados|gasten|januar\w*|februar\w*|march|april|"
    r"june|july|august|september|october|november|december|mars|avril|juin|juillet|marzo|abril|junio|julio|maart|juni|juli))"
)
# Things people count that a shop does not make: "we are 30 people", "for 11 players", "in 2 hours".
_COUNTED_NOT_MADE = (
    r"people|persons?|members?|players?|guests?|employees?|staff|kids|children|students|years?|months?|hours?|"
    r"minutes?|h|min|km|kg|g|cm|mm|m|ml|cl|personen|leute|mitglieder|spieler|gaeste|mitarbeiter|kinder|jahren?|"
    r"monaten?|stunden?|minuten|personnes|membres|joueurs|invites|enfants|ans|annees|mois|heures?|"
    r"personas|miembros|jugadores|invitados|ninos|anos|meses|horas?|mensen|leden|spelers|gasten|kinderen|"
    r"jaar|maanden|uur|pm|p\.m|a\.m|uhr|o'clock"
)
_MONEY = r"\d{1,12}(?:[.,' \u00a0\u202f]\d{3}){0,4}(?:[.,]\d{1,2})?"
# Numbers that cannot be how many: a time (10:30), money (EUR 40, 40 €, $40), a share (20 %), an id (No. 12,
# ref 4411), a count of something else (30 people); dates are taken out before (in 10 days), and a number glued
# to a word or an id (A4, #4411) never matches NUMBER.
_NOT_A_QUANTITY = re.compile(
    rf"(?<!\d)\d{{1,2}}[:h]\d{{2}}(?!\d)|(?:\b(?:eur|usd|gbp|chf)|[$\u20ac\u00a3])\s*{_MONEY}|(?<![\d.,]){_MONEY}\s*(?:(?:eur|usd|gbp|chf|"
    r"euros?|dollars?|percent|prozent|pour\s?cent|por\s?ciento|procent)\b|[$\u20ac\u00a3%])|"
    r"\b(?:no|nr|number|nummer|numero|n[o\u00ba\u00b0])\.?[ \t]*\d+|"
    r"\b(?:ref|reference|referenz|referencia|referentie|invoice|rechnung|facture|factura|factuur|ticket|"
    r"account|konto|compte|cuenta|kundennummer|quote|quotation|offer|angebot|devis|offre|oferta|presupuesto|"
    r"cotizacion|offerte|po|p\.o|purchase\s+order|bestellnummer|auftragsnummer|bon\s+de\s+commande|pedido\s+n|"
    r"pos|position|posten|item|line|ligne|linea|partida|regel|cost\s+cent(?:re|er)|kostenstelle|"
    r"centre\s+de\s+couts?|centro\s+de\s+costes?|kostenplaats)\b"
    r"(?:[ \t]*(?:is|ist|est|es|number|nummer|numero|nr|no|[.:#]))*[ \t]*\d+|"
    rf"(?<![\w.,]){_MONEY}\s*(?:{_COUNTED_NOT_MADE})\b|"
    # Stock the customer holds: "we're down to about 300", "only 40 left", "150 still in stock".
    rf"\bdown\s+to\s+(?:about\s+|around\s+|approx\w*\s+|roughly\s+)?{_MONEY}|"
    rf"(?<![\w.,]){_MONEY}\s+(?:\w+\s+){{0,3}}?(?:left|remaining|in\s+stock|on\s+hand|on\s+the\s+shelf)\b|"
    # How it is packed, not how many: "in Kartons zu je 25 Stück verpacken", "packed in boxes of 50", "en cajas de 25".
    r"\b(?:in|en|par|per)\s+(?:boxes|cartons|kartons?|cajas|boites|cartones|dozen|doosjes|packs|bags|bundles)\s+"
    rf"(?:zu\s+)?(?:je\s+|of\s+|de\s+|van\s+|a\s+|met\s+)?{_MONEY}|"
    # One for each of something: "thirty-four rooms, one throw each", "one per guest", "un par invité".
    r"(?<![\w'])(?:one|1|a|an|un|une|uno|una|ein|eine|een)\s+(?:[a-z-]+\s+){0,3}?(?:each|per\s+[a-z]+|for\s+each|par\s+[a-z]+|"
    r"por\s+[a-z]+|pro\s+[a-z]+|je\s+[a-z]+|voor\s+elke?|per\s+stuk)\b|"
    # A count turned down: "160 rather than the 100 we talked about", "make it 30 not 20", "statt 20", "au lieu de 20".
    rf"(?<![\w'])(?:rather\s+than|instead\s+of|not|statt|anstatt|au\s+lieu\s+de|en\s+lugar\s+de|en\s+vez\s+de|"
    rf"in\s+plaats\s+van|niet)\s+(?:the\s+|die\s+|les?\s+|los\s+|las\s+|de\s+)?{_MONEY}|"
    # How an order splits, not how many: "4 of each", "60 rolls each", "4 de chaque", "4 de cada", "4 van elk".
    # (Not the end of a range: "between 50 and 100 of each" stays a range, asked about.)
    r"(?<!and )(?<!to )(?<!und )(?<!et )(?<!en )(?<!y )(?<![-\u2013])"
    rf"(?<![\w.,]){_MONEY}\s+(?:[a-z]+\s+)?(?:(?:of\s+)?each|de\s+chaque|de\s+cada|van\s+(?:elk|ieder)\w*)\b|"
    # A house number: "Nieuwe Binnenweg 141", "Landsberger Str. 301", "12 rue", "Calle Mayor 5".
    r"(?:\b[a-z]*(?:weg|straat|strasse|laan|plein|gracht|kade|platz|gasse|allee)|\b(?:str|street|road|rd|lane|avenue|ave))"
    r"\.?[ \t]+\d{1,4}[a-z]?\b|\b(?:rue|calle|avenida|via|carrer)[ \t]+(?:[a-z]+[ \t]+){0,3}\d{1,4}\b|"
    # A house number before its street: "61 NW Oregon Ave", "12 Kirkgate Road".
    r"(?<![\w.,])\d{1,5}[ \t]+(?:(?!(?:for|of|the|to|and|from|with|our|your|by|on|in)\b)[a-z]+[ \t]+){1,3}?"
    r"(?:street|st|avenue|ave|road|rd|lane|ln|boulevard|blvd|drive|dr|way|court|ct|place|pl|parkway|pkwy|square|sq)\b|"
    # Opening hours: "we're open from 8", "geöffnet ab 7".
    r"\b(?:open|opens|opened|geoeffnet|geoffnet|ouvert|abierto|open\s+vanaf)\s+(?:from|at|until|till|ab|bis|des|a\s+partir\s+de|desde|vanaf)\s+\d{1,2}(?:[.:]\d\d)?\b|"
    r"\b(?:tel|phone|fax|mob|mobil|mobile|telefon|telefono|telephone|gsm|t|m|p)\b\.?\s{0,3}:?\s{0,3}"
    r"\(?\+?\d{1,5}\)?(?:[ ./-]{1,2}\(?\d{1,5}\)?){0,6}(?!\w)"
    r"(?:[ \t]{0,2}[/,][ \t]{0,2}\(?\+?\d{1,5}\)?(?:[ .-]{1,2}\(?\d{1,5}\)?){1,6}(?!\w)){0,3}|"  # "... / 655 123 987"
    # A house number before its street: "14 rue des Marronniers", "12 avenue Foch".
    r"(?<![\w.,])\d{1,4}(?:[ \t]?(?:bis|ter))?,?[ \t]+(?:rue|avenue|boulevard|chemin|allee|impasse|quai)\b|"
    # What a pack holds is no count of packs: "500 per box", "1000 pcs/carton", "(à 500 Stück)".
    rf"(?<![\w.,]){_MONEY}\s*(?:(?:pcs|pieces|pc|stueck|stuck|stk|units|unites|unidades|stuks)\.?\s*)?"
    r"(?:per|/|pro|par|por|je|each\s+in\s+a)\s*(?:an?\s+|the\s+)?(?:box|boxes|carton|cartons|karton|kartons|boite|"
    r"caja|doos|pack|package|bag|pallet|palette|palet|roll|rolle)\b|"
    rf"\ba\s+{_MONEY}\s*(?:stueck|stuck|stk|pcs|pieces|st)\b\.?"
)
# A telephone number without its label: "+44 24 7655 0192", "06 12 34 56 78" (groups, 8 digits or more).
_PHONE = re.compile(r"(?:\+|\b00|(?<![\w.,+])0)\d{1,4}(?:[ ./-]{1,2}\(?\d{1,5}\)?){2,6}(?![\w,.]\d|\w)")
_PHONE_DIGITS = 8
# A PO line item's position: "1    250   EA   printed tee" (the count follows it).
_LINE_POSITION = re.compile(r"(?m)^[ \t]*\d{1,3}(?=[ \t]{2,}\d)")
# A North American telephone number: "(503) 555-0164", "503-555-0164", "503.555.0164".
_NANP_PHONE = re.compile(r"(?:\(\d{3}\)\s?|(?<![\w.,])\d{3}[-.])\d{3}[-.]\d{4}(?![\w.,]\d|\w)")


# A telephone number in groups of two to four digits, one of two at least: "972 55 01 90", "044 555 06 60".
_GROUPED_PHONE = re.compile(r"(?<![\w.,])\d{2,4}(?:[ .]\d{2,4}){2,5}(?![\w,]|\.\d)")
# A year said as one: "your offer from 2026", "seit 2019", "depuis 2020", "desde 2021".
_YEAR = re.compile(r"\b(?:from|in|since|of|year|seit|jahr|von|depuis|en|de|desde|sinds|van|uit)\s+(?:19|20)\d\d(?!\d)")
# A count and its spelling in brackets: "40 (forty)" is one count.
_SPELLED_AFTER = re.compile(r"(\d)\s*\(\s*[a-z][a-z -]{1,40}\)")


def _not_quantities(text: str) -> str:
    """``text`` without the numbers that cannot be how many (telephone numbers, times, money, ids...)."""
    text = _PHONE.sub(lambda m: " " if sum(c.isdigit() for c in m.group(0)) >= _PHONE_DIGITS else m.group(0), text)
    text = _NANP_PHONE.sub(" ", _LINE_POSITION.sub(" ", text))
    text = _GROUPED_PHONE.sub(
        lambda m: (
            " "
            if sum(c.isdigit() for c in m.group(0)) >= _PHONE_DIGITS and re.search(r"(?<!\d)\d\d(?!\d)", m.group(0))
            else m.group(0)
        ),
        text,
    )
    text = _SPELLED_BEFORE.sub(_digits_of_spelled, _SPELLED_AFTER.sub(r"\1", text))
    return _NOT_A_QUANTITY.sub(" ", _YEAR.sub(" ", text))


# A count spelled and then given in digits: "fifty (50)", "zweihundert (200)" -> the digits.
_SPELLED_BEFORE = re.compile(r"(?<![\w-])([a-z]+(?:[- ][a-z]+){0,3})\s*\((\d{1,6})\)")


def _digits_of_spelled(match: re.Match[str]) -> str:
    said = small_counts(spelled_numbers(f"{match.group(1)} x")).split()
    return f" {match.group(2)} " if said[-2:-1] == [match.group(2)] else match.group(0)


# A number that names a colour, a standard or a grade is no count: "RAL 9005", "Pantone 286", "DIN 912",
# "AISI 316", "NCS 2050"; so is one after any word in capitals ("PO 4471", "WB 27"), but a unit's ("PCS 50").
_DESIGNATION = re.compile(
    r"(?<![\w.,-])(?:(?i:ral|ncs|pantone|pms|din|iso|aisi|astm|sae|nen|ob|ral\s+classic|ral\s+design)"
    r"|(?!(?:PCS|PC|QTY|STK|ST|EA|UDS|UD|TOTAL|UNITS|KW|CW|WK|NO|NR|MAX|MIN|CA|APPROX|ASAP)\b)[A-Z]{2,5})"
    r"[ \u00a0#:-]{0,2}\d{1,6}(?![\w/-]|[.,]\d)"
)


# An id written with slashes or dashes between letters and digits: "HBC/2027/0412", "Q-2027-102".
_SLASHED_ID = re.compile(r"(?<![\w/-])(?=[\w/-]*[A-Za-z])(?=[\w/-]*\d)[A-Za-z0-9]+(?:[/-][A-Za-z0-9]+)+(?![\w/-])")


# A postcode before its town, after the street's comma or on the line under it: ", 69002 Lyon", ", 3511 NS Utrecht",
# "Große Elbstraße 59\n22767 Hamburg" (read as written: the town's capital letter).
_POSTCODE = re.compile(
    r"(?:(?<=,)|(?<=\d\n))[ \t]*(?:[A-Z]{1,2}-)?\d{4,5}(?:[ \t]?[A-Z]{2})?[ \t]+[A-Z][^\W\d_]+(?:[ -][A-Z][^\W\d_]+)?"
    r"(?=[ \t]*(?:[.,;)]|\n|\Z))"
)


def without_designations(text: str) -> str:
    """``text`` (as written, before folding) without numbers that name a colour, a standard, a code or a postcode."""
    return _DESIGNATION.sub(" ", _SLASHED_ID.sub(" ", _POSTCODE.sub(" ", text)))


# A number said to be the total: "1,000 pcs total", "total 1,000", "insgesamt 1.000", "en total 1 000".
_TOTAL_WORD = r"(?:total|insgesamt|gesamt|au\s+total|en\s+total|in\s+totaal|totaal)"
_TOTAL = re.compile(
    # "250 tea towels total", "1,000 pcs in total"
    NUMBER_CORE + rf"(?![.,]\d|\d)\s*(?:(?:{UNITS})\.?\s*|(?:[a-z][\w-]*\s+){{1,3}}?)?(?:in\s+)?{_TOTAL_WORD}\b"
    rf"|\b{_TOTAL_WORD}\s*:?\s*(?:of\s+)?" + NUMBER_CORE
)


# Packs of a count: "3 boxes of 50", "4 Kartons à 25", "2 cajas de 100", "5 dozen van 20" -> how many in all.
# "two boxes of 150": a count of packs spelled (two to ten, in the five languages).
_PACK_WORDS_SPELLED = {w: n for w, n in NUMBER_WORDS.items() if 2 <= n <= 10}
_PACKS = re.compile(
    rf"(?:{NUMBER_CORE}|(?<![\w'])({'|'.join(sorted(_PACK_WORDS_SPELLED, key=len, reverse=True))}))"
    r"\s{1,3}(?:boxes|box|packs|pack|packages|cartons|carton|bundles|bags\s+of|sets|rolls|"
    r"kartons?|packungen|pakete|schachteln|boites|paquets|lots|cajas|caja|paquetes|lotes|dozen|doosjes|pakken)"
    r"\s{1,3}(?:of|a|zu|mit|je|de|van|met)\s{1,3}" + NUMBER_CORE + r"(?![.,]?\d)"
    rf"(?:\s{{0,2}}(?:{UNITS})(?!\w))?"  # "two boxes of 150 units": the unit is the pack's, not a second count
)


def _packed(text: str) -> str:
    """``text`` with each count of packs written as the number of units: ``3 boxes of 50`` -> ``150``."""

    def total(match: re.Match[str]) -> str:
        packs = whole_number(match.group(1)) if match.group(1) else _PACK_WORDS_SPELLED[match.group(2)]
        each = whole_number(match.group(3))
        return match.group(0) if packs is None or each is None else str(packs * each)

    return _PACKS.sub(total, text)


# A year is no bare count: "same as last year but with 2027 on them".
_YEAR_SAID = re.compile(r"(?<![\w.,])(?:19[5-9]\d|20\d\d)(?![\w.,]\d|\w)")


def bare_quantities(text: str) -> list[str]:
    """Every number in ``text`` that could be how many (none of a date, a time, money, a share or an id)."""
    plain = _packed(
        spelled_numbers(
            _not_quantities(without_sizes(ANY_DATE.sub(" ", fold(without_years(without_designations(text))))))
        )
    )
    plain = _YEAR_SAID.sub(" ", without_past_orders(plain))
    # A number past any order's size ("655 123 987", a telephone number in thousands' groups) is none.
    return list(
        dict.fromkeys(m.group(1) for m in re.finditer(NUMBER, plain) if 1 <= (whole_number(m.group(1)) or 0) <= MOST)
    )


# A size or a material grade is no count: "6 x 30 mm", "16 h6 x 250", "M6", "1.4305", "20 mm", "bore 12 H7".
_SIZE = re.compile(
    # "60x 70mm stems" is 60 of the 70 mm stem: a size's "x" has spaces on both sides or none.
    r"(?<![\w.,])\d{1,4}(?:[.,]\d{1,2})?(?:\s{0,3}[a-z]{1,2}\d{1,2})?(?:(?:[x\u00d7*]|\s{1,3}[x\u00d7*]\s{0,3})\d{1,4}(?:[.,]\d{1,2})?)+"
    r"(?:\s{0,3}(?:mm|cm|m)\b)?|(?<![\w.,])\d{1,4}(?:[.,]\d{1,2})?\s{0,3}(?:mm|cm)\b"
)


# A year after a name is part of that name: "Northgate Music Festival 2027", "Jahrgang 2026" (read before folding).
_YEAR_OF_A_NAME = re.compile(r"(\b[A-Z][a-z]{1,30}[ \t])(?:19|20)\d\d(?![\d.,]|[ \u00a0\u202f']\d{3})")


def without_years(text: str) -> str:
    """``text`` without the years written after a capitalised name: they say which event, not how many."""
    return _YEAR_OF_A_NAME.sub(lambda m: m.group(1), text)


def without_sizes(text: str) -> str:
    """``text`` (folded) with sizes taken out: ``6 x 30 mm`` and ``20 mm`` say what a part is, not how many."""
    return _SIZE.sub(" ", text)


# After a labelled count, what is counted and a remark in brackets: "860 bars", "340 panels (max. 1450 x 2900 mm)",
# "6 (six)"; not packs ("2 pallets of 500" is asked about) nor a second number outside the brackets.
_LABELLED_WORDS = re.compile(
    r"\s+(?!(?:boxes|box|cartons?|kartons?|cajas?|boites?|packs?|packages?|bags?|pallets?|palettes?|paletten|"
    r"dozen|dozijn|doos|pakken|rolls?|rollen|sets?|lots?|x)\b)[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}\.?"
)


def labelled_number(value: str) -> int | None:
    """A labelled quantity's number, its unit allowed after it: ``1,500 pcs``, ``500 Stück``, ``2.000 unidades``,
    and what is counted after it (``860 bars``, ``6 (six)``)."""
    # "ochenta (80)", "10 (ten) units", "Two hundred and forty": the count, spelled or not.
    folded = _SPELLED_AFTER.sub(r"\1", spelled_numbers(fold(value).strip()))
    folded = re.sub(r"^[a-z][a-z -]{1,40}\((\d{1,6})\)", r"\1", folded)
    folded = small_counts(f"{folded} x")[:-2].strip() if re.fullmatch(r"[a-z]+(?:[- ][a-z]+)?", folded) else folded
    match = re.fullmatch(NUMBER_CORE + rf"\s*(?:(?:{UNITS})\.?)?", folded)
    if match is None:
        match = re.fullmatch(
            NUMBER_CORE + rf"\s*(?:(?:{UNITS})\.?)?(?:{_LABELLED_WORDS.pattern})?\s*(?:\([^()\d]*(?:\d[^()]*)?\))?",
            folded,
        )
    return whole_number(match.group(1)) if match else whole_number(value)
