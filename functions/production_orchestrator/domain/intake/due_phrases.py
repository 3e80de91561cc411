"""Due dates in a customer's sentences: after a lead word ("by", "bis", "avant le", "para el", "uiterlijk",
"needed", "delivery"...), said alone ("in 10 days", "end of next week"), or pointed back at ("... starts on 18
January, so we need them by then"); and the one date a labelled value holds among other words.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from datetime import date, timedelta

from .dates import (
    DATE_EXPRESSION,
    FROM_NOW_EXPRESSION,
    MONTH_END_EXPRESSION,
    RELATIVE_EXPRESSION,
    WEEK_END_EXPRESSION,
    fold,
    resolve_due,
    weekday_typos,
)
from .numbers import ANY_DATE
from .vocabulary import labels, prose

_DUE_LEAD = (
    r"(?:need(?:ed)?|in[- ]?hands?|target|arrival|due|delivery|ship(?:ping)?|dispatch|completion|finish)\s+date|"
    r"(?:required|requested|desired|preferred|wished|gewuenschte?r?)\s+(?:delivery|date|ship)(?:\s+date)?|"
    r"date\s+(?:required|needed|wanted)|ship\s+date|leverdatum|leveringsdatum|lieferdatum|liefertermin|"
    r"wunschtermin|date\s+de\s+livraison(?:\s+souhaitee)?|fecha\s+de\s+entrega(?:\s+deseada)?|"
    r"(?:ready\s+to\s+)?ship(?:ped)?(?:\s+(?:on|by))?|"
    r"ready\s+for\s+(?:pick-?up|collection|delivery|dispatch|shipping)(?:\s+(?:on|by))?|"
    r"(?:ready|done|finished|completed|back|klaar|gereed|fertig|pret|prets|prete|listos?|listas?|terminados?)"
    r"(?:\s+(?:on|by|for|am|bis|zum|op|le|pour\s+le|el|para\s+el))?|"
    r"due\s+date\s+(?:\w+\s+){0,4}?is|"
    r"by|before|until|till|for|needed|required|wanted|no\s+later\s+than|need\s+(?:them|it|these|those)|"
    r"need(?:ed)?\s+(?:(?:them|it|these|those)\s+)?(?:on\s+site|here|in\s+store|in\s+hand|delivered)(?:\s+(?:on|by))?|"
    r"delivery(?:\s+(?:on|by|date))?|deliver(?:ed)?(?:\s+(?:on|by|at))?|lieferung(?:\s+(?:am|bis(?:\s+zum)?))?|"
    r"liefern(?:\s+(?:am|bis))?|livraison(?:\s+(?:souhaitee\s+)?(?:le|pour\s+le))?|livrer(?:\s+le)?|"
    r"entrega(?:\s+el)?|entregar(?:\s+el)?|como\s+muy\s+tarde(?:\s+el)?|levering(?:\s+op)?|leveren(?:\s+op)?|on\s+or\s+before|due(?:\s+(?:on|by))?|deadline\s*:?|latest|"
    r"bis(?:\s+(?:zum|zur|spaetestens|spatestens))?|spaetestens(?:\s+(?:am|bis))?|spatestens|vor|zum|"
    r"avant(?:\s+le)?|pour(?:\s+le)?|d'ici(?:\s+le)?|au\s+plus\s+tard(?:\s+le)?|jusqu'au|le|"
    r"para(?:\s+el)?|antes\s+del?|a\s+mas\s+tardar(?:\s+el)?|hasta(?:\s+el)?|el|"
    r"voor|vóór|uiterlijk(?:\s+op)?|tegen|op"
)
_WEAK_LEADS = frozenset({"le", "el", "op", "am", "zum", "on", "the"})
# "Installation is planned for week 14, so we need them by Monday 5 April": a date said only "for" gives way to
# one said as needed by (either alone is the due date).
_PLAIN_LEADS = frozenset({"for", "pour", "pour le", "para", "para el", "voor", "tegen"})
_DUE = re.compile(
    rf"(?<![\w'])(?P<lead>{_DUE_LEAD})(?:\s*:\s*|\s+)(?:(?:is|ist|est|es|wird|will\s+be|sera|ser[aá])\s+)?"
    # "para el día 12 de abril", "le jour 4 mai", "on the day 2 of April": the word "day" before the date.
    rf"(?:the\s+)?(?:(?:dia|jour|tag|dag|day)\s+)?(?P<phrase>{DATE_EXPRESSION})"
    r"(?![\w'-]|\s+(?:after|following|afterwards|danach|darauf|apres|suivant|despues|siguiente|daarna|erna)\b)"
    rf"|(?<![\w'])(?P<alone>{RELATIVE_EXPRESSION}|{WEEK_END_EXPRESSION}|{MONTH_END_EXPRESSION}|{FROM_NOW_EXPRESSION})",
)
# "need date 06/11/2027", "In-hands date: 06/04/2027", "Due date 6/18/2027": a date named as the due one.
# "We'd need them on 25/03/2027", "ready for pick-up on February 12", "Delivery to our warehouse on 06/04/2027":
# "on" a date in a clause that says what is needed or delivered (not what it is for: "for the fair on 15 May").
_ON_DUE = re.compile(
    r"(?<![\w'])(?:need\w*|requir\w*|want\w*|deliver\w*|ready|pick-?up|collect\w*|ship\w*|dispatch\w*|"
    r"in\s+store|on\s+site|brauchen|benoetig\w*|\w*liefer\w*|besoin|livr\w*|necesit\w*|entreg\w*|nodig|\w*lever\w*)"
    # Not what starts then: "the chef want to start with it on 1st May" is when the menu opens.
    r"(?:\s+(?!for\b|fuer\b|pour\b|para\b|voor\b|when\b|wenn\b|quand\b|cuando\b|als\b|start\w*\b|begin\w*\b|"
    r"launch\w*\b|open\w*\b|us(?:e|ing)\b|serv\w*\b)[^\s.,;!?()]+){0,7}?"
    rf"\s+(?:on|am|le|el|op)\s+(?:the\s+)?(?P<phrase>{DATE_EXPRESSION})(?![\w'-])"
)
# A PO's line item: "1     2500   EA   FIT-BR12C brass fitting 1/2"  05/14/2027" (position, columns, the date last).
_ROW = re.compile(r"[ \t]*\d{1,3}[ \t]{2,}\S")
_COLUMNS = re.compile(r"[ \t]{2,}")
_ONE_DATE = re.compile(rf"(?:{DATE_EXPRESSION})")


def _row_dates(folded: str) -> list[str]:
    """The date column of each line item of a PO table (the last column, a date alone)."""
    found = []
    for line in folded.splitlines():
        if _ROW.match(line):
            last = _COLUMNS.split(line.strip())[-1]
            if _ONE_DATE.fullmatch(last):
                found.append(last)
    return found


# A date with "at the latest" after it: "Friday 9 April latest", "11/6 at the latest", "le 4 mai au plus tard".
_LATEST = re.compile(
    rf"(?P<phrase>{DATE_EXPRESSION})\s*,?\s*(?:at\s+the\s+(?:very\s+)?latest|latest|spaetestens|spatestens|"
    r"au\s+plus\s+tard|como\s+muy\s+tarde|a\s+mas\s+tardar|uiterlijk)(?![\w'])"
    # "w/c 17 May, latest Friday 21st": "latest" leads the next date.
    r"(?!\s*,?\s*(?:on\s+|the\s+|am\s+|le\s+|el\s+|op\s+)?(?:\d|mon|tue|wed|thu|fri|sat|sun|mo|di|mi|do|fr|sa|so|lu|ma|me|je|ve))"
)
# A date the customer asks about: "Thursday the 25th works for us", "Would Wednesday 14th April work?", "Is
# volgende week woensdag haalbaar?", "¿Sería posible el viernes 5?".
_WORKS = re.compile(
    rf"(?P<phrase>{DATE_EXPRESSION})\s*,?\s+(?:works|would\s+work|will\s+work|suits|would\s+suit|is\s+fine|"
    r"(?:is|would\s+be)\s+(?:ok|okay|possible|feasible|fine)|haalbaar|mogelijk|moeglich|possible|posible)"
    r"(?![\w'])"
)
_ASKED = re.compile(
    rf"(?<![\w'])(?:would|could|will|does|is|ist|est|es|seria|ware|waere)\s+(?:the\s+)?(?P<phrase>{DATE_EXPRESSION})"
    r"\s+(?:work|be\s+(?:ok|okay|possible|feasible|fine)|suit|haalbaar|mogelijk|moeglich|possible|posible)(?![\w'])"
)
# A date something is valid until (a quote, an offer) is no date anything is needed by.
_VALID_UNTIL = re.compile(
    r"(?<![\w'])(valid\w*|good|gueltig\w*|gultig\w*|valable\w*|valid[oa]s?|validez|geldig\w*)"
    r"(\s+(?:\w+\s+){0,2}?)(?:until|till|through|thru|to|bis|jusqu'au|jusqu'a|hasta|tot)(?![\w'])"
)


def one_day_in(value: str, anchor: date, day_first: bool | None = None) -> date | None:
    """The one day a labelled value names among other words ("2027-01-16 at the latest", "Friday, please")."""
    days = {resolve_due(m.group(0), anchor, day_first=day_first) for m in ANY_DATE.finditer(fold(value))} - {None}
    return days.pop() if len(days) == 1 else None


# A due date said by pointing back at a date just written: "assembly starts on 18 January, so we need them by
# then", "Montage beginnt am 25.01., daher ... bis dahin".
_THEN = re.compile(
    # ("well before then", "long before then": some time before, no day.)
    r"(?<![\w'])(?<!well )(?<!long )(?<!way )(?:(?:by|before|until|till)\s+then|by\s+that\s+(?:date|day|time)|"
    r"bis\s+dahin|"
    r"bis\s+zu\s+diesem\s+(?:tag|termin|datum)|d'ici\s+la|avant\s+cette\s+date|pour\s+cette\s+date|"
    r"para\s+entonces|antes\s+de\s+esa\s+fecha|para\s+esa\s+fecha|tegen\s+die\s+tijd|voor\s+die\s+datum|"
    r"op\s+die\s+datum)(?![\w'])"
)
_THEN_REACH = 300


def _days_referred_to(text: str, anchor: date, day_first: bool | None) -> dict[date, str]:
    """The day each "by then" points at: the last date written before it in the same few lines."""
    dates = [(m.end(), m.group(0)) for m in ANY_DATE.finditer(text)]
    ends = [end for end, _ in dates]
    found: dict[date, str] = {}
    for match in _THEN.finditer(text):
        before = bisect_right(ends, match.start())
        if before and match.start() - ends[before - 1] <= _THEN_REACH:
            day = resolve_due(dates[before - 1][1], anchor, day_first=day_first)
            if day is not None:
                found.setdefault(day, f"{dates[before - 1][1]} ({match.group(0)})")
    return found


# "before the weekend" and its translations: the Friday of the week it is written in (on a weekend, no guess).
_BEFORE_WEEKEND = re.compile(
    r"(?<![\w'])(?:before|by|vor\s+dem|bis\s+zum|avant\s+le|d'ici\s+le|antes\s+del|para\s+el|voor\s+het|"
    r"tegen\s+het)\s+(?:the\s+)?(?:weekend|wochenende|week-end|fin\s+de\s+semana)(?![\w'])"
)
_FRIDAY = 4


# A sentence about what comes to the shop, and when ("Artwork will come through WeTransfer by Thursday", "die
# Daten schicken wir bis Montag"), that says nothing of what is needed: its dates are not due dates.
_INBOUND_THING = re.compile(
    r"\b(?:artwork|files?|drawings?|proofs?|daten|druckdaten|fichiers?|maquettes?|archivos?|bestanden|"
    r"materials?|materiaal|(?:name\s+|guest\s+)?list|\w*liste|lista|\w*lijst|names|namen|noms|nombres)\b"
)
_INBOUND_COMING = re.compile(
    r"\b(?:will\s+(?:come|arrive|be\s+(?:sent|uploaded))|comes?|coming|arriv\w*|sen[dt]|upload\w*|schick\w*|"
    r"e-?mail\w*|mail\w*|forward\w*|share|provide|supply|"
    r"send\w*|komm\w*|envo\w*|llega\w*|envi\w*|stur\w*|komen|komt|follows?|will\s+follow|folgt|suivra|suit|"
    r"seguira|sigue|volgt|(?:will\s+)?receive|erhalten|recevrez|recibir\w*|ontvang\w*)\b"
)
_NEEDED = re.compile(
    r"\b(?:need|needed|require|required|want|brauchen|benoetig\w*|besoin|necesit\w*|nodig|ready|fertig|klaar|"
    r"prete?s?|listos?|back|with\s+us|deliver\w*|\w*liefer\w*|livr\w*|entreg\w*|\w*lever\w*|due)\b"
)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")


# The customer's goods on their way to the shop: "12 frames coming your way", "they'll be at the coaters by Friday".
_INBOUND_GOODS = re.compile(
    r"\b(?:coming|come|comes|be|are|arriv\w*|get|gets|delivered|dropp?\w*|bring\w*)\s+(?:\w+\s+){0,2}?"
    r"(?:your\s+way|to\s+you|at\s+(?:your|the\s+coat\w*|the\s+shop|the\s+works)|with\s+you|bei\s+(?:euch|ihnen|dir)|"
    r"chez\s+vous|a\s+vosotros|bij\s+jullie)\b"
)
# What a date is for, said after "so": "by 12 May so the fitters can put them up before the weekend" (over a
# wrapped line; a blank line, a list item or a label ends it).
_REASON = re.compile(
    r"(?<![\w'])(?:so\s+that|so|damit|sodass|afin\s+que|pour\s+que|para\s+que|zodat|omdat)\s"
    r"(?:[^.!?\n]|\n(?![ \t]*(?:\n|[-*\u2022]|\w[\w ]{0,30}:)))*"
)


def _without_inbound(folded: str) -> str:
    def inbound(sentence: str) -> bool:
        arriving = _INBOUND_THING.search(sentence) and _INBOUND_COMING.search(sentence)
        return bool(arriving or _INBOUND_GOODS.search(sentence)) and not _NEEDED.search(sentence)

    return _SENTENCE.sub(lambda m: " " if inbound(m.group(0)) else m.group(0), folded)


# A month's or week's end said vaguely is no day: "sometime around the end of May", "ergens eind mei", "irgendwann
# Ende Mai", "vers la fin mai", "hacia finales de mayo" (the reader asks).
_VAGUE_END = re.compile(
    r"(?<![\w'])(?:sometime|some\s+time|around|roughly|towards|toward|ergens|omstreeks|rond|irgendwann|gegen|etwa|vers|"
    r"hacia|sobre|"
    r"alrededor\s+de)\s+(?:(?:the|in|de|het|la|le|los)\s+){0,2}(?=(?:end|ende|fin|finales|eind|einde)\b)"
)


def due_days(text: str, anchor: date, day_first: bool | None = None) -> dict[date, str]:
    """The due dates ``text`` states, each with the words that state it (``day_first``: see resolve_due); a
    reason's dates ("so the fitters can ... before the weekend") only when nothing else says one."""
    folded = _VAGUE_END.sub(lambda m: f"{m.group(0)}_", weekday_typos(fold(text)))
    folded = _without_inbound(_VALID_UNTIL.sub(lambda m: f"{m.group(1)}{m.group(2)}_", folded))
    reasons = _REASON.sub(lambda m: m.group(0) if _NEEDED.search(m.group(0)) else " ", folded)
    return _due_days(reasons, anchor, day_first) or _due_days(folded, anchor, day_first)


