"""The three reference scenarios of DESIGN.md section 3, the product catalog, and the customer e-mails."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from .errors import ValidationError
from .shop import Machine, MaterialUse, Order, ShopState

TODAY = "2026-08-12"
TOMORROW = "2026-08-13"
DAYS = (TODAY, TOMORROW)
MINUTES_PER_DAY = 8 * 60


class CatalogItem(BaseModel):
    """What one unit of a product costs the shop in machine time and thread."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    product_code: str
    description: str
    machine_id: str
    minutes_per_unit: int = Field(gt=0)
    material_id: str
    material_per_unit: int = Field(gt=0)
    max_quantity: int = Field(gt=0)


CATALOG: dict[str, CatalogItem] = {
    item.product_code: item
    for item in (
        CatalogItem(
            product_code="CREST-PATCH-RED",
            description="embroidered club crest patch, red",
            machine_id="EMB-01",
            minutes_per_unit=2,
            material_id="THREAD-RED-40",
            material_per_unit=10,
            max_quantity=2000,
        ),
        CatalogItem(
            product_code="JERSEY-NAVY",
            description="team jersey with embroidered number, navy",
            machine_id="EMB-01",
            minutes_per_unit=12,
            material_id="THREAD-NAVY-40",
            material_per_unit=20,
            max_quantity=500,
        ),
        CatalogItem(
            product_code="MONOGRAM-GOLD",
            description="metallic gold monogram",
            machine_id="EMB-02",
            minutes_per_unit=6,
            material_id="THREAD-GOLD-60",
            material_per_unit=30,
            max_quantity=500,
        ),
    )
}


@dataclass(frozen=True)
class Scenario:
    """A seeded shop plus the customer e-mail that brings in its target order."""

    name: str
    title: str
    state: ShopState
    target_order_id: str
    customer_email: str


def _existing(
    order_id: str, customer: str, priority: int, minutes: int, material: str, qty: int, machine: str
) -> Order:
    return Order(
        order_id=order_id,
        customer=customer,
        customer_email=f"orders@{customer.lower().replace(' ', '-')}.example",
        product_code="STOCK-EMBROIDERY",
        quantity=qty // 10,
        priority=priority,
        requested_day=TODAY,
        machine_id=machine,
        machine_minutes=minutes,
        materials=(MaterialUse(material_id=material, quantity=qty),),
        scheduled_day=TODAY,
    )


def _email(sender: str, customer: str, order_id: str, product: str, quantity: int, priority: int) -> str:
    return (
        f"From: {sender}\n"
        f"Subject: Rush request {order_id}\n"
        "\n"
        "Hello, we need this as soon as possible:\n"
        f"Customer: {customer}\n"
        f"Order: {order_id}\n"
        f"Product: {product}\n"
        f"Quantity: {quantity}\n"
        f"Needed by: {TODAY}\n"
        f"Priority: {priority}\n"
    )


def _state(name: str, inventory: dict[str, int], machine: str, orders: tuple[Order, ...]) -> ShopState:
    return ShopState(
        scenario=name,
        days=DAYS,
        revision=1,
        inventory=inventory,
        machines=(Machine(machine_id=machine, minutes_per_day=MINUTES_PER_DAY),),
        orders=orders,
    )


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            name="rush-order",
            title="Rush crest patches for Northside FC",
            state=_state(
                "rush-order",
                {"THREAD-RED-40": 600, "THREAD-BLUE-40": 2000},
                "EMB-01",
                (_existing("STANDARD-100", "Harbor Cafe", 20, 360, "THREAD-BLUE-40", 200, "EMB-01"),),
            ),
            target_order_id="RUSH-200",
            customer_email=_email(
                "coach@northside-fc.example", "Northside FC", "RUSH-200", "CREST-PATCH-RED", 120, 100
            ),
        ),
        Scenario(
            name="team-jerseys",
            title="Team jerseys for Riverside United",
            state=_state(
                "team-jerseys",
                {"THREAD-NAVY-40": 2000, "THREAD-WHITE-40": 900},
                "EMB-01",
                (
                    _existing("CAPS-110", "Lakeside Gym", 10, 120, "THREAD-WHITE-40", 150, "EMB-01"),
                    _existing("TOTES-120", "Book Nook", 15, 180, "THREAD-NAVY-40", 250, "EMB-01"),
                ),
            ),
            target_order_id="JERSEY-310",
            customer_email=_email(
                "kit@riverside-united.example", "Riverside United", "JERSEY-310", "JERSEY-NAVY", 35, 90
            ),
        ),
        Scenario(
            name="metallic-monogram",
            title="Gold monograms for the Grand Hotel",
            state=_state(
                "metallic-monogram",
                {"THREAD-GOLD-60": 400, "THREAD-BLUE-40": 500},
                "EMB-02",
                (_existing("BATCH-220", "City Uniforms", 30, 360, "THREAD-BLUE-40", 100, "EMB-02"),),
            ),
            target_order_id="GOLD-500",
            customer_email=_email("events@grand-hotel.example", "Grand Hotel", "GOLD-500", "MONOGRAM-GOLD", 50, 80),
        ),
    )
}


def scenario(name: str) -> Scenario:
    """The reference scenario called ``name``; a clear error for anything else."""
    try:
        return SCENARIOS[name]
    except KeyError:
        known = ", ".join(sorted(SCENARIOS))
        raise ValidationError(f"unknown scenario {name!r} (known: {known})") from None
