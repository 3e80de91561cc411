"""Whether an e-mail asks for a new order at all. A cancellation, a change to an order the shop already holds,
or a question (what lead time, what price, "if we ordered 200, when...") is for a person: it waits as needs facts
with the reason, whoever read its facts (every provider passes resolve_request), and is never planned as an order.

    "Nous devons annuler notre commande de plaques ..."           -> cancellation
    "Please change order GW-27-0105 to 300 pieces"                 -> change of an order the shop holds
    "What's your lead time on guard panels? If we ordered 200..."  -> question
    "Can you do 60 guard panels for us? Needed by end of March."   -> an order (asked politely), read as one

Only the newest message counts (a quoted "cancel" is history); a person who completes the request
(``request complete``) has decided it is an order, and the reading stands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .dates import fold

# Asking to cancel, in the present ("please cancel", "nous devons annuler", "stornieren Sie"): a cancellation
# spoken of as past ("after last month's cancellation we need frames again") is no request to cancel.
_CANCEL = re.compile(
    r"(?<![a-z])(?:cancel|cancell?ing|annuler|annulons|annulez|stornieren|storniere|storniert\s+werden|anular|"
    r"anulamos|anulen|cancelar|cancelamos|cancelen|annuleren|annuleer|annuleert)(?![a-z])"
)
# The noun, with an order the shop holds: "Annulering order GW-27-0110", "cancellation of GW-27-0105".
_CANCELLATION = re.compile(r"(?<![a-z])(?:cancel\w*|annul\w*|storn\w*|anula\w*|cancela\w*)(?![a-z])")
_CHANGE = re.compile(
    r"(?<![a-z])(?:change|changing|modify|amend|increase|reduce|move|postpone|bring\s+forward|pull\s+\w+\s+in|"
    r"aender\w*|erhoeh\w*|reduzier\w*|verschieb\w*|vorzieh\w*|modifi\w*|augment\w*|redui\w*|decal\w*|avanc\w*|"
    r"report\w*|cambi\w*|aument\w*|adelant\w*|retras\w*|wijzig\w*|verhog\w*|verlag\w*|verplaats\w*|vervroeg\w*)"
    r"(?![a-z])"
)
# A change said as such: "from 1,000 to 1,400", "von 500 auf 800", "de 200 à 300", "de 200 a 300", "van 5 naar 8";
# or a change word beside an order word ("Change on PO 4500-7902", "wijziging van onze bestelling").
_FROM_TO = re.compile(
    r"(?<![a-z])(?:from|von|de|van)\s+[\d.,' ]*\d\s+(?:\w+\s+)?(?:to|auf|a|naar)\s+[\d.,' ]*\d(?![\d])"
)
_ORDER_WORD = r"(?:po|order|bestellung|auftrag|commande|pedido|bestelling)"
_CHANGE_OF_ORDER = re.compile(
    rf"(?<![a-z])(?:change|changes|amend\w*|modif\w*|aenderung|wijziging|cambio)\s*[:,-]?\s+(?:\w+\s+){{0,3}}?{_ORDER_WORD}(?![a-z])|"
    rf"(?<![a-z]){_ORDER_WORD}\s+[\w/.-]+\s*[-:,]?\s*(?:change|amendment|aenderung|modification|wijziging|cambio)(?![a-z])"
)
# What a question about an order asks (lead time, price, a quote) and the hypothetical that marks one.
_ASKS_ABOUT = re.compile(
    r"(?<![a-z])(?:lead\s*time|delivery\s+time|turnaround|how\s+long|how\s+soon|how\s+much|when\s+(?:could|can|would)"
    r"|price|pricing|quote|quotation|cost|lieferzeit|wie\s+lange|wann\s+(?:koennt|konnt|waer)|was\s+kostet|preis\w*|"
    r"angebot|delai|combien|prix|tarif\w*|devis|quand\s+(?:pourr|pouv)|plazo|cuanto|precio|presupuesto|cotizacion|"
    r"cuando\s+(?:podr|pued)|levertijd|hoe\s+lang|wat\s+kost|prijs|offerte|wanneer\s+(?:kunn|zou))(?![a-z])"
)
_HYPOTHETICAL = re.compile(
    r"(?<![a-z])(?:if\s+we\s+(?:ordered|were\s+to\s+order|order)|wenn\s+wir\s+\w+(?:\s+\w+){0,4}\s+bestellen\s+wuerden|"
    r"falls\s+wir|si\s+nous\s+command\w*|si\s+on\s+command\w*|si\s+pedimos|si\s+pidieramos|si\s+encargamos|"
    r"als\s+we\s+\w+(?:\s+\w+){0,4}\s+(?:bestellen|zouden\s+bestellen))(?![a-z])"
)
# Asking for a quote (an order may follow, once the price is known): decisive, whatever else the e-mail says.
_QUOTE_REQUEST = re.compile(
    r"(?<![a-z])(?:request\s+for\s+(?:a\s+)?(?:quote|quotation|price)|rfq|(?:send|give|make)\s+(?:us\s+|me\s+)?"
    r"(?:a|an|your)\s+(?:quote|quotation|offer|price)|(?:could\s+you\s+|please\s+|kindly\s+)+quote\s+(?:us|me|for|a\s+price|your\s+price|\d)|"
    r"bitte\s+um\s+(?:ein|ihr)\w*\s+angebot|angebotsanfrage|um\s+ein\s+angebot|"
    r"demande\s+de\s+(?:prix|devis|cotation)|(?:faire|envoyer|adresser)\s+(?:une|un|votre)\s+(?:offre|devis)|"
    r"(?:solicit\w*|envien|enviar|mandar|pedir)\s+(?:nos\s+)?(?:un\s+)?(?:presupuesto|cotizacion|oferta)|"
    r"(?:graag|verzoek\s+om)\s+(?:een\s+)?offerte|offerteaanvraag|offerte\s+aanvragen)(?![a-z])"
)
# Words that say "make it": with one of them the question marks are politeness ("could you make 60?").
_ORDERS = re.compile(
    r"(?<![a-z])(?:please\s+(?:make|produce|book|send|deliver|ship|supply|manufacture|register|schedule|proceed|"
    r"prepare|confirm\s+(?:an?\s+)?order)|go\s+ahead|place\s+(?:an?\s+)?order|(?:like|want|wish)\s+to\s+order|"
    r"we\s+(?:need|require|will\s+need)|our\s+order|purchase\s+order|bitte\s+(?:liefern|fertigen|produzieren)|"
    r"bestellen\s+(?:wir|hiermit)|wir\s+(?:brauchen|benoetigen)|merci\s+de\s+(?:livrer|produire|fabriquer)|"
    r"nous\s+(?:souhaitons|voudrions)\s+commander|nous\s+avons\s+besoin|necesitamos|queremos\s+pedir|"
    r"por\s+favor\s+(?:fabri|envi|prepar)|graag\s+(?:bestellen|leveren|maken)|wij\s+(?:bestellen|hebben)\s)"
)
_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|\Z)")


# A word that may be an order's id or reference ("GW-27-0110", "4500-7902", "VE/PO/2027/066").
_NAME_LIKE = re.compile(r"[a-z0-9](?:[a-z0-9._/#-]*[a-z0-9])?")


def not_an_order(text: str, held_names: Mapping[str, str]) -> str | None:
    """Why ``text`` (the newest message: subject and body) is not a request for a new order, or None;
    ``held_names``: the ids and references of the orders the shop holds, folded, each to how it is written."""
    folded = fold(text)
    held = [held_names[w] for w in _NAME_LIKE.findall(folded) if w in held_names]
    if _CANCEL.search(folded) or (held and _CANCELLATION.search(folded)):
        return "request: the e-mail asks to cancel; a person handles cancellations (nothing was planned)"
    if held and _CHANGE.search(folded):
        return (
            f"request: the e-mail asks to change order {held[0]}, which the shop already holds; a person "
            "changes it (nothing was planned)"
        )
    if _CHANGE_OF_ORDER.search(folded) or (_CHANGE.search(folded) and _FROM_TO.search(folded)):
        return "request: the e-mail asks to change an order; a person changes it (nothing was planned)"
    if _QUOTE_REQUEST.search(folded):
        return "request: the e-mail asks for a quote; an order follows once the customer places it"
    questions = [s for s in _SENTENCE.findall(folded) if s.rstrip().endswith("?")]
    asks = any(_ASKS_ABOUT.search(s) for s in questions) or _HYPOTHETICAL.search(folded) is not None
    if asks and not _ORDERS.search(folded):
        return "request: the e-mail asks a question (lead time, price, a quote) rather than placing an order"
    return None
