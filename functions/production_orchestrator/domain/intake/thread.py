"""A reply or a forward taken apart: the newest message, its signature, the messages it quotes.

    body -> newest message | signature (from "-- " or a closing such as "Best regards," / "Viele Grüße")
                           | earlier messages (from the first "> " line, "On ... wrote:", "Am ... schrieb",
                             "Le ... a écrit :", "El ... escribió:", "Op ... schreef", "---- Original Message
                             ----", "Begin forwarded message:", or a quoted "From: / Sent:" header block)

The newest message is what the customer asks now; each fact is taken from the newest message that states it
(a forward's note usually states none, so the forwarded request is read), never merged across messages.
"""

from __future__ import annotations

import re

from .dates import fold

_ATTRIBUTION = re.compile(
    r"^(?:on|am|le|el|op)\b.{3,300}\b(?:wrote|schrieb|a ecrit|escribio|schreef)\b[^:]{0,60}:\s*\Z"
    r"|^.{1,300}\b(?:wrote|schrieb|a ecrit|escribio|schreef)\s*:\s*\Z"
)
_SEPARATOR = re.compile(
    r"^(?:-{2,}|_{2,}|={2,}|\*{2,})?\s*(?:original message|forwarded message|urspruengliche nachricht|"
    r"weitergeleitete nachricht|message d'origine|message transfere|message original|mensaje original|"
    r"mensaje reenviado|oorspronkelijk bericht|doorgestuurd bericht)\s*(?:-{2,}|_{2,}|={2,}|\*{2,})?\s*\Z"
    r"|^(?:begin forwarded message|anfang der weitergeleiteten nachricht|debut du message reexpedie|"
    r"inicio del mensaje reenviado)\s*:?\s*\Z"
    r"|^_{8,}\s*\Z"
)
_FROM = re.compile(r"^\*?(?:from|von|de|van)\*?\s*:\s*\S")
_HEADER = re.compile(
    r"^\*?(?:sent|date|gesendet|datum|envoye|enviado|fecha|verzonden|to|an|a|para|aan|subject|betreff|objet|"
    r"asunto|onderwerp|cc)\*?\s*:"
)
_CLOSINGS = (
    r"(?:best|best regards|best wishes|kind regards|warm regards|regards|many thanks|thanks|thank you|thanks again|"
    r"cheers|sincerely|yours sincerely|yours faithfully|yours truly|faithfully|respectfully|"
    r"yours|all the best|greetings|thanks a lot|thanks so much|thanks in advance|"
    r"thank you in advance|thank you very much|with kind regards|with best regards|take care|speak soon|ta|br|"
    r"brgds|kind regds|"
    r"mit freundlichen gruessen|freundliche gruesse|viele gruesse|beste gruesse|liebe gruesse|herzliche gruesse|"
    r"gruesse|gruss|lg|vg|mfg|danke|vielen dank|danke schoen|danke im voraus|mit besten gruessen|schoene gruesse|"
    r"cordialement|bien cordialement|bien a vous|salutations|merci|merci beaucoup|amicalement|bonne journee|"
    r"merci d'avance|merci par avance|cordiales salutations|sinceres salutations|"
    r"saludos|un saludo|saludos cordiales|un cordial saludo|atentamente|gracias|muchas gracias|un abrazo|"
    r"gracias de antemano|gracias y un saludo|gracias y un abrazo|gracias y saludos|"
    r"met vriendelijke groet|met vriendelijke groeten|vriendelijke groet|groeten|groet|hartelijke groet|"
    r"beste groeten|groetjes|mvg|"
    r"bedankt|alvast bedankt|dank je wel|dank u wel)"
)
# Longest first: "thanks a lot" is one closing, not "thanks" and a sentence.
_CLOSING = "(?:" + "|".join(sorted(_CLOSINGS[3:-1].split("|"), key=len, reverse=True)) + ")"
_CLOSING_LINE = re.compile(rf"^(?P<closing>{_CLOSING})(?:\s*[,!.:;\-\u2013]\s*|\s+|\Z)(?P<rest>.*)\Z")
_NAME = re.compile(r"^[^\W\d_][^\W\d_'.\-]*(?:[ ,&'.\-]{1,3}[^\W\d_][^\W\d_'.\-]*){0,6}\.?\Z")
_MAX_INLINE_NAME_WORDS = 4
MAX_SIGNATURE_LINES = 8
MAX_MESSAGES = 20


def _is_marker(lines: list[str], index: int) -> bool:
    line = fold(lines[index].strip())
    if line.startswith(">"):
        return True
    joined = f"{line} {fold(lines[index + 1].strip())}" if index + 1 < len(lines) else line
    if _SEPARATOR.match(line) or _ATTRIBUTION.match(line) or (len(line) > 2 and _ATTRIBUTION.match(joined)):
        return True
    if _FROM.match(line):
        following = [fold(x.strip()) for x in lines[index + 1 : index + 6] if x.strip()]
        return sum(1 for x in following if _HEADER.match(x)) >= 2
    return False


def split_thread(body: str) -> tuple[str, str]:
    """``(newest, earlier)``: the newest message and everything it quotes or forwards, verbatim."""
    lines = body.split("\n")
    for index in range(len(lines)):
        if _is_marker(lines, index):
            return "\n".join(lines[:index]).strip("\n"), "\n".join(lines[index:]).strip("\n")
    return body.strip("\n"), ""