def _due_days(folded: str, anchor: date, day_first: bool | None) -> dict[date, str]:
    by_day: dict[date, str] = {}
    for match in _BEFORE_WEEKEND.finditer(folded):
        if anchor.weekday() <= _FRIDAY:
            by_day.setdefault(anchor + timedelta(days=_FRIDAY - anchor.weekday()), match.group(0))
    weak: dict[date, str] = {}
    plain: dict[date, str] = {}
    alone: dict[date, str] = {}
    for match in _DUE.finditer(folded):
        phrase = match.group("phrase") or match.group("alone")
        day = resolve_due(phrase, anchor, day_first=day_first)
        if day is not None:
            # "el jueves", "le 4 mai", "op vrijdag": a date said with an article only, when another is said as due
            # ("para el viernes 30"), is when something else happens; so is one said with no lead word ("two
            # weddings on at the end of the month ... need them here by Saturday the 23rd").
            lead = " ".join((match.group("lead") or "").split())
            kind = (
                alone
                if match.group("alone")
                else weak
                if lead in _WEAK_LEADS
                else plain
                if lead in _PLAIN_LEADS
                else by_day
            )
            kind.setdefault(day, phrase)
    said = [(m.group("phrase"), m.group(0)) for p in (_LATEST, _WORKS, _ASKED, _ON_DUE) for m in p.finditer(folded)]
    for phrase, words in [*said, *((phrase, phrase) for phrase in _row_dates(folded))]:
        if (day := resolve_due(phrase, anchor, day_first=day_first)) is not None:
            by_day.setdefault(day, words)
    for day, phrase in _days_referred_to(folded, anchor, day_first).items():
        by_day.setdefault(day, phrase)
    return by_day or alone or plain or weak


