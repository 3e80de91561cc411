"""Counts spelled out, written as digits before the numbers of a request are read: "two hundred", "zweitausend",
"3 dozen", "cent cinquante", and counts under a hundred before a product's word ("zes tweekleurige frames")."""

from __future__ import annotations

import re

# Hundreds spelled out, as people write a round count: "two hundred", "one hundred and fifty", "zweihundert",
# "trois cents", "doscientos", "ciento cincuenta", "tweehonderd", "driehonderdvijftig" (folded text).
_DIGIT_WORDS = {
    "a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ein": 1, "zwei": 2, "drei": 3, "vier": 4, "fuenf": 5, "funf": 5, "sechs": 6, "sieben": 7, "acht": 8,
    "neun": 9, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9,
    "een": 1, "twee": 2, "drie": 3, "vijf": 5, "zes": 6, "zeven": 7, "negen": 9,
}  # fmt: skip
_TENS_WORDS = {
    "ten": 10, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "zehn": 10, "zwanzig": 20, "dreissig": 30, "vierzig": 40, "fuenfzig": 50, "funfzig": 50,
    "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90, "dix": 10, "vingt": 20, "trente": 30,
    "quarante": 40, "cinquante": 50, "soixante": 60, "diez": 10, "veinte": 20, "treinta": 30, "cuarenta": 40,
    "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90, "tien": 10, "twintig": 20,
    "dertig": 30, "veertig": 40, "vijftig": 50, "zestig": 60, "zeventig": 70, "tachtig": 80, "negentig": 90,
}  # fmt: skip
_SPANISH_HUNDREDS = {
    "cien": 100, "ciento": 100, "doscientos": 200, "doscientas": 200, "trescientos": 300, "trescientas": 300,
    "cuatrocientos": 400, "cuatrocientas": 400, "quinientos": 500, "quinientas": 500, "seiscientos": 600,
    "seiscientas": 600, "setecientos": 700, "setecientas": 700, "ochocientos": 800, "ochocientas": 800,
    "novecientos": 900, "novecientas": 900,
}  # fmt: skip
_DIGIT = "|".join(sorted(_DIGIT_WORDS, key=len, reverse=True))
_TENS = "|".join(sorted(_TENS_WORDS, key=len, reverse=True))
_SPELLED = re.compile(
    rf"(?<![\w-])(?:(?P<digit>{_DIGIT})[\s-]?)?(?P<hundred>hundred|hundert|honderd|cents?)"
    rf"(?:(?:[ -]and[ -]|und|en|[ -])?(?P<tens>{_TENS}))?(?![\w-])"
    rf"|(?<![\w-])(?P<spanish>{'|'.join(sorted(_SPANISH_HUNDREDS, key=len, reverse=True))})"
    rf"(?:\s(?:y\s)?(?P<spanish_tens>{_TENS}))?(?![\w-])"
)


_TEENS_WORDS = {
    "eleven": 11, "twelve": 12, "fifteen": 15, "elf": 11, "zwoelf": 12, "fuenfzehn": 15, "onze": 11, "douze": 12,
    "quinze": 15, "once": 11, "doce": 12, "quince": 15, "twaalf": 12, "vijftien": 15,
}  # fmt: skip
_THOUSANDS = {**_DIGIT_WORDS, **_TENS_WORDS, **_TEENS_WORDS}
# "ten thousand", "a thousand", "two and a half thousand", "zweitausend", "dix mille", "diez mil", "tienduizend"
# (mille and mil only with a count before them: alone they are too many other things).
_COUNT_WORDS = "|".join(sorted(_THOUSANDS, key=len, reverse=True))
_SPELLED_THOUSANDS = re.compile(
    rf"(?<![\w-])(?:(?P<count>{_COUNT_WORDS})(?P<half>\s+and\s+a\s+half)?[\s-]?|(?<!half\s)(?<!half-))"
    r"(?P<thousand>thousand|tausend|duizend)(?![\w-])"
    rf"|(?<![\w-])(?P<latin>{_COUNT_WORDS})\s(?:mille|mil)(?![\w-])"
)


def _spelled_thousands(text: str) -> str:
    def number(match: re.Match[str]) -> str:
        count = match.group("count") or match.group("latin")
        half = 500 if match.group("half") else 0  # "two and a half thousand"
        return str((_THOUSANDS[count] if count else 1) * 1000 + half)

    return _SPELLED_THOUSANDS.sub(number, text)


# Dozens: "3 dozen", "a dozen", "2 Dutzend", "deux douzaines", "tres docenas", "2 dozijn" (not "5 dozen van 20").
_DOZEN = re.compile(
    r"(?<![\w.,])(?P<count>\d{1,4}|a|one|two|three|four|five|six|ten|ein|zwei|drei|vier|fuenf|zehn|une|deux|trois|"
    r"quatre|cinq|dix|una|dos|tres|cuatro|cinco|diez|een|twee|drie|vier|vijf|tien)\s+"
    r"(?:dozen|dutzend|douzaines?|docenas?|dozijn)(?!\s+(?:van|of|a|de|zu|je)\s+\d)(?![\w-])"
)


