"""The language a customer wrote in (en, de, fr, es, nl), so the messages to them can be written in it.

Counted from common words of each language in the newest message; English when none stands out.
"""

from __future__ import annotations

import re

from ..shop.model import LANGUAGES, Language
from .dates import fold

_WORDS = {
    "en": "the and please we need could you for with by thanks would our of to is are hello hi can us them these "
    "this will be have like",
    "de": "und die der das bitte wir brauchen fuer mit bis danke ist sind ich sie hallo gruesse stueck unsere eine "
    "einen koennen koennten den dem zum zur noch auch nicht haben wuerden gerne liebe menge anzahl liefertermin "
    "guten tag herren damen brauchen benoetigen",
    "fr": "le la les et pour nous avons besoin avec merci bonjour des du vous est une pouvez svp cordialement "
    "pourriez serait il nos notre au aux sur d'ici ce cette produit quantite livraison faut voudrions",
    "es": "el los las y para con necesitamos gracias hola por favor una usted podrian saludos antes del nuestro "
    "nuestra nuestros es que necesitaria seria unidades producto cantidad fecha entrega buenos dias saludo un",
    "nl": "het een en voor met wij hebben nodig graag bedankt dank hallo groeten uiterlijk stuks jullie kunnen is "
    "zijn ons onze van de willen zouden beste aantal leverdatum artikel goedemiddag",
}
_COMMON: dict[Language, frozenset[str]] = {language: frozenset(_WORDS[language].split()) for language in LANGUAGES}
_MIN_HITS = 2


def detect_language(text: str) -> Language:
    """The language most of ``text``'s common words belong to (``en`` when none has at least two more)."""
    tokens = re.findall(r"[a-z']+", fold(text))
    scores = {language: sum(1 for t in tokens if t in words) for language, words in _COMMON.items()}
    best = max(LANGUAGES, key=lambda language: (scores[language], language == "en"))
    if best != "en" and scores[best] >= _MIN_HITS and scores[best] > scores["en"]:
        return best
    return "en"


# Who writes 04/06/2027 for 4 June: every country of the four other languages, and most English-writing ones;
# the United States (and Canada, the Philippines) write the month first. Signals are the sender's own: a country
# domain, a phone's country code, a company form, a US state and ZIP code.
_MONTH_FIRST_TLDS = frozenset({"us", "ca", "ph"})
_GENERIC_TLDS = frozenset({"com", "net", "org", "io", "co", "biz", "info", "example", "app", "dev", "shop", "store"})
_MONTH_FIRST_SIGNS = re.compile(
    r"(?<![\w+])\+1[\s.(-]|\(\d{3}\)\s?\d{3}-\d{4}|\b(?:Inc|LLC|Corp)\b\.?"
    r"|\b[A-Z]{2}[ \t]\d{5}(?:-\d{4})?\b(?![ \t]?\d)"  # a state and ZIP ("OR 97703"), not "CC\n07700 900 884"
)
_DAY_FIRST_SIGNS = re.compile(
    r"(?<![\w+])\+(?!1[\s.(-])\d{2,3}[\s.(-]|\b(?:Ltd|Limited|GmbH|AG|B\.?V|N\.?V|S\.?A|SARL|SAS|S\.?L|S\.?p\.?A|"
    r"S\.?r\.?l|ApS|A/S|AB|Oy|Sp\.\s?z\s?o\.?\s?o|plc|Pty|KG|e\.K|BVBA|SPRL)\b\.?"
)


# A telephone number written with a trunk 0 ("07700 900 884", "0113 496 0877", "06 12 34 56 78"): every country that
# dials one writes the day first; North American numbers never start with 0.
_TRUNK_PHONE = re.compile(r"(?<![\w+.,/-])0\d{1,4}(?:[ .-]\d{2,4}){1,4}(?![\w.,/-]?\d)")
_PHONE_DIGITS = 9


def _trunk_phone(text: str) -> bool:
    return any(sum(c.isdigit() for c in m.group(0)) >= _PHONE_DIGITS for m in _TRUNK_PHONE.finditer(text))


def writes_day_first(language: Language, sender: str, text: str) -> bool | None:
    """Whether the sender writes a numeric date day first (04/06/2027: 4 June; True) or month first (April 6;
    False): anyone writing German, French, Spanish or Dutch writes day first; in English the sender's own address,
    phone (a country code, or a trunk 0) or company tells, month first where anything says so. Unknown is None:
    an ambiguous date is then asked about, never guessed."""
    if language != "en":
        return True
    domain = sender.rsplit("@", 1)[-1].lower().rstrip(".") if "@" in sender else ""
    tld = domain.rsplit(".", 1)[-1] if "." in domain else ""
    if tld in _MONTH_FIRST_TLDS or _MONTH_FIRST_SIGNS.search(text):
        return False
    if (tld and tld not in _GENERIC_TLDS) or _DAY_FIRST_SIGNS.search(text) or _trunk_phone(text):
        return True
    return None
