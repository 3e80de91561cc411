"""Adversarial customer e-mails at the request length limit, shared by the intake's tests and its bench: each must
be read or refused quickly (every intake pattern runs in linear time), and refused ones write nothing."""

from __future__ import annotations

from production_orchestrator.domain.intake.customer_message import MAX_MIME_DEPTH, MAX_REQUEST_CHARS

HEAD = "From: Mia Berg <mia@club.example>\nDate: Mon, 10 Aug 2026 09:00:00 +0200\nSubject: order\nMIME-Version: 1.0\n"
ASK = "60 navy tote bags by Friday"
ROOM = MAX_REQUEST_CHARS - 400  # the body's text fills the limit, headers and the request beside it


def nested_mime(depth: int, body: str = ASK) -> str:
    """An e-mail whose text part sits ``depth`` multipart/mixed levels deep."""
    opening = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth))
    closing = "".join(f"\n--b{i}--" for i in reversed(range(depth)))
    return f"{HEAD}{opening}Content-Type: text/plain; charset=utf-8\n\n{body}{closing}\n"


def html(markup: str) -> str:
    return f"{HEAD}Content-Type: text/html; charset=utf-8\n\n{markup}\n"


def _fill(unit: str) -> str:
    return unit * (ROOM // len(unit))


HOSTILE: dict[str, str] = {
    "digit run before the product": _fill("7") + " navy tote bags by Friday",
    "spaced digits": _fill("1 ") + ASK,
    "grouped digits": _fill("1,000 ") + ASK,
    "digits and x": _fill("1x") + ASK,
    "repeated dashes": _fill("-") + "\n" + ASK,
    "repeated dots": _fill(".") + "\n" + ASK,
    "repeated colons": _fill("a:") + "\n" + ASK,
    "a label and spaces": "Quantity:" + _fill(" ") + "60\n" + ASK,
    "quote markers": _fill(">") + "\n" + ASK,
    "dates": _fill("12.12. ") + ASK,
    "numbers and words": _fill("12 navy ") + ASK,
    "phone-like groups": _fill("+1 22 ") + ASK,
    "space-grouped thousands": _fill("200 ") + ASK,
    "hundreds spelled out": _fill("two hundred ") + ASK,
    "packs of a count": _fill("3 boxes of ") + ".\n" + ASK,
    "weekday and day of month": _fill("friday the ") + ASK,
    "before the weekend": _fill("before the ") + ASK,
    "names and years": _fill("Festival 2027 ") + ASK,
    "need words before on": _fill("need them delivered ") + "on " + ASK,
    "reason clauses": _fill("so ") + ASK,
    "line items without a date": _fill("1  a  b\n") + ASK,
    "goods on their way": _fill("coming your ") + ASK,
    "two products counted over and over": _fill("12 navy tote bags and 12 white ") + ASK,
    "table rows": "| Item | Qty |\n|---|---|\n" + _fill("| a | 1 |\n") + ASK,
    "table cells": "| " + _fill("a | ") + "\n" + ASK,
    "open brackets": _fill("(") + ASK,
    "brackets over wrapped lines": _fill("(last order\n") + ASK,
    "clauses of earlier orders": _fill("the last lot of 20, ") + ASK,
    "a wrapped reason": _fill("so we\n") + ASK,
    "rough counts": _fill("about ") + ASK,
    "short weekdays": _fill("wed ") + ASK,
    "postcodes": _fill(", 12345 Lyon") + "\n" + ASK,
    "telephone numbers after a slash": "Tel. " + _fill("12 34 / ") + "\n" + ASK,
    "deep divs": html(_fill("<div>") + ASK),
    "deep tables": html(_fill("<table><tr><td>") + ASK),
    "deep styled spans": html(_fill('<span style="color:red">') + ASK),
    "unclosed end tags": html(_fill("</b>") + ASK),
    "MIME just too deep": nested_mime(MAX_MIME_DEPTH + 1),
    "MIME 2000 deep": nested_mime(2000),
}
REFUSED_MIME = ("MIME just too deep", "MIME 2000 deep")
