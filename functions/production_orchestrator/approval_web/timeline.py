"""The schedule before and after a plan as inline SVG (grid.py draws it): machines as rows, days as columns.

The drawing is hidden from screen readers; the same grid read out line by line (domain/planning/timeline)
follows it, so both say the same thing.
"""

from __future__ import annotations

from html import escape

from ..domain.planning.timeline import Timeline, describe_timeline
from .grid import draw_grid, legend, scrolls

_LEGEND = (
    ("new", "\u2605 the new order"),
    ("moved", "\u21aa moved here (from where)"),
    ("left", "the slot it left"),
    ("risk", "\u26a0 at risk (late)"),
    ("closed", "closed day"),
)


def render_grid(timeline: Timeline, which: str) -> str:
    """One SVG: ``which`` is ``before`` or ``after``."""
    rows = timeline.before if which == "before" else timeline.after
    return draw_grid(timeline.days, timeline.machines, rows, klass=f"grid-{which}")


def render_timeline(timeline: Timeline) -> str:
    """The section: the two grids with a legend, then the same grid in words for screen readers."""
    if not timeline.machines:
        return ""
    hint = (
        '<p class="small" aria-hidden="true">Later days: scroll the schedule sideways.</p>'
        if scrolls(len(timeline.days))
        else ""
    )
    words = "".join(f"<li>{escape(line)}</li>" for line in describe_timeline(timeline))
    return (
        '<section class="timeline"><h2>The schedule, before and after</h2>'
        f"{hint}"
        '<h3 aria-hidden="true">Before</h3>'
        f'<div class="tl">{render_grid(timeline, "before")}</div>'
        '<h3 aria-hidden="true">After this plan</h3>'
        f'<div class="tl">{render_grid(timeline, "after")}</div>'
        f"{legend(_LEGEND)}"
        f'<ul class="sr" id="timeline-text" aria-label="The schedule before and after, in words">{words}</ul>'
        "</section>"
    )
