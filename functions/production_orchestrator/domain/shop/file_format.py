"""The shop file: read a JSON document into a :class:`ShopState` (every problem named by its JSON path) and
write a state back as the same document.

    JSON text -> (the CLI checks docs/shop.schema.json) -> shop_problems: references, duplicates, calendar,
    capacity -> ShopState (pydantic: types and ranges) -> the data dir's shop

``shop_problems`` never assumes the document is well-formed, so the schema's findings and these can be
reported together; nothing is written while any problem is left.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..errors import ShopFileError
from .model import DEFAULT_MIN_SPLIT_MINUTES, ID_PATTERN, WEEKDAYS, ShopState, parse_day

Problem = tuple[str, str]


def json_path(*parts: str | int) -> str:
    """``$.orders[3].schedule[0]`` from ``("orders", 3, "schedule", 0)``."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _entries(doc: Any, field: str) -> Iterator[tuple[int, dict[str, Any]]]:
    items = doc.get(field) if isinstance(doc, dict) else None
    if isinstance(items, list):
        for index, item in enumerate(items):
            if isinstance(item, dict):
                yield index, item


def _duplicates(doc: Any, field: str, key: str) -> tuple[list[Problem], dict[str, dict[str, Any]]]:
    problems: list[Problem] = []
    seen: dict[str, dict[str, Any]] = {}
    for index, item in _entries(doc, field):
        value = item.get(key)
        if not isinstance(value, str):
            continue
        if value in seen:
            problems.append((json_path(field, index, key), f"duplicate {key} {value!r}"))
        else:
            seen[value] = item
    return problems, seen


def _works(machine: dict[str, Any], day: str) -> str | None:
    """Why ``machine`` does not work on ``day`` (None when it does, or when that cannot be told)."""
    closed = machine.get("closed_days")
    if isinstance(closed, list) and day in closed:
        return "a closed day"
    weekdays = machine.get("weekdays")
    try:
        weekday = WEEKDAYS[parse_day(day).weekday()]
    except ValueError:
        return None
    if isinstance(weekdays, list) and weekday not in weekdays:
        return f"a {weekday}, which is not one of its working days"
    return None


def _name_key(name: str) -> str:
    """A product name as two names are compared: case, accents and spacing left out."""
    folded = unicodedata.normalize("NFD", name.casefold())
    return " ".join("".join(c for c in folded if not unicodedata.combining(c)).split())


def _alias_problems(doc: Any) -> list[Problem]:
    """An alias must name one product only: not one another product also has as an alias, code or description
    (a customer who writes it would otherwise name two products)."""
    owner: dict[str, str] = {}
    for _, product in _entries(doc, "products"):
        code = product.get("code")
        for name in (code, product.get("description")):
            if isinstance(name, str) and isinstance(code, str):
                owner.setdefault(_name_key(name), code)
    problems: list[Problem] = []
    for index, product in _entries(doc, "products"):
        code, aliases = product.get("code"), product.get("aliases")
        for a_index, alias in enumerate(aliases if isinstance(aliases, list) else []):
            if not isinstance(alias, str) or not isinstance(code, str):
                continue
            other = owner.setdefault(_name_key(alias), code)
            if other != code:
                problems.append(
                    (json_path("products", index, "aliases", a_index), f"alias {alias!r} also names {other}")
                )
    return problems


