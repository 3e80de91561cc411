"""The "Change the plan" form read into guidance, and the decision Lambda's reviser: it records the ask and wakes
the workflow, which plans the next version (services/deciding/ask_revision.py). No strands, no agent here.

    keep      order ids, comma-separated           -> Guidance.keep
    overtime  MACHINE:DAY:MINUTES, comma-separated  -> Guidance.overtime
    quantity, due, product, note                   -> the request's facts and the note
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..domain.errors import ValidationError
from ..domain.planning.guidance import Guidance, Overtime, read_guidance, read_overtime
from ..services.deciding.ask_revision import AskRevision, ask_revision
from ..services.deciding.review import LinkView
from ..services.runtime import Runtime


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _overtime(text: str) -> Overtime:
    machine, _, rest = text.partition(":")
    day, _, minutes = rest.rpartition(":")
    if not machine or not day or not minutes.isdigit():
        raise ValidationError(f"{text!r} is not MACHINE:DAY:MINUTES (e.g. EMB-01:2026-08-15:120)")
    return read_overtime(machine, day, int(minutes))


def guidance_of_form(form: Mapping[str, str]) -> Guidance:
    """The guidance the form's fields give (``ValidationError`` saying what is not well formed)."""
    quantity = form.get("quantity", "").strip()
    if quantity and not quantity.isdigit():
        raise ValidationError(f"the quantity {quantity!r} is not a whole number")
    return read_guidance(
        keep=tuple(dict.fromkeys(_items(form.get("keep", "")))),
        overtime=tuple(_overtime(item) for item in _items(form.get("overtime", ""))),
        quantity=int(quantity) if quantity else None,
        due=form.get("due", "").strip() or None,
        product=form.get("product", "").strip() or None,
        note=form.get("note", "").strip(),
    )


@dataclass(frozen=True)
class WorkflowRevise:
    """The decision Lambda's reviser: records the ask on the approval and wakes the workflow; returns no proposal
    hash yet (the workflow plans it) and the number of the version being planned."""

    rt: Runtime
    allowed: frozenset[str] | None = None

    def __call__(self, view: LinkView, form: Mapping[str, str]) -> tuple[str, int]:
        asked = ask_revision(self.rt, AskRevision(view, guidance_of_form(form), self.allowed))
        return "", asked.approval.successor_version
