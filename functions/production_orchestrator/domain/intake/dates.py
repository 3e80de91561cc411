"""Due dates as people write them, in English, German, French, Spanish and Dutch, read against an anchor day
(the e-mail's ``Date:``, else the planning day).

    "2026-12-04", "04.12.2026", "15/12/2026", "December 4", "4 Dec 2026", "4. Dezember", "le 4 décembre",
    "4 de diciembre", "Friday", "Freitag", "vendredi", "next Friday", "tomorrow", "morgen", "demain",
    "mañana", "in 10 days", "in 10 Tagen", "dans 10 jours", "en 10 días", "binnen 10 dagen", "within 2 weeks"
    ->  an ISO day

A weekday means the first such day after the anchor ("by Friday" written on a Friday is a week later); a
day and month without a year mean the next such date on or after the anchor. ``15/12/2026`` is day first;
``12/04/2026`` (either could be the month) is unreadable, as is anything else this reader does not know and
any day past the calendar's end (None): the intake then names the due date rather than guess.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, timedelta

_MONTH_NAMES = (
    # English, German, French, Spanish, Dutch (accents are folded before matching)
    ("january", "jan", "januar", "janvier", "enero", "ene", "januari", "jaenner", "janner"),
    ("february", "feb", "februar", "fevrier", "fev", "febrero", "februari"),
    ("march", "mar", "maerz", "marz", "mars", "marzo", "maart", "mrt"),
    ("april", "apr", "avril", "avr", "abril", "abr"),
    ("may", "mai", "mayo", "mei"),
    ("june", "jun", "juni", "juin", "junio"),
    ("july", "jul", "juli", "juillet", "juil", "julio"),
    ("august", "aug", "aout", "agosto", "augustus"),
    ("september", "sep", "sept", "septembre", "septiembre", "setiembre"),
    ("october", "oct", "oktober", "okt", "octobre", "octubre"),
    ("november", "nov", "novembre", "noviembre"),
    ("december", "dec", "dezember", "dez", "decembre", "diciembre", "dic"),
)
MONTHS = {name: number for number, names in enumerate(_MONTH_NAMES, start=1) for name in names}
_WEEKDAY_NAMES = (
    ("monday", "montag", "lundi", "lunes", "maandag"),
    ("tuesday", "tue", "tues", "dienstag", "mardi", "martes", "dinsdag"),
    ("wednesday", "mittwoch", "mercredi", "miercoles", "woensdag"),
    ("thursday", "thu", "thurs", "donnerstag", "jeudi", "jueves", "donderdag"),
    ("friday", "fri", "freitag", "vendredi", "viernes", "vrijdag"),
    ("saturday", "samstag", "sonnabend", "samedi", "sabado", "zaterdag"),
    ("sunday", "sonntag", "dimanche", "domingo", "zondag"),
)
WEEKDAY_NAMES = {name: number for number, names in enumerate(_WEEKDAY_NAMES) for name in names}
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30,
    "a": 1, "an": 1,
    "ein": 1, "einer": 1, "einem": 1, "zwei": 2, "drei": 3, "vier": 4, "fuenf": 5, "funf": 5, "sechs": 6,
    "sieben": 7, "acht": 8, "zehn": 10, "vierzehn": 14,
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "dix": 10, "quinze": 15,
    "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "diez": 10, "quince": 15,
    "een": 1, "twee": 2, "drie": 3, "vijf": 5, "tien": 10, "veertien": 14,
}  # fmt: skip
_DAY_UNITS = ("days", "day", "tagen", "tage", "tag", "jours", "jour", "dias", "dia", "dagen", "dag")
_WEEK_UNITS = ("weeks", "week", "wochen", "woche", "semaines", "semaine", "semanas", "semana", "weken")
_TODAY = ("today", "heute", "aujourd'hui", "aujourdhui", "hoy", "vandaag")
_TOMORROW = ("tomorrow", "morgen", "demain", "manana")
_DAY_AFTER = ("the day after tomorrow", "uebermorgen", "ubermorgen", "apres-demain", "apres demain",
              "pasado manana", "overmorgen")  # fmt: skip


def fold(text: str) -> str:
    """``text`` in lower case with accents folded (``ä`` -> ``ae``... German, the rest dropped): the form
    dates, numbers and product words are matched in, so ``Décembre``, ``décembre`` and ``decembre`` agree."""
    if text.isascii():
        return text.lower()
    text = text.lower().replace("ß", "ss").replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")
    text = text.replace("\u2019", "'")
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


_ENGLISH_WEEKDAYS = tuple(names[0] for names in _WEEKDAY_NAMES)
_DAY_WORDS = frozenset({"today", "holiday", "birthday", "someday", "everyday", "midday", "payday", "yesterday",
                        "weekday", "workday", "heyday", "doomsday", "noonday"})  # fmt: skip
_DAY_WORD = re.compile(r"(?<![a-z])[a-z]{3,9}day(?![a-z])")


def _distance(a: str, b: str) -> int:
    """Levenshtein distance between two short words."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _weekday_of_typo(match: re.Match[str]) -> str:
    word = match.group(0)
    if word in WEEKDAY_NAMES or word in _DAY_WORDS:
        return word
    near = [d for d in _ENGLISH_WEEKDAYS if d[0] == word[0] and _distance(word, d) <= 2]
    return near[0] if len(near) == 1 else word