def read_due(text: str, anchor: date, day_first: bool | None, problems: list[str]) -> str | None:
    """The due date one message of a thread states (labelled and in sentences), as an ISO day; a labelled value
    that is no date when nothing else is (named by the resolver); several: each named in ``problems``."""
    seen: dict[str, str] = {}
    unread: list[str] = []
    for value in labels(text).get("due", []):
        day = resolve_due(value, anchor, day_first=day_first) or one_day_in(value, anchor, day_first)
        if day is None:  # "KW 24, spätestens Mittwoch, 16.06.2027": the one said as due
            said = due_days(value, anchor, day_first)
            day = next(iter(said)) if len(said) == 1 else None
        if day is None:
            unread.append(value)  # "Delivery: to our yard": no date, named only if nothing else says one
            continue
        seen.setdefault(day.isoformat(), f"{value} (labelled)" if value != day.isoformat() else value)
    for day, phrase in due_days(prose(text), anchor, day_first).items():
        seen.setdefault(day.isoformat(), phrase)
    if not seen and unread:
        return unread[0]  # not a date: named by the resolver
    # A labelled date this reader cannot settle ("Delivery date: 04/09/2027", from a sender whose order of day and
    # month is unknown) is never outvoted by a date in a sentence: both are named.
    seen.update({value: f"{value} (labelled)" for value in unread if ANY_DATE.search(fold(value))})
    if len(seen) > 1:
        problems.append(f"due date: the e-mail gives several ({'; '.join(seen.values())}); say which one")
        return None
    return next(iter(seen), None)
