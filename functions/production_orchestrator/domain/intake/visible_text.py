"""The text of an HTML e-mail as its reader's mail client shows it, and 8-bit or mislabelled bytes decoded.

    <html> -> visible text: <head>, <style>, <script>, <template>, comments and CSS never;
              elements hidden by the ``hidden`` attribute or by inline CSS (display:none, visibility:hidden,
              font-size:0 or 1px, opacity:0, a zero height or width with overflow hidden, off-screen
              positioning, clip, text in its background colour) never; blocks and table rows become lines
              (under a header row, each cell labelled by its header), cells are spaced; a <blockquote> is
              quoted with ``> `` as a mail client sets it apart

What a person cannot see cannot be what they asked for: a hidden ``Quantity: 9999`` is not read.
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

_SKIPPED = frozenset({"head", "style", "script", "template", "title", "noscript", "object", "iframe", "svg"})
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "fieldset", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
        "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul",
    }
)  # fmt: skip
_CELL = frozenset({"td", "th"})
_MAX_TABLES = 32  # nested deeper than this, a table's rows are read as plain lines
# Elements a parser closes when the next one of the kind opens (<p>a<p>b, <li>a<li>b).
_SELF_CLOSING_SIBLINGS = frozenset({"p", "li", "dt", "dd", "tr", "td", "th", "option"})
_ZERO = r"0*\.?0+(?:px|pt|em|rem|%|ex|ch|vw|vh|mm|cm|in)?"
_HIDING = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|"
    rf"font-size\s*:\s*{_ZERO}\s*(?:!important)?\s*(?:;|$)|opacity\s*:\s*{_ZERO}\s*(?:!important)?\s*(?:;|$)|"
    r"mso-hide\s*:\s*all|color\s*:\s*transparent)",
    re.IGNORECASE,
)
# Text too small to read (a 1px font or less), moved off the screen, or clipped away is hidden as display:none is.
_TINY_FONT = re.compile(
    r"(?:^|;)\s*font-size\s*:\s*(?:0*\.\d+|0*1(?:\.0+)?)\s*(?:px|pt)\s*(?:!important)?\s*(?:;|$)", re.I
)
_OFF_SCREEN = re.compile(
    r"(?:^|;)\s*(?:(?:left|top|right|bottom|margin-left|margin-top|text-indent)\s*:\s*-\s*\d{3,}(?:\.\d+)?\s*"
    r"(?:px|pt|em|rem|%|vw|vh|cm|mm|in)?|transform\s*:\s*(?:translate[xy]?|scale)\s*\(\s*(?:-\s*\d{3,}|0\s*[,)]))",
    re.I,
)
_CLIPPED = re.compile(
    r"(?:^|;)\s*(?:clip\s*:\s*rect\s*\(\s*0(?:px)?[\s,]+0(?:px)?[\s,]+0(?:px)?[\s,]+0(?:px)?\s*\)|"
    r"clip-path\s*:\s*(?:inset\s*\(\s*(?:50|100)\s*%|circle\s*\(\s*0))",
    re.I,
)
_COLLAPSED = re.compile(rf"(?:^|;)\s*(?:max-)?(?:height|width)\s*:\s*{_ZERO}\s*(?:!important)?\s*(?:;|$)", re.I)
_OVERFLOW_HIDDEN = re.compile(r"overflow\s*:\s*hidden", re.IGNORECASE)
_NAMED_COLOURS = {"white": "#ffffff", "black": "#000000", "red": "#ff0000", "blue": "#0000ff", "yellow": "#ffff00"}


def _colour(value: str) -> str | None:
    value = value.strip().lower().removesuffix("!important").strip()
    if value in _NAMED_COLOURS:
        return _NAMED_COLOURS[value]
    if re.fullmatch(r"#[0-9a-f]{3}", value):
        return "#" + "".join(c * 2 for c in value[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", value):
        return value
    found = re.fullmatch(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*[\d.]+\s*)?\)", value)
    if found:
        return "#" + "".join(f"{min(int(n), 255):02x}" for n in found.groups())
    return None


def _declared(style: str, name: str) -> str | None:
    found = None
    for declaration in style.split(";"):
        key, _, value = declaration.partition(":")
        if key.strip().lower() == name:
            found = _colour(value)
    return found


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # Every open element with the state it leaves inside it (hidden, background, colour, quote depth), so
        # reading the state is one look at the top, however deep the markup nests.
        self.stack: list[tuple[str, bool, str, str, int]] = []
        self.open_tags: dict[str, int] = {}
        self.lines: list[str] = []
        self.line: list[str] = []
        self.depth_of_line = 0
        # Per open <table>: its header cells (a first row of <th>) and the open row's cells (is_th, text).
        self.tables: list[tuple[list[str], list[tuple[bool, list[str]]]]] = []

    def _state(self) -> tuple[bool, str, str, int]:
        if not self.stack:
            return False, "#ffffff", "", 0
        _, hidden, background, colour, depth = self.stack[-1]
        return hidden, background, colour, depth

    def _push(self, tag: str, state: tuple[bool, str, str, int]) -> None:
        self.stack.append((tag, *state))
        self.open_tags[tag] = self.open_tags.get(tag, 0) + 1

    def _pop(self) -> str:
        tag = self.stack.pop()[0]
        self.open_tags[tag] -= 1
        return tag

    def _break(self) -> None:
        text = " ".join("".join(self.line).split())
        if text or (self.lines and self.lines[-1]):
            self.lines.append("> " * self.depth_of_line + text if text else "")
        self.line = []

    def _end_row(self) -> None:
        """A table row read as its reader reads it: under a header row, each cell labelled by its header
        ("Quantity: 150"); a two-cell row whose first cell is a word or two, that word labelling the second."""
        if not self.tables or not self.tables[-1][1]:
            return
        header, cells = self.tables[-1]
        texts = [" ".join("".join(parts).split()) for _, parts in cells]
        self.tables[-1] = (header, [])
        if not header and len(cells) >= 2 and all(is_th for is_th, _ in cells):
            header.extend(texts)
            return
        if header and len(texts) == len(header):
            pairs = [(h, c) for h, c in zip(header, texts, strict=True) if h and c]
        elif len(texts) == 2 and texts[0] and texts[1] and len(texts[0]) <= 40 and not re.search(r"\d", texts[0]):
            pairs = [(texts[0], texts[1])]
        else:
            return
        self.line = []
        for label, value in pairs:
            self.lines.append(f"{label.rstrip(': ')}: {value}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SELF_CLOSING_SIBLINGS and self.stack and self.stack[-1][0] == tag:
            self._pop()
        if tag == "table" and len(self.tables) < _MAX_TABLES:
            self.tables.append(([], []))
        elif tag == "tr":
            self._end_row()
        elif tag in _CELL and self.tables and not self._state()[0]:
            self.tables[-1][1].append((tag == "th", []))
        if tag in _BLOCK or tag == "br":
            self._break()
        elif tag in _CELL:
            self.line.append(" ")
        if tag in _VOID:
            return
        values = {name.lower(): (value or "") for name, value in attrs}
        style = values.get("style", "")
        hidden = (
            tag in _SKIPPED
            or "hidden" in values
            or bool(_HIDING.search(style) or _TINY_FONT.search(style) or _OFF_SCREEN.search(style))
            or bool(_CLIPPED.search(style))
            or bool(_COLLAPSED.search(style) and _OVERFLOW_HIDDEN.search(style))
            or (tag == "font" and values.get("size", "").strip() in ("0", "-7"))
            or values.get("type", "").lower() == "hidden"
        )
        background = _declared(style, "background-color") or _declared(style, "background") or ""
        background = background or (_colour(values["bgcolor"]) or "" if "bgcolor" in values else "")
        colour = _declared(style, "color") or (_colour(values.get("color", "")) or "" if tag == "font" else "")
        was_hidden, inherited_background, inherited_colour, depth = self._state()
        if colour and not hidden:
            hidden = colour == (background or inherited_background)
        self._push(
            tag,
            (
                hidden or was_hidden,
                background or inherited_background,
                colour or inherited_colour,
                depth + (tag == "blockquote"),
            ),
        )

    def handle_endtag(self, tag: str) -> None:
        if tag in _CELL:
            self.line.append(" ")
        if tag == "tr" or (tag == "table" and self.tables):
            self._end_row()
        if tag == "table" and self.tables:
            self.tables.pop()
        if self.open_tags.get(tag):
            while self.stack and self._pop() != tag:
                pass
        if tag in _BLOCK:
            self._break()

    def handle_data(self, data: str) -> None:
        hidden, background, colour, depth = self._state()
        if hidden or (colour and colour == background):
            return
        if not "".join(self.line).strip():
            self.depth_of_line = depth
        self.line.append(data)
        if self.tables and self.tables[-1][1]:
            self.tables[-1][1][-1][1].append(data)


def visible_text(markup: str) -> str:
    """The text of ``markup`` a mail client shows: hidden elements, CSS and scripts left out (module doc)."""
    parser = _Visible()
    try:
        parser.feed(markup)
        parser.close()
    except (AssertionError, ValueError):  # html.parser on markup it cannot read: keep what was read
        pass
    parser._break()
    return "\n".join(parser.lines).strip("\n")


_WINDOWS = {"latin-1", "latin1", "iso-8859-1", "iso8859-1", "l1", "us-ascii", "ascii", "iso_8859-1", "cp819"}


def decode_bytes(payload: bytes, declared: str | None) -> str:
    """``payload`` as text: UTF-8 whenever it is valid UTF-8 (mail clients often declare Latin-1 or nothing
    for it), else the declared charset (Latin-1 read as Windows-1252, as browsers do), else Windows-1252."""
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        pass
    charset = (declared or "").strip().strip('"').lower()
    if charset in _WINDOWS or not charset:
        charset = "cp1252"
    try:
        codecs.lookup(charset)
    except LookupError:
        charset = "cp1252"
    if charset.replace("_", "-") in ("utf-8", "utf8"):
        charset = "cp1252"  # declared UTF-8 but not UTF-8: the usual culprit is Windows-1252
    return payload.decode(charset, "replace")


# A table typed in plain text (Markdown, or pasted from a spreadsheet): "| Item | Qty | Need by |" or "Item | Qty",
# a rule of dashes under it ("|---|---|", "-----+-----"), then its rows.
_RULE = re.compile(r"^[ \t]*[|+]?(?:[ \t]*:?-{3,}:?[ \t]*[|+])+(?:[ \t]*:?-{3,}:?[ \t]*)?\Z")


def _cells(line: str) -> list[str] | None:
    if "|" not in line:
        return None
    cells = [" ".join(c.split()) for c in line.strip().split("|")]
    cells = cells[1:] if line.strip().startswith("|") else cells
    return cells[:-1] if line.strip().endswith("|") else cells


def text_tables(text: str) -> str:
    """``text`` with each plain-text table read as an HTML one is: under its header row, each cell labelled by its
    header ("Qty: 500", "Need by: March 12, 2027"); a row of another width stays as written. One pass."""
    lines = text.split("\n")
    out: list[str] = []
    header: list[str] | None = None
    for index, line in enumerate(lines):
        cells = _cells(line) if not _RULE.match(line) else []
        if cells is None:
            header = None
            out.append(line)
            continue
        if not cells:  # the rule under a header
            if header is None:
                out.append(line)
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if header is None and _RULE.match(following):
            header = cells
            continue
        if header is not None and len(cells) == len(header):
            out += [f"{h.rstrip(': ')}: {c}" for h, c in zip(header, cells, strict=True) if h and c]
        else:
            out.append(line)
    return "\n".join(out)