def weekday_typos(text: str) -> str:
    """``text`` (folded) with English weekdays typed wrong written right: "wenesday", "thrusday", "firday"."""
    return _DAY_WORD.sub(_weekday_of_typo, text)


def _alternatives(names: object) -> str:
    return "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))  # type: ignore[attr-defined]


_MONTH = _alternatives(MONTHS)
_WEEKDAY = _alternatives(WEEKDAY_NAMES)
_COUNT = r"\d{1,3}|" + _alternatives(NUMBER_WORDS)
_FORTNIGHT_UNITS = ("fortnights", "fortnight")
_UNIT = _alternatives(_DAY_UNITS + _WEEK_UNITS + _FORTNIGHT_UNITS)
_ORDINAL = r"(?:st|nd|rd|th|er|e|eme|o|a|ste)?\.?"
_NEXT = (
    r"(?:this\s+coming|next|this|coming|naechsten|nachsten|naechster|kommenden|kommender|diesen|prochain|el\s+proximo|"
    r"proximo|este|volgende|deze|aanstaande|komende)"
)
# "next week" and "this week" in the five languages (the week a "end of" or a weekday falls in).
_NEXT_WEEK = (
    r"next\s+week|the\s+following\s+week|naechste[rn]?\s+woche|nachste[rn]?\s+woche|kommende[rn]?\s+woche|"
    r"semaine\s+prochaine|la\s+semaine\s+prochaine|(?:la\s+)?proxima\s+semana|semana\s+que\s+viene|"
    r"volgende\s+week|komende\s+week"
)
_THIS_WEEK = (
    r"this\s+week|the\s+week|dieser\s+woche|der\s+woche|cette\s+semaine|la\s+semaine|esta\s+semana|"
    r"la\s+semana|deze\s+week|de\s+week"
)
_WEEK_OF = rf"{_NEXT_WEEK}|{_THIS_WEEK}"
_RELATIVE_LEAD = r"(?:in|within|innerhalb\s+von|innerhalb|binnen|dans|sous|d'ici|en|dentro\s+de|over)"
# "in 10 days" and its translations, without a lead word (no group names: it is embedded in other patterns).
RELATIVE_EXPRESSION = rf"{_RELATIVE_LEAD}\s+(?:{_COUNT})\s+(?:{_UNIT})\b"
# "end of next week", "Ende nächster Woche", "fin de la semaine prochaine", "eind volgende week" (no group names).
WEEK_END_EXPRESSION = rf"(?:the\s+)?(?:end|ende|fin|finales|eind)\s+(?:of\s+|de\s+(?:la\s+)?)?(?:{_WEEK_OF})\b"
# "two weeks from today", "10 days from now" (no group names).
# "a fortnight today", "a week tomorrow".
FROM_NOW_EXPRESSION = rf"(?:{_COUNT})\s+(?:days?|weeks?|fortnights?)\s+(?:from\s+(?:now|today)|today|tomorrow)(?![\w'])"
# "end of March", "end of next month", "Ende April", "Monatsende", "fin avril", "fin du mois", "finales de mayo",
# "eind mei", "einde van de maand": the month's last day (no group names: it is embedded in other patterns).
_MONTH_WORDS = r"month|monats|mois|mes|maand"
_MONTH_NEXT = r"next|coming|naechsten|nachsten|kommenden|volgende|komende"
MONTH_END_EXPRESSION = (
    rf"(?:the\s+)?(?:end|ende|fin|finales|eind|einde)\s+(?:of\s+|de[ls]?\s+|du\s+|van\s+)?(?:the\s+|la\s+|le\s+|de\s+)?"
    rf"(?:(?:this|dieses|deze|{_MONTH_NEXT})\s+)?(?:{_MONTH}|{_MONTH_WORDS})\b\.?"
    r"(?:\s+(?:prochain|que\s+viene|proximo))?(?:,?\s+\d{4}(?!\d))?|monatsende"
)
# One date expression; every alternative is a named group so resolve() knows which form it saw. It matches
# text that was folded (lower case, no accents).
# A weekday written before the date it names ("Thursday 21 January", "Dienstag, 26.01.2027"): part of that date.
# ("Friday week, the 16th", "this coming Wednesday (28th)": the weekday, and the date that settles which.)
# "Wed 24 Feb", "Mon 1st March", "Sat. 3 April": a weekday's short name, read only before the date it names ("mon"
# is also French for "my", "sat" and "wed" English words).
SHORT_WEEKDAYS = {"mon": 0, "wed": 2, "sat": 5, "sun": 6, "mo": 0, "di": 1, "mi": 2, "fr": 4}
_ANY_WEEKDAY = _alternatives({**WEEKDAY_NAMES, **SHORT_WEEKDAYS})
_WEEKDAY_BEFORE = (
    rf"(?:(?:(?:{_NEXT}\s+)?(?:{_WEEKDAY})(?:\s+week)?|(?:{_alternatives(SHORT_WEEKDAYS)})(?![\w']))\.?,?\s{{1,3}}\(?"
    rf"(?:the\s+|den\s+|der\s+|le\s+|el\s+|de\s+)?(?=\d|(?:{_MONTH})\b))"
)
_WEEKDAY_PREFIX = re.compile(
    rf"^(?:{_NEXT}\s+)?(?P<weekday>{_ANY_WEEKDAY})(?![\w'])(?:\s+week)?\.?,?\s{{1,3}}\(?"
    rf"(?:the\s+|den\s+|der\s+|le\s+|el\s+|de\s+)?"
)
# A weekday of a calendar week, or the week alone (its Friday): "Freitag KW 15", "week 14", "semaine 15/2027".
_WEEK_NUMBER = r"(?:kw|cw|wk|week|woche|semaine|semana)\s*\.?\s*\d{1,2}(?!\d)(?:\s*/\s*(?:\d{4}|\d{2}))?"
DATE_EXPRESSION = (
    rf"{_WEEKDAY_BEFORE}?(?:"
    r"(?P<iso>\d{4}-\d{1,2}-\d{1,2})"
    r"|(?P<numeric>\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})(?![\d.]\d)|\d{1,2}\.\d{1,2}\.(?!\d)|\d{1,2}/\d{1,2}(?![\d/]))"
    rf"|(?P<month_day>(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?![\d:])(?:,?\s+\d{{4}})?)"
    rf"|(?P<day_month>(?:1er|\d{{1,2}}{_ORDINAL})\s+(?:of\s+|de\s+)?(?:{_MONTH})\b\.?(?:,?\s+(?:de\s+)?\d{{4}})?)"
    r"|(?P<day_of_month>\d{1,2}(?:st|nd|rd|th)(?![\w]))"
    rf"|(?P<relative>{RELATIVE_EXPRESSION})"
    rf"|(?P<from_now>{FROM_NOW_EXPRESSION})"
    rf"|(?P<named>day\s+after\s+tomorrow|{_alternatives(_DAY_AFTER)}|{_alternatives(_TOMORROW)}|{_alternatives(_TODAY)})(?![\w'-])"
    rf"|(?P<month_end>{MONTH_END_EXPRESSION})"
    rf"|(?P<week_end>{WEEK_END_EXPRESSION})"
    rf"|(?P<iso_week>(?:(?:{_WEEKDAY})\.?,?\s+(?:(?:in|of|der|de\s+la|van|en)\s+)?)?{_WEEK_NUMBER})"
    rf"|(?P<weekday_of_week>(?:{_WEEKDAY})\b,?\s+(?:of\s+|de\s+(?:la\s+)?)?(?:{_NEXT_WEEK})\b|(?:{_WEEKDAY})\s+week(?![\w]))"
    rf"|(?P<weekday>(?:{_NEXT}\s+(?:week\s+|woche\s+|semaine\s+|week\s+)?)?(?:{_WEEKDAY})\b(?:\s+prochain\b)?)"
    r")"
)
_DATE = re.compile(rf"^(?:{DATE_EXPRESSION})\Z")
_LEAD = re.compile(
    r"^(?:(?:at\s+the\s+latest|no\s+later\s+than|latest|by|before|until|till|on|for|due|deadline|the|"
    r"bis\s+zum|bis\s+zur|bis\s+spaetestens|bis|spaetestens|am|vor\s+dem|vor|zum|"
    r"au\s+plus\s+tard\s+le|au\s+plus\s+tard|avant\s+le|avant|pour\s+le|pour|le|d'ici\s+le|d'ici|jusqu'au|"
    r"a\s+mas\s+tardar\s+el|a\s+mas\s+tardar|para\s+el|para|antes\s+del|antes\s+de|el|hasta\s+el|"
    r"uiterlijk\s+op|uiterlijk|voor|op|tegen)\s*:?\s+)+"
)


