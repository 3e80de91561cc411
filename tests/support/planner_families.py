"""Seeded shops of several families for the planner quality bench (scripts/bench_planner.py), each with an
unscheduled high-priority order ``NEW`` to plan. Written for the bench, apart from the generated shops the
scale bench uses (tests/support/generated_shops.py), so the planner is not only measured on shops shaped
like the ones it was tuned on.

    tight        a few machines booked to ~85% over the first two weeks; NEW due in 2-4 days
    chain        one or two machines, long orders with short slack: making room needs chain moves
    materials    NEW lacks a material with a 2-5 day lead time; due soon after it can arrive
    calendar     machines working mon-fri only, closed days; mixed unit times
    eligibility  products on one of several machines, unit times from 3 to 30 minutes
    overload     booked to ~95% with a big NEW: late whatever the plan, the question is how late
    small        many orders under an hour (the minimum split keeps them whole)
    horizon      booked to ~88% over the whole 90 days, with a NEW bigger than the days before its due date:
                 how late depends on how far chain and partial moves reach
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

PLANNING_DAY = "2026-03-02"  # a Monday
FAMILIES = ("tight", "chain", "materials", "calendar", "eligibility", "overload", "small", "horizon")
SIZES = {"s": (2, 10), "m": (3, 30), "l": (5, 70)}


def _day(offset: int) -> str:
    return (date.fromisoformat(PLANNING_DAY) + timedelta(days=offset)).isoformat()


def shop(family: str, size: str, seed: int) -> dict[str, Any]:
    """One shop document of ``family`` and ``size`` (s, m, l), the same for the same seed."""
    rng = random.Random(f"{family}-{size}-{seed}")
    machines, orders = SIZES[size]
    if family == "chain":
        machines = max(1, machines // 2)
    span = 88 if family == "horizon" else {"s": 8, "m": 12, "l": 16}[size]
    if family == "horizon":
        orders *= 2
    minutes_per_day = rng.choice((420, 480, 480, 600))
    ids = [f"M{i}" for i in range(machines)]
    doc: dict[str, Any] = {
        "name": f"{family}-{size}-{seed}",
        "timezone": "Europe/Berlin",
        "operator_email": "ops@bench.example",
        "machines": [_machine(rng, family, m, minutes_per_day, span) for m in ids],
        "materials": [
            {"id": f"MAT{i}", "on_hand": 100_000, "supplier_email": "s@supply.example", "lead_time_days": 3}
            for i in range(4)
        ],
        "products": [],
        "orders": [],
    }
    units = {"eligibility": (3, 30), "calendar": (4, 20), "small": (2, 6)}.get(family, (4, 18))
    for i in range(max(3, machines + 1)):
        count = 1 if family == "eligibility" else rng.randint(1, min(3, machines))
        doc["products"].append(
            {
                "code": f"P{i}",
                "description": f"product {i}",
                "machines": sorted(rng.sample(ids, count)),
                "minutes_per_unit": rng.randint(*units),
                "materials": [{"id": f"MAT{i % 4}", "per_unit": rng.randint(1, 3)}],
            }
        )
    capacity = {(m, d): minutes_per_day for m in ids for d in range(span) if _works(doc, m, _day(d))}
    _book(rng, doc, family, capacity, orders, span)
    doc["orders"].append(_new_order(rng, doc, family, capacity))
    return doc


def _machine(rng: random.Random, family: str, machine: str, minutes_per_day: int, span: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": machine, "minutes_per_day": minutes_per_day}
    if family == "calendar":
        entry["weekdays"] = ["mon", "tue", "wed", "thu", "fri"]
        entry["closed_days"] = sorted({_day(rng.randrange(1, span)) for _ in range(2)})
    return entry


def _book(
    rng: random.Random, doc: dict[str, Any], family: str, capacity: dict[tuple[str, int], int], orders: int, span: int
) -> None:
    """Orders booked from a random day on, up to ``load`` of each machine-day; one that does not fit waits."""
    load = {"tight": 0.85, "overload": 0.95, "chain": 0.9, "small": 0.7, "horizon": 0.88}.get(family, 0.8)
    booked = dict.fromkeys(capacity, 0)
    average = load * sum(capacity.values()) / orders
    for n in range(orders):
        product = rng.choice(doc["products"])
        unit = product["minutes_per_unit"]
        size_factor = rng.uniform(0.1, 0.5) if family == "small" else rng.uniform(0.4, 1.6)
        quantity = max(1, int(size_factor * (60 if family == "small" else average)) // unit)
        left, schedule = quantity * unit, []
        for d in range(rng.randrange(span), span):
            for m in product["machines"]:
                if (m, d) not in capacity or not left:
                    continue
                room = int(capacity[(m, d)] * load) - booked[(m, d)]
                take = left if left <= room else max(0, room - room % unit)
                if take > 0:
                    booked[(m, d)] += take
                    schedule.append({"machine": m, "day": _day(d), "minutes": take, "at": d})
                    left -= take
        if left:
            for a in schedule:
                booked[(a["machine"], a["at"])] -= a["minutes"]
            schedule = []
        last = max((a["day"] for a in schedule), default=_day(span))
        slack = rng.randint(0, 3) if family == "chain" else rng.randint(1, 10)
        doc["orders"].append(
            {
                "id": f"O{n:03d}",
                "customer": f"Customer {n}",
                "product": product["code"],
                "quantity": quantity,
                "due": (date.fromisoformat(last) + timedelta(days=slack)).isoformat(),
                "priority": rng.randint(1, 95),
                "schedule": [{k: v for k, v in a.items() if k != "at"} for a in schedule],
            }
        )


def _new_order(
    rng: random.Random, doc: dict[str, Any], family: str, capacity: dict[tuple[str, int], int]
) -> dict[str, Any]:
    target = rng.choice(doc["products"])
    room = sum(capacity.get((m, d), 0) for m in target["machines"] for d in range(4))
    share = {"overload": 1.2, "small": 0.3, "horizon": 2.0}.get(family, rng.uniform(0.3, 0.7))
    quantity = max(1, int(room * share) // target["minutes_per_unit"])
    due = _day(rng.randint(2, 4))
    if family == "materials":
        short = next(m for m in doc["materials"] if m["id"] == target["materials"][0]["id"])
        short["on_hand"] = 0
        short["lead_time_days"] = rng.randint(2, 5)
        due = _day(short["lead_time_days"] + rng.randint(0, 3))
    return {
        "id": "NEW",
        "customer": "Urgent",
        "product": target["code"],
        "quantity": quantity,
        "due": due,
        "priority": rng.randint(85, 100),
        "schedule": [],
    }


def _works(doc: dict[str, Any], machine: str, day: str) -> bool:
    entry = next(m for m in doc["machines"] if m["id"] == machine)
    weekday = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[date.fromisoformat(day).weekday()]
    return day not in entry.get("closed_days", ()) and weekday in entry.get("weekdays", (weekday,))