def _product_problems(doc: Any, machines: dict[str, Any], materials: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = _alias_problems(doc)
    for index, product in _entries(doc, "products"):
        for m_index, machine in enumerate(product.get("machines") or []):
            if isinstance(machine, str) and machine not in machines:
                problems.append((json_path("products", index, "machines", m_index), f"unknown machine {machine!r}"))
        for u_index, use in enumerate(product.get("materials") or []):
            material = use.get("id") if isinstance(use, dict) else None
            if isinstance(material, str) and material not in materials:
                problems.append(
                    (json_path("products", index, "materials", u_index, "id"), f"unknown material {material!r}")
                )
    return problems


def _allocation_problem(
    alloc: dict[str, Any], product: dict[str, Any] | None, machines: dict[str, Any]
) -> tuple[str, str] | None:
    machine_id, day = alloc.get("machine"), alloc.get("day")
    if not isinstance(machine_id, str):
        return None
    if machine_id not in machines:
        return "machine", f"unknown machine {machine_id!r}"
    allowed = product.get("machines") if product else None
    if isinstance(allowed, list) and machine_id not in allowed:
        code = product.get("code") if product else "?"
        return "machine", f"{machine_id} cannot make {code} (allowed: {', '.join(map(str, allowed))})"
    why = _works(machines[machine_id], day) if isinstance(day, str) else None
    return None if why is None else ("day", f"{machine_id} does not work on {day}: {why}")


def _schedule_problems(
    index: int, order: dict[str, Any], product: dict[str, Any] | None, machines: dict[str, Any]
) -> tuple[list[Problem], list[tuple[str, str, int, str]]]:
    """Problems of one order's schedule, and its usable allocations ``(machine, day, minutes, path)``."""
    problems: list[Problem] = []
    booked: list[tuple[str, str, int, str]] = []
    seen: set[tuple[Any, Any]] = set()
    schedule = order.get("schedule")
    for a_index, alloc in enumerate(schedule if isinstance(schedule, list) else []):
        if not isinstance(alloc, dict):
            continue
        path = json_path("orders", index, "schedule", a_index)
        slot = (alloc.get("machine"), alloc.get("day"))
        if slot in seen:
            problems.append((path, f"a second allocation on {slot[0]} for {slot[1]} (one per machine and day)"))
        seen.add(slot)
        found = _allocation_problem(alloc, product, machines)
        if found is not None:
            problems.append((f"{path}.{found[0]}", found[1]))
        minutes = alloc.get("minutes")
        machine, day = slot
        usable = found is None and isinstance(machine, str) and isinstance(day, str)
        if usable and isinstance(minutes, int) and not isinstance(minutes, bool):
            booked.append((str(machine), str(day), minutes, path))
    return problems, booked


def _order_problems(doc: Any, machines: dict[str, Any], products: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    load: dict[tuple[str, str], int] = defaultdict(int)
    last_path: dict[tuple[str, str], str] = {}
    for index, order in _entries(doc, "orders"):
        code = order.get("product")
        product = products.get(code) if isinstance(code, str) else None
        if isinstance(code, str) and product is None:
            problems.append((json_path("orders", index, "product"), f"unknown product {code!r}"))
        quantity = order.get("quantity")
        if isinstance(quantity, int) and quantity <= 0:
            problems.append((json_path("orders", index, "quantity"), f"quantity must be positive, got {quantity}"))
        found, booked = _schedule_problems(index, order, product, machines)
        problems += found
        for machine_id, day, minutes, path in booked:
            load[(machine_id, day)] += minutes
            last_path[(machine_id, day)] = path
    for (machine_id, day), minutes in sorted(load.items()):
        capacity = machines[machine_id].get("minutes_per_day")
        if isinstance(capacity, int) and minutes > capacity:
            problems.append(
                (last_path[(machine_id, day)], f"{machine_id} is booked {minutes} of {capacity} minutes on {day}")
            )
    return problems


def _procurement_problems(doc: Any, materials: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    for index, task in _entries(doc, "procurement"):
        material = task.get("material")
        if isinstance(material, str) and material not in materials:
            problems.append((json_path("procurement", index, "material"), f"unknown material {material!r}"))
    return problems


def shop_problems(doc: Any) -> list[Problem]:
    """What makes ``doc`` an inconsistent shop beyond its shape: duplicate ids, unknown references,
    schedules on machines a product cannot use or on days a machine does not work, overbooked days."""
    if not isinstance(doc, dict):
        return [("$", "a shop file is a JSON object")]
    problems: list[Problem] = []
    found, machines = _duplicates(doc, "machines", "id")
    problems += found
    found, materials = _duplicates(doc, "materials", "id")
    problems += found
    found, products = _duplicates(doc, "products", "code")
    problems += found
    found, open_orders = _duplicates(doc, "orders", "id")
    problems += found
    for index, closed in _entries(doc, "closed_orders"):
        order = closed.get("order")
        order_id = order.get("id") if isinstance(order, dict) else None
        if isinstance(order_id, str) and order_id in open_orders:
            problems.append((json_path("closed_orders", index, "order", "id"), f"order {order_id!r} is also open"))
    problems += _product_problems(doc, machines, materials)
    problems += _order_problems(doc, machines, products)
    problems += _procurement_problems(doc, materials)
    return problems


def _pydantic_problems(exc: PydanticValidationError) -> list[Problem]:
    return [
        (json_path(*(p for p in err["loc"] if isinstance(p, (str, int)))), err["msg"].removeprefix("Value error, "))
        for err in exc.errors(include_url=False, include_context=False, include_input=False)
    ]


def _covered(path: str, reported: list[Problem]) -> bool:
    """True when a problem at ``path``, or inside it, or around it (except the whole document), is reported."""
    for seen, _ in reported:
        if seen == "$":
            continue
        if path == seen or path.startswith((seen + ".", seen + "[")) or seen.startswith((path + ".", path + "[")):
            return True
    return False


def _added(found: list[Problem], reported: list[Problem]) -> list[Problem]:
    """``reported`` and each problem of ``found`` at a place nothing reported yet names (one message per field)."""
    out = list(reported)
    for problem in found:
        if not _covered(problem[0], out):
            out.append(problem)
    return out


_RECORD_PATH = re.compile(r"^\$\.(machines|materials|products|orders|procurement|closed_orders)\[(\d+)\]")


def _record_id(doc: Any, field: str, index: int) -> str | None:
    items = doc.get(field) if isinstance(doc, dict) else None
    if not isinstance(items, list) or index >= len(items) or not isinstance(items[index], dict):
        return None
    entry = items[index]
    if field == "closed_orders":
        entry = entry.get("order") if isinstance(entry.get("order"), dict) else {}
    value = entry.get({"products": "code", "procurement": "material"}.get(field, "id"))
    if not isinstance(value, str) or not value.strip():
        return None
    return value if ID_PATTERN.match(value) else repr(value[:40])


def named(doc: Any, problems: list[Problem]) -> list[Problem]:
    """Each problem's path with the id of the record it is in beside it: ``$.orders[5] (ORD-9).product``,
    so the owner finds the order they know, not only its position in the file."""
    out = []
    for path, message in problems:
        match = _RECORD_PATH.match(path)
        record = _record_id(doc, match.group(1), int(match.group(2))) if match else None
        if match and record is not None:
            path = f"{match.group(0)} ({record}){path[match.end() :]}"
        out.append((path, message))
    return out


def read_shop(doc: Any, *, schema_problems: list[Problem] | None = None) -> ShopState:
    """The shop ``doc`` describes, or ``ShopFileError`` listing every problem found, so nothing partial is
    ever returned. ``schema_problems`` (the JSON Schema's findings) come first, then the references and
    calendars (``shop_problems``), then what the model itself refuses (an unknown time zone, a day that is
    not a date): each field is named once, by the first check that found it."""
    problems = _added(shop_problems(doc), list(schema_problems or []))
    try:
        state = ShopState.model_validate(doc)
    except PydanticValidationError as exc:
        # Duplicates were already named with their exact path by shop_problems.
        problems = _added([p for p in _pydantic_problems(exc) if "duplicate" not in p[1]], problems)
        raise ShopFileError(named(doc, problems or _pydantic_problems(exc))) from None
    if problems:
        raise ShopFileError(named(doc, problems))
    return state


def write_shop(state: ShopState) -> dict[str, Any]:
    """``state`` as a shop document (what ``shop export`` writes and ``shop show --json`` prints)."""
    document = state.model_dump(mode="json", exclude_none=True)
    if document["staleness"] == "footprint":
        del document["staleness"]  # the default, as a file that never chose one reads
    if not document["closed_orders"]:
        del document["closed_orders"]  # the same document as before orders could close
    if document["min_split_minutes"] == DEFAULT_MIN_SPLIT_MINUTES:
        del document["min_split_minutes"]  # the default, as a file that never set it reads
    if not document["priority_from"]:
        del document["priority_from"]
    return document