def _count(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text]


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_day(anchor: date, month: int, day: int, year: str | None) -> date | None:
    if year:
        number = int(year) + (2000 if len(year) == 2 else 0)
        return _day(number, month, day)
    found = _day(anchor.year, month, day)
    if found is None or found >= anchor:
        return found
    return _day(anchor.year + 1, month, day)


def _numeric_days(text: str, anchor: date) -> list[date]:
    """The days a numeric date can be: one, or (04/12, either could be the month) day first, then month first."""
    parts = [p for p in re.split(r"[./-]", text) if p]
    first, second = int(parts[0]), int(parts[1])
    year = parts[2] if len(parts) > 2 else None
    if "/" in text and first <= 12 and second <= 12 and first != second:
        readings = (_month_day(anchor, second, first, year), _month_day(anchor, first, second, year))
        return [day for day in readings if day is not None]
    day, month = (second, first) if "/" in text and second > 12 else (first, second)
    found = _month_day(anchor, month, day, year)
    return [found] if found is not None else []


def _numeric(text: str, anchor: date, day_first: bool | None) -> date | None:
    days = _numeric_days(text, anchor)
    if len(days) == 1:
        return days[0]
    if len(days) == 2 and day_first is not None:
        return days[0] if day_first else days[1]
    return None  # 04/12 is April 12 in one country and 4 December in the next: not a guess to make