# What may follow a closing on its line and leave it a closing: "Thanks a bunch,", "Thank you very much and regards,".
_CLOSING_TAIL = frozenset(
    {"a", "lot", "bunch", "so", "much", "very", "again", "in", "advance", "and", "best", "kind", "warm", "regards"}
    | {"wishes", "for", "everything", "all", "your", "help", "you", "&", "mil", "million"}
)


def _closing(line: str) -> tuple[bool, str]:
    """Whether ``line`` is a closing ("Best regards," / "Best, Tom"), and the name that follows it on the line."""
    match = _CLOSING_LINE.match(fold(line.strip()).lstrip("\u00a1\u00bf"))  # "¡Gracias y un abrazo!"
    if match is None:
        return False, ""
    tail = re.findall(r"[\w&']+", match.group("rest"))
    if not tail or (len(tail) <= 5 and set(tail) <= _CLOSING_TAIL and not match.group("rest").rstrip().endswith(".")):
        return True, ""
    words = line.split()[len(match.group("closing").split()) :]
    rest = " ".join(words).strip(" ,!.-\u2013")
    named = (
        bool(words)
        and len(words) <= _MAX_INLINE_NAME_WORDS
        and _NAME.match(rest) is not None
        and all(w[0].isupper() for w in rest.replace(",", " ").split())
    )
    return named, rest if named else ""


def split_signature(newest: str) -> tuple[str, str]:
    """``(message, signature)``: the signature starts at a ``--`` line or a closing line ("Best regards,",
    "Best, Tom") followed by at most a few lines; without one the signature is empty."""
    lines = newest.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    for position, index in enumerate(filled):
        if len(filled) - position > MAX_SIGNATURE_LINES:
            continue
        if lines[index].strip() in ("--", "\u2014", "__") or _closing(lines[index])[0] or _signs(lines, index):
            return "\n".join(lines[:index]).strip("\n"), "\n".join(lines[index:]).strip("\n")
    return newest.strip("\n"), ""


# A phone number, an e-mail or web address, a postal code with its town: what a signature's lines hold.
_CONTACT = re.compile(
    r"(?:\+|\(0?\d)?\d[\d ().\-/]{6,}\d|[\w.+-]+@[\w-]+\.\w|www\.|https?://|\b[A-Z]{2}\s\d{5}\b|\b\d{4,5}\s[A-Z][a-z]"
)


def _signs(lines: list[str], index: int) -> bool:
    """A signature with no closing: a line that is only a name ("Mia"), the lines after it short and one of them
    a phone, an address or a web address."""
    line = lines[index].strip()
    if index == 0 or lines[index - 1].strip() or line.endswith("."):
        return False  # a name starts a block of its own ("...by Friday 30\nApril." is a sentence going on)
    if not (_NAME.match(line) and len(line.split()) <= 3 and all(w[0].isupper() for w in line.split())):
        return False
    after = [x for x in lines[index + 1 :] if x.strip()]
    return bool(after) and all(len(x) <= 100 for x in after) and any(_CONTACT.search(x) for x in after)


def signature_name(signature: str) -> str:
    """The name a signature gives ("Best, Tom" -> Tom; "Viele Grüße\\nMarco, Pizzeria Roma" -> the second
    line), or empty when it gives none a reader could take for a name."""
    lines = [line.strip() for line in signature.split("\n") if line.strip()]
    if not lines:
        return ""
    closing, inline = _closing(lines[0])
    if inline:
        return inline
    if not closing and lines[0] not in ("--", "\u2014", "__"):
        return ""
    for candidate in lines[1:3]:
        if _NAME.match(candidate) and len(candidate) <= 60 and candidate[0].isupper():
            return " ".join(candidate.rstrip(".").split())
    return ""


def _unquoted(block: str) -> str:
    lines = block.split("\n")
    filled = [line for line in lines if line.strip()]
    if filled and filled[0].lstrip().startswith(">"):
        return "\n".join(re.sub(r"^\s*> ?", "", line) for line in lines)
    return block


def _without_intro(block: str) -> str:
    """A quoted message without the marker that introduced it (attribution, separator, header block)."""
    lines = block.split("\n")
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index < len(lines) and not fold(lines[index].strip()).startswith(">"):
        marker = fold(lines[index].strip())
        index += 1
        if not (_FROM.match(marker) or _SEPARATOR.match(marker) or _ATTRIBUTION.match(marker)):
            index += 1  # an attribution wrapped over two lines
        while index < len(lines) and (_HEADER.match(fold(lines[index].strip())) or _FROM.match(fold(lines[index]))):
            index += 1
    return "\n".join(lines[index:])


def earlier_messages(earlier: str) -> list[tuple[str, str]]:
    """The messages in ``earlier`` (as :func:`split_thread` left them), newest first, unquoted, each with the
    ``Date:`` its quoted header block gives (empty when it gives none)."""
    found: list[tuple[str, str]] = []
    rest = earlier
    for _ in range(MAX_MESSAGES):
        if not rest.strip():
            break
        dated = header_date(rest)
        newest, rest = split_thread(_unquoted(_without_intro(rest)))
        message = split_signature(newest)[0]
        if message.strip():
            found.append((message, dated))
    return found


def header_date(block: str) -> str:
    """The ``Date:`` / ``Sent:`` value of a quoted message's header block (empty when there is none)."""
    for line in block.split("\n")[:8]:
        match = re.match(r"^\*?(?:date|sent|gesendet|datum|envoye|enviado|fecha|verzonden)\*?\s*:\s*(.+)\Z", fold(line))
        if match:
            return line.split(":", 1)[1].strip()
    return ""
