"""The schedule before and after a plan as inline SVG: machines as rows, days as columns (no script).

Drawn in CSS pixels (no scaling), so its 12 px labels stay readable on a 390 px phone; two days fit the
width, more scroll sideways inside their own box while the page itself never does. Colours come from SVG
presentation attributes, which the page's Content-Security-Policy allows (style attributes it would not).
The drawing is hidden from screen readers; the same grid read out line by line (domain/planning/timeline)
follows it, so both say the same thing.
"""

from __future__ import annotations

from html import escape

from ..domain.planning.timeline import Block, Cell, Timeline, day_label, describe_timeline
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


def _day_w(days: int) -> int:
    """Two days share a phone's width; more keep a readable width and scroll sideways in their box."""
    return max(112, (FITS - LABEL_W) // max(days, 1)) if days <= 2 else 112


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


def _lines(block: Block, cell: Cell, room: int) -> list[str]:
    """The label lines of a block that fit its height: its name and hours, then what moved where."""
    warn = "\u26a0 " if block.at_risk and block.kind != "left" else ""
    first = f"{warn}{_MARK[block.kind]}{block.order_id} {hours(block.minutes)}"
    more = {
        "moved": f"from {_short(block, cell)}",
        "moving": "moves \u2192",
        "left": f"moved \u2192 {_short(block, cell)}",
        "new": "new order" + (", late" if block.at_risk else ""),
    }.get(block.kind, "")
    return [first, more][: max(1, room // LINE_H)] if more else [first]


def _block_h(block: Block, scale: float) -> int:
    return max(MIN_BLOCK_H, round(block.minutes * scale))


def _row_h(row: tuple[Cell, ...]) -> int:
    need = [sum(_block_h(b, (MIN_ROW_H - 2 * PAD) / c.capacity) for b in c.blocks) + 2 * PAD for c in row]
    return max(MIN_ROW_H, *need)


def _text(x: int, y: int, line: str, colour: str, *, weight: int = 400, size: int = 12) -> str:
    return (
        f'<text x="{x}" y="{y}" fill="{colour}" font-size="{size}" font-weight="{weight}" '
        f'font-family="{escape(FONT)}">{escape(line)}</text>'
    )


def _cell(cell: Cell, x: int, y: int, w: int, h: int) -> str:
    parts = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#ffffff" stroke="#cfcfcb"/>']
    if cell.closed:
        parts.append(f'<rect x="{x + 1}" y="{y + 1}" width="{w - 2}" height="{h - 2}" fill="#d5d5d1"/>')
        parts.append(_text(x + 8, y + 20, "closed", "#444444", weight=600))
        return "".join(parts)
    scale = (MIN_ROW_H - 2 * PAD) / cell.capacity
    top = y + PAD
    for block in cell.blocks:
        bh = _block_h(block, scale)
        fill, stroke, colour, dashed = _colours(block)
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        width = 2 if block.kind in ("new", "moved") or block.at_risk else 1
        parts.append(
            f'<rect x="{x + PAD}" y="{top}" width="{w - 2 * PAD}" height="{bh - 2}" rx="4" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width}"{dash}/>'
        )
        weight = 700 if block.kind == "new" else 600 if block.kind == "moved" else 400
        for i, line in enumerate(_lines(block, cell, bh - 2)):
            text = _fit(line, w - 2 * PAD - 8)
            parts.append(_text(x + PAD + 5, top + 13 + i * LINE_H, text, colour, weight=weight if i == 0 else 400))
        top += bh
    return "".join(parts)


def render_grid(timeline: Timeline, which: str) -> str:
    """One SVG: ``which`` is ``before`` or ``after``."""
    rows = timeline.before if which == "before" else timeline.after
    day_w = _day_w(len(timeline.days))
    heights = [_row_h(row) for row in rows]
    width = LABEL_W + day_w * len(timeline.days)
    height = HEADER_H + sum(heights) + 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-hidden="true" focusable="false" class="grid-{which}">'
    ]
    for i, day in enumerate(timeline.days):
        parts.append(_text(LABEL_W + i * day_w + 6, 15, day_label(day), "#1a1a1a", weight=600))
    y = HEADER_H
    for machine, row, h in zip(timeline.machines, rows, heights, strict=True):
        parts.append(_text(2, y + 18, machine, "#1a1a1a", weight=700, size=11))
        for i, cell in enumerate(row):
            parts.append(_cell(cell, LABEL_W + i * day_w, y, day_w, h))
        y += h
    parts.append("</svg>")
    return "".join(parts)


_LEGEND = (
    ("lg-new", "\u2605 the new order"),
    ("lg-moved", "\u21aa moved here (from where)"),
    ("lg-left", "the slot it left"),
    ("lg-risk", "\u26a0 at risk (late)"),
    ("lg-closed", "closed day"),
)


def render_timeline(timeline: Timeline) -> str:
    """The section: the two grids with a legend, then the same grid in words for screen readers."""
    if not timeline.machines:
        return ""
    legend = "".join(f'<li><span class="sw {klass}"></span>{escape(text)}</li>' for klass, text in _LEGEND)
    wide = len(timeline.days) * _day_w(len(timeline.days)) + LABEL_W > FITS
    hint = '<p class="small" aria-hidden="true">Later days: scroll the schedule sideways.</p>' if wide else ""
    words = "".join(f"<li>{escape(line)}</li>" for line in describe_timeline(timeline))
    return (
        '<section class="timeline"><h2>The schedule, before and after</h2>'
        f"{hint}"
        '<h3 aria-hidden="true">Before</h3>'
        f'<div class="tl">{render_grid(timeline, "before")}</div>'
        '<h3 aria-hidden="true">After this plan</h3>'
        f'<div class="tl">{render_grid(timeline, "after")}</div>'
        f'<ul class="legend" aria-hidden="true">{legend}</ul>'
        f'<ul class="sr" id="timeline-text" aria-label="The schedule before and after, in words">{words}</ul>'
        "</section>"
    )