def _month_end(text: str, anchor: date) -> date | None:
    """The last day of the month ``text`` names ("end of March": the next March's end on or after the anchor) or
    counts ("end of the month": this one; "end of next month": the one after)."""
    tokens = re.findall(r"[a-z]+|\d{4}", text)
    named = next((MONTHS[w] for w in tokens if w in MONTHS), None)
    if named is None:
        later = any(re.fullmatch(_MONTH_NEXT + r"|prochain|viene|proximo", w) for w in tokens)
        year, month = divmod(anchor.year * 12 + anchor.month - 1 + int(later), 12)
        month += 1
    else:
        years = [int(w) for w in tokens if w.isdigit()]
        year, month = (years[0] if years else anchor.year), named
    end = date(year, month, 1) + timedelta(days=31)
    end -= timedelta(days=end.day)
    if named is not None and not any(w.isdigit() for w in tokens) and end < anchor:
        return _month_end(f"{text} {anchor.year + 1}", anchor)
    return end


def _calendar(kind: str, text: str, anchor: date, day_first: bool | None = None) -> date | None:
    if kind == "iso":
        year, month, day = (int(p) for p in text.split("-"))
        return _day(year, month, day)
    if kind == "numeric":
        return _numeric(text, anchor, day_first)
    if kind == "day_of_month":  # "Friday the 19th": the first 19th from the anchor on
        number = int(re.findall(r"\d+", text)[0])
        found = _day(anchor.year, anchor.month, number)
        if found is not None and found >= anchor:
            return found
        month = anchor.month % 12 + 1
        return _day(anchor.year + (anchor.month == 12), month, number)
    tokens = re.findall(r"[a-z]+|\d+", text)
    month_number = next(MONTHS[w] for w in tokens if w in MONTHS)
    numbers = [w for w in tokens if w.isdigit()] or ["1"]  # "1er décembre"
    return _month_day(anchor, month_number, int(numbers[0]), numbers[1] if len(numbers) > 1 else None)


