"""What an import changes: per kind of record (orders, closed orders, machines, materials, products), the ids
added, removed and changed, plus procurement and the shop's own settings. The revision is left aside."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .model import ProcurementTask, ShopState


@dataclass(frozen=True)
class Section:
    """What changed in one kind of record, by id."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass(frozen=True)
class ShopDiff:
    """What an import changes, per kind of record, plus the shop's own settings."""

    orders: Section
    closed_orders: Section
    machines: Section
    materials: Section
    products: Section
    procurement: bool
    settings: bool
    procurement_added: tuple[str, ...] = ()
    procurement_removed: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        """True when the import changes nothing."""
        sections = (self.orders, self.closed_orders, self.machines, self.materials, self.products)
        return not (any(sections) or self.procurement or self.settings)

    def lines(self) -> list[str]:
        """The diff for people: one line per kind and verb that changed."""
        out = []
        for name in ("orders", "closed_orders", "machines", "materials", "products"):
            section: Section = getattr(self, name)
            for verb in ("added", "removed", "changed"):
                ids = getattr(section, verb)
                if ids:
                    out.append(f"{name.replace('_', ' ')} {verb} ({len(ids)}): {', '.join(ids)}")
        for verb, lines in (("added", self.procurement_added), ("removed", self.procurement_removed)):
            if lines:
                out.append(f"procurement lines {verb} ({len(lines)}): {'; '.join(lines)}")
        if self.procurement and not (self.procurement_added or self.procurement_removed):
            out.append("procurement lines changed")
        if self.settings:
            out.append("the shop's name, time zone or operator address changed")
        return out or ["no change"]

    def to_json(self) -> dict[str, Any]:
        """The diff as plain data (``--json``)."""
        data: dict[str, Any] = {}
        for name in ("orders", "closed_orders", "machines", "materials", "products"):
            section: Section = getattr(self, name)
            data[name] = {
                "added": list(section.added),
                "removed": list(section.removed),
                "changed": list(section.changed),
            }
        data["procurement_changed"] = self.procurement
        data["procurement"] = {"added": list(self.procurement_added), "removed": list(self.procurement_removed)}
        data["settings_changed"] = self.settings
        return data


def _section(before: Iterable[Any], after: Iterable[Any], key: Callable[[Any], str]) -> Section:
    old = {key(x): x for x in before}
    new = {key(x): x for x in after}
    return Section(
        added=tuple(sorted(new.keys() - old.keys())),
        removed=tuple(sorted(old.keys() - new.keys())),
        changed=tuple(sorted(k for k in old.keys() & new.keys() if old[k] != new[k])),
    )


def purchase(task: ProcurementTask) -> str:
    """``600 THREAD-RED-40 needed by 2026-08-12 from orders@supplier.example``: one procurement line, for people."""
    return f"{task.quantity} {task.material} needed by {task.needed_by} from {task.supplier_email}"


def _lines(before: ShopState, after: ShopState) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The procurement lines ``after`` adds and removes (a line is its material, quantity, day and supplier)."""
    old, new = list(before.procurement), list(after.procurement)
    removed = []
    for task in old:
        if task in new:
            new.remove(task)
        else:
            removed.append(purchase(task))
    return tuple(purchase(t) for t in new), tuple(removed)


def shop_diff(before: ShopState, after: ShopState) -> ShopDiff:
    """What changes from ``before`` to ``after`` (the revision aside)."""
    added, removed = _lines(before, after)
    return ShopDiff(
        procurement_added=added,
        procurement_removed=removed,
        orders=_section(before.orders, after.orders, lambda o: o.id),
        closed_orders=_section(before.closed_orders, after.closed_orders, lambda c: c.order.id),
        machines=_section(before.machines, after.machines, lambda m: m.id),
        materials=_section(before.materials, after.materials, lambda m: m.id),
        products=_section(before.products, after.products, lambda p: p.code),
        procurement=before.procurement != after.procurement,
        settings=(before.name, before.timezone, before.operator_email)
        != (after.name, after.timezone, after.operator_email),
    )