def _dozens(text: str) -> str:
    def number(match: re.Match[str]) -> str:
        count = match.group("count")
        return str((int(count) if count.isdigit() else _DIGIT_WORDS.get(count, _TENS_WORDS.get(count, 1))) * 12)

    return _DOZEN.sub(number, text)


_ONE = {"one": 1, "un": 1, "une": 1, "una": 1, "uno": 1, "ein": 1, "eine": 1, "einen": 1, "een": 1}
_SMALL = {**_ONE, **{k: v for k, v in _DIGIT_WORDS.items() if v > 1}, **_TEENS_WORDS, **_TENS_WORDS}
_SMALL.update({"tres": 3, "dos": 2, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9})
_SMALL["treize"] = 13
_UNITS_WORD = "|".join(sorted((k for k, v in _SMALL.items() if v < 10), key=len, reverse=True))
_TENS_WORD = "|".join(sorted(_TENS_WORDS, key=len, reverse=True))
# "twenty-five", "vingt-cinq", "treinta y cinco", "fuenfundzwanzig", "vijfentwintig", "veinticinco", or one word.
_SMALL_COUNT = re.compile(
    rf"(?<![\w-])(?:(?P<tens>{_TENS_WORD})(?:-|\s+y\s+|\s+|-et-|\s+et\s+)(?P<unit>{_UNITS_WORD})"
    rf"|(?P<unit2>{_UNITS_WORD})(?:und|en)(?P<tens2>{_TENS_WORD})"
    r"|veinti(?P<veinti>uno|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve)"
    rf"|(?P<word>{'|'.join(sorted(_SMALL, key=len, reverse=True))}))"
    r"(?=\s+(?!(?:hundred|hundert|honderd|cents?|thousand|tausend|duizend|mille|mil|dozen|dutzend)\b)[a-z])(?![\w-])"
)


def small_counts(text: str) -> str:
    """``text`` (folded) with counts under a hundred spelled out before a word written as digits ("zes
    tweekleurige frames" -> "6 tweekleurige frames", "vingt-cinq plaques", "one grist hopper"): only a number
    next to a product's word is then read as how many."""

    def number(match: re.Match[str]) -> str:
        if match.group("tens"):
            return str(_TENS_WORDS[match.group("tens")] + _SMALL[match.group("unit")])
        if match.group("tens2"):
            return str(_TENS_WORDS[match.group("tens2")] + _SMALL[match.group("unit2")])
        if match.group("veinti"):
            return str(20 + _SMALL[match.group("veinti")])
        return str(_SMALL[match.group("word")])

    return _SMALL_COUNT.sub(number, text)


# "1k units", "2.5K pcs": thousands written with a k before a unit (not "the summer 10k shirts", "EUR 5k").
_K_THOUSANDS = re.compile(
    r"(?<![\w.,$\u20ac\u00a3])(\d{1,3})(?:[.,](\d))?\s?k(?=\s+(?:units?|pcs|pieces?|stueck|stuck|stk|ea|off|"
    r"unidades|piezas|pieces|stuks)(?![\w]))"
)


def _thousands(match: re.Match[str]) -> str:
    return str(int(match.group(1)) * 1000 + int(match.group(2) or 0) * 100)


def spelled_numbers(text: str) -> str:
    """``text`` (folded) with hundreds and thousands spelled out written as digits: ``two hundred`` -> ``200``,
    ``ten thousand`` -> ``10000``, ``3 dozen`` -> ``36``."""
    text = _dozens(_spelled_thousands(_K_THOUSANDS.sub(_thousands, text)))

    def number(match: re.Match[str]) -> str:
        if match.group("spanish"):
            tens = match.group("spanish_tens")
            return str(_SPANISH_HUNDREDS[match.group("spanish")] + (_TENS_WORDS[tens] if tens else 0))
        if (
            match.group("hundred").startswith("cent")
            and match.group("digit") in (None, "a", "one", "een", "ein")
            and not match.group("tens")
        ):
            return match.group(0)  # "per cent", "a cent": a share or money, not a count ("cent cinquante" is 150)
        if match.group("hundred") == "hundred" and match.group("digit") is None:
            return match.group(0)  # "twelve hundred": a count this reader does not spell, so none
        hundreds = _DIGIT_WORDS[match.group("digit")] if match.group("digit") else 1
        tens = match.group("tens")
        return str(hundreds * 100 + (_TENS_WORDS[tens] if tens else 0))

    return _SPELLED.sub(number, text)
