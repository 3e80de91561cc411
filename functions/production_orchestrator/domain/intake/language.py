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
