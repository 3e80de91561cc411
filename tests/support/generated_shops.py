"""Generated shops of any size for the benchmark and the store contract: valid, booked to about 70%.

``generate(machines, orders)`` books orders into a 90-day horizon (split over days and machines, due
dates after their schedule) and adds ``URGENT``, an unscheduled high-priority order due in three days that
only fits by moving lower-priority work. ``scarce=True`` stocks each material at a tenth of what the
scheduled orders use, so the shop already lacks material before any request (as a real shop often does).
"""

from __future__ import annotations

import random
from typing import Any

from production_orchestrator.domain.planning.greedy import HORIZON_DAYS
from production_orchestrator.domain.shop.model import add_days, day_range

PLANNING_DAY = "2027-01-04"
LOAD = 0.7


def generate(machines: int, orders: int, seed: int = 7, scarce: bool = False) -> dict[str, Any]:
    """A valid shop document booked to about LOAD of its capacity, plus the unscheduled order ``URGENT``."""
    rng = random.Random(seed)
    days = day_range(PLANNING_DAY, HORIZON_DAYS)
    machine_ids = [f"M{i:03d}" for i in range(machines)]
    closed = {m: set(rng.sample(days, 3)) for m in machine_ids}
    doc: dict[str, Any] = {
        "name": f"bench-{machines}-{orders}",
        "timezone": "Europe/Berlin",
        "operator_email": "ops@bench.example",
        "machines": [{"id": m, "minutes_per_day": 480, "closed_days": sorted(closed[m])} for m in machine_ids],
        "materials": [
            {"id": f"MAT{i:02d}", "on_hand": 200_000, "supplier_email": f"s{i % 5}@supply.example", "lead_time_days": 2}
            for i in range(30)
        ],
        "products": [],
        "orders": [],
    }
    for i in range(max(5, machines)):
        allowed = sorted(rng.sample(machine_ids, min(len(machine_ids), rng.randint(1, 3))))
        uses = [{"id": f"MAT{j:02d}", "per_unit": rng.randint(1, 3)} for j in rng.sample(range(30), 2)]
        doc["products"].append(
            {
                "code": f"P{i:03d}",
                "description": f"product {i}",
                "machines": allowed,
                "minutes_per_unit": 5,
                "materials": uses,
            }
        )
    booked = {(m, d): 0 for m in machine_ids for d in days if d not in closed[m]}
    average = LOAD * len(booked) * 480 / orders
    for n in range(orders):
        product = rng.choice(doc["products"])
        quantity = max(1, int(rng.uniform(0.5, 1.5) * average) // 5)
        left, schedule = quantity * 5, []
        for day in days[rng.randrange(HORIZON_DAYS - 5) :]:
            for m in product["machines"]:
                take = min(left, 480 - booked.get((m, day), 480))
                if take > 0:
                    booked[(m, day)] += take
                    schedule.append({"machine": m, "day": day, "minutes": take})
                    left -= take
            if not left:
                break
        if left:  # did not fit: give it back and leave the order unscheduled
            for a in schedule:
                booked[(a["machine"], a["day"])] -= a["minutes"]
            schedule = []
        due = add_days(schedule[-1]["day"], rng.randint(2, 20)) if schedule else add_days(PLANNING_DAY, 60)
        doc["orders"].append(
            {"id": f"ORD-{n:05d}", "customer": f"Customer {n % 300}", "customer_email": f"c{n % 300}@c.example",
             "product": product["code"], "quantity": quantity, "due": due, "priority": rng.randint(1, 80),
             "schedule": schedule}
        )  # fmt: skip
    if scarce:
        _make_scarce(doc)
    target = doc["products"][0]
    window = sum(480 for m in target["machines"] for d in days[:3] if (m, d) in booked)
    doc["orders"].append(
        {"id": "URGENT", "customer": "Urgent", "customer_email": "u@c.example", "product": target["code"],
         "quantity": max(1, window // 2 // 5), "due": days[2], "priority": 99, "schedule": []}
    )  # fmt: skip
    return doc


def _make_scarce(doc: dict[str, Any]) -> None:
    """Stock each material at a tenth of what the scheduled orders use, with six days of lead time."""
    products = {p["code"]: p for p in doc["products"]}
    used = dict.fromkeys((m["id"] for m in doc["materials"]), 0)
    for order in doc["orders"]:
        for m in products[order["product"]]["materials"] if order["schedule"] else ():
            used[m["id"]] += order["quantity"] * m["per_unit"]
    for m in doc["materials"]:
        m["on_hand"] = used[m["id"]] // 10
        m["lead_time_days"] = 6
