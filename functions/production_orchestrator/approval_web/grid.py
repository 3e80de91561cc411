"""Machines as rows, days as columns, as inline SVG (no script): the one drawing of the plan's before/after
timeline (timeline.py) and of the whole shop's schedule (schedule_page.py).

Drawn in CSS pixels (no scaling), so its 12 px labels stay readable on a 390 px phone; two days fit the
width, more scroll sideways inside their own box while the page itself never does. Colours come from SVG
presentation attributes, which the page's Content-Security-Policy allows (style attributes it would not).
Every drawing is hidden from screen readers (``aria-hidden``); the page reads the same grid out in words.
A block of a pending plan links to that plan's entry on the page (``#plan-N``), out of the tab order (the
drawing is hidden from assistive technology): the entry itself is in the page's text for everyone else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from ..domain.planning.timeline import Block, Cell, day_label
from ..domain.shop.model import hours

LABEL_W = 58
FITS = 320  # CSS px a phone of 390 leaves the drawing (page and section padding)
HEADER_H = 22
MIN_ROW_H = 112
MIN_BLOCK_H = 18
LINE_H = 14
PAD = 3
FONT = "system-ui,-apple-system,'Segoe UI',Roboto,sans-serif"

# fill, stroke, text colour, dashed outline
_LOOK = {
    "kept": ("#e6e6e3", "#8a8a8a", "#1a1a1a", False),
    "new": ("#1f4e99", "#0d2c5e", "#ffffff", False),
    "moved": ("#dce8fb", "#1f4e99", "#0d2c5e", True),
    "moving": ("#ffffff", "#1f4e99", "#0d2c5e", True),
    "left": ("#ffffff", "#8a8a8a", "#555555", True),
}
_RISK = {"new": ("#9a5b00", "#5c3a00", "#ffffff"), "other": ("#fff1e0", "#b26b00", "#5c3a00")}
_MARK = {"new": "\u2605 ", "moved": "\u21aa ", "moving": "", "left": "", "kept": ""}


def day_width(days: int) -> int:
    """Two days share a phone's width; more keep a readable width and scroll sideways in their box."""
    return max(112, (FITS - LABEL_W) // max(days, 1)) if days <= 2 else 112


def scrolls(days: int) -> bool:
    """True when ``days`` columns are wider than a phone leaves the drawing (the page says to scroll)."""
    return days * day_width(days) + LABEL_W > FITS


def _fit(text: str, width: int, size: int = 12) -> str:
    """``text`` cut with an ellipsis to what ``width`` px hold at ``size`` px (the words list has it whole)."""
    room = int(width / (size * 0.56))
    return text if len(text) <= room else text[: max(room - 1, 1)] + "\u2026"


def _short(block: Block, cell: Cell) -> str:
    """Where a moved block came from (or went): the day, and the machine only when it is another one."""
    slot = block.other_first
    if slot is None:
        return "unscheduled"
    day = " ".join(day_label(slot.day).split()[:2])  # "Thu 13": the month is the column's
    return day if slot.machine == cell.machine else f"{slot.machine} {day}"


def _colours(block: Block) -> tuple[str, str, str, bool]:
    fill, stroke, text, dashed = _LOOK[block.kind]
    if block.at_risk and block.kind != "left":
        fill, stroke, text = _RISK["new" if block.kind == "new" else "other"]
    return fill, stroke, text, dashed


def _more(block: Block, cell: Cell) -> str:
    """The second label line: what moved where, or (a pending plan's block) which plan does it."""
    if block.plan:
        return {
            "new": f"plan {block.plan}: new order",
            "moved": f"plan {block.plan}: from {_short(block, cell)}",
            "moving": f"plan {block.plan} moves it",
        }.get(block.kind, f"plan {block.plan}")
    return {
        "moved": f"from {_short(block, cell)}",
        "moving": "moves \u2192",
        "left": f"moved \u2192 {_short(block, cell)}",
        "new": "new order" + (", late" if block.at_risk else ""),
    }.get(block.kind, "")


def _lines(block: Block, cell: Cell, room: int) -> list[str]:
    """The label lines of a block that fit its height: its name and hours, then what moved where."""
    warn = "\u26a0 " if block.at_risk and block.kind != "left" else ""
    first = f"{warn}{_MARK[block.kind]}{block.order_id} {hours(block.minutes)}"
    more = _more(block, cell)
    return [first, more][: max(1, room // LINE_H)] if more else [first]


def _block_h(block: Block, scale: float) -> int:
    return max(MIN_BLOCK_H, round(block.minutes * scale))


def _row_h(row: Sequence[Cell]) -> int:
    need = [sum(_block_h(b, (MIN_ROW_H - 2 * PAD) / c.capacity) for b in c.blocks) + 2 * PAD for c in row]
    return max(MIN_ROW_H, *need)


def text(x: int, y: int, line: str, colour: str, *, weight: int = 400, size: int = 12) -> str:
    """One SVG text element, escaped."""
    return (
        f'<text x="{x}" y="{y}" fill="{colour}" font-size="{size}" font-weight="{weight}" '
        f'font-family="{escape(FONT)}">{escape(line)}</text>'
    )


def _block(block: Block, cell: Cell, x: int, top: int, w: int, bh: int) -> str:
    fill, stroke, colour, dashed = _colours(block)
    dash = ' stroke-dasharray="5 3"' if dashed else ""
    width = 2 if block.kind in ("new", "moved") or block.at_risk else 1
    parts = [
        f'<rect x="{x + PAD}" y="{top}" width="{w - 2 * PAD}" height="{bh - 2}" rx="4" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{width}"{dash}/>'
    ]
    weight = 700 if block.kind == "new" else 600 if block.kind == "moved" else 400
    for i, line in enumerate(_lines(block, cell, bh - 2)):
        fitted = _fit(line, w - 2 * PAD - 8)
        parts.append(text(x + PAD + 5, top + 13 + i * LINE_H, fitted, colour, weight=weight if i == 0 else 400))
    if block.plan:  # the plan's entry on the page (out of the tab order: the entry is in the text too)
        return f'<a href="#plan-{block.plan}" tabindex="-1">{"".join(parts)}</a>'
    return "".join(parts)


def _cell(cell: Cell, x: int, y: int, w: int, h: int) -> str:
    parts = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#ffffff" stroke="#cfcfcb"/>']
    if cell.closed:
        parts.append(f'<rect x="{x + 1}" y="{y + 1}" width="{w - 2}" height="{h - 2}" fill="#d5d5d1"/>')
        parts.append(text(x + 8, y + 20, "closed", "#444444", weight=600))
        return "".join(parts)
    scale = (MIN_ROW_H - 2 * PAD) / cell.capacity
    top = y + PAD
    for block in cell.blocks:
        bh = _block_h(block, scale)
        parts.append(_block(block, cell, x, top, w, bh))
        top += bh
    return "".join(parts)


def draw_grid(
    days: Sequence[str],
    machines: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    *,
    klass: str,
    notes: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """One SVG: a row of cells per machine, a column per day; ``notes`` (day -> short lines, e.g. what is due)
    are written under the day's heading."""
    notes = notes or {}
    day_w = day_width(len(days))
    header = HEADER_H + LINE_H * max((len(notes.get(d, ())) for d in days), default=0)
    heights = [_row_h(row) for row in rows]
    width = LABEL_W + day_w * len(days)
    height = header + sum(heights) + 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-hidden="true" focusable="false" class="{escape(klass)}">'
    ]
    for i, day in enumerate(days):
        x = LABEL_W + i * day_w + 6
        parts.append(text(x, 15, day_label(day), "#1a1a1a", weight=600))
        for j, line in enumerate(notes.get(day, ())):
            parts.append(text(x, 15 + (j + 1) * LINE_H, _fit(line, day_w - 10, 11), "#5c3a00", weight=600, size=11))
    y = header
    for machine, row, h in zip(machines, rows, heights, strict=True):
        parts.append(text(2, y + 18, machine, "#1a1a1a", weight=700, size=11))
        for i, cell in enumerate(row):
            parts.append(_cell(cell, LABEL_W + i * day_w, y, day_w, h))
        y += h
    parts.append("</svg>")
    return "".join(parts)


_SWATCH = {"new": "lg-new", "moved": "lg-moved", "left": "lg-left", "moving": "lg-left", "risk": "lg-risk"}
_SWATCH |= {"closed": "lg-closed", "kept": ""}


def legend(entries: Sequence[tuple[str, str]]) -> str:
    """What the drawing's colours mean: (kind of block, or ``risk``/``closed``; words), as swatches the page's
    stylesheet colours. Hidden from readers: the words say it."""
    listed = "".join(
        f'<li><span class="{" ".join(("sw", _SWATCH[kind])).strip()}"></span>{escape(words)}</li>'
        for kind, words in entries
    )
    return f'<ul class="legend" aria-hidden="true">{listed}</ul>'