def _iso_week(text: str, anchor: date) -> date | None:
    """The weekday (the Friday when none is said) of calendar week N: this year's, or next year's when it is past."""
    week, *year = (int(n) for n in re.findall(r"\d+", text))
    weekday = next((WEEKDAY_NAMES[w] for w in re.findall(r"[a-z]+", text) if w in WEEKDAY_NAMES), 4)
    for number in [year[0] + (2000 if year[0] < 100 else 0)] if year else [anchor.year, anchor.year + 1]:
        try:
            day = date.fromisocalendar(number, week, weekday + 1)
        except ValueError:
            return None
        if year or day >= anchor:
            return day
    return None


def _relative(kind: str, text: str, anchor: date) -> date | None:
    if kind == "named":
        said = " ".join(text.split())
        return anchor + timedelta(days=0 if said in _TODAY else 1 if said in _TOMORROW else 2)
    tokens = text.split()
    if kind == "month_end":
        return _month_end(text, anchor)
    if kind == "iso_week":
        return _iso_week(text, anchor)
    if kind == "weekday_of_week" and re.search(r"[a-z]\s+week\Z", text):
        # "Monday week" (British): a week after the Monday "Monday" alone would be.
        target = next(WEEKDAY_NAMES[w] for w in tokens if w in WEEKDAY_NAMES)
        return anchor + timedelta(days=((target - anchor.weekday()) % 7 or 7) + 7)
    if kind in ("week_end", "weekday_of_week"):
        # The week after the anchor's (Monday to Sunday) for "next week", the anchor's own for "this week"; its end
        # is the Friday.
        later = re.search(_NEXT_WEEK, text) is not None
        monday = anchor - timedelta(days=anchor.weekday()) + timedelta(days=7 if later else 0)
        named = next((WEEKDAY_NAMES[w.strip(",")] for w in tokens if w.strip(",") in WEEKDAY_NAMES), 4)
        day = monday + timedelta(days=named)
        return day if day >= anchor else None  # "end of this week" written on a Saturday: not a guess to make
    if kind == "weekday":
        target = next(WEEKDAY_NAMES[w] for w in reversed(tokens) if w in WEEKDAY_NAMES)
        ahead = (target - anchor.weekday()) % 7 or 7
        return anchor + timedelta(days=ahead)
    number = next(_count(w) for w in (tokens[1:] if kind == "relative" else tokens) if w.isdigit() or w in NUMBER_WORDS)
    unit = 14 if any(w in _FORTNIGHT_UNITS for w in tokens) else 7 if any(w in _WEEK_UNITS for w in tokens) else 1
    # "a week tomorrow": a week from tomorrow.
    return anchor + timedelta(days=number * unit + (1 if kind == "from_now" and tokens[-1] in _TOMORROW else 0))


def resolve_due(phrase: str, anchor: date, *, day_first: bool | None = None) -> date | None:
    """The day ``phrase`` names, read against ``anchor``; None when it is not a date this reader knows or
    lies past the end of the calendar (year 9999 and "tomorrow"). ``day_first``: a numeric date either way
    round (04/06/2027) is read day first (True) or month first (False), as the sender's country writes it;
    unknown (None), only a weekday said with it ("Fri 9/4") settles it."""
    text = _LEAD.sub("", " ".join(weekday_typos(fold(str(phrase))).split())).rstrip(",;!")
    text = text if _DATE.match(text) else text.rstrip(".")
    match = _DATE.match(text)
    if match is None:
        return None
    kind = match.lastgroup or ""
    calendar = ("iso", "numeric", "month_day", "day_month", "day_of_month")
    said = _WEEKDAY_PREFIX.match(text) if kind in calendar else None
    if said is None and kind == "day_of_month":
        return None  # "for the 3rd time": a day of the month alone is read only with its weekday
    try:
        if said is None and kind in calendar:
            return _calendar(kind, text, anchor, day_first)
        if said is not None:
            weekday = {**WEEKDAY_NAMES, **SHORT_WEEKDAYS}[said.group("weekday")]
            rest = text[said.end() :]
            days = _numeric_days(rest, anchor) if kind == "numeric" else [_calendar(kind, rest, anchor)]
            # "Thursday 21 January" on a year where the 21st is a Wednesday: not a guess to make.
            fitting = [day for day in days if day is not None and day.weekday() == weekday]
            return fitting[0] if len(fitting) == 1 else None
        return _relative(kind, text, anchor)
    except OverflowError:  # a date past 9999-12-31: no such day to plan for
        return None
