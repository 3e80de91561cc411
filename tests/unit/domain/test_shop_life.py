"""The shop's own life as pure steps: a delivery, an order completed, cancelled or progressed; each refusal
with its code, each change one revision up."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.errors import ShopChangeCode, ShopChangeRefusedError, ShopFileError
from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop import life
from production_orchestrator.domain.shop.file_format import read_shop, write_shop
from production_orchestrator.domain.shop.model import Allocation, ProcurementTask, ShopState

RUSH = SCENARIOS["rush-order"].state
TODAY = "2026-08-12"
RED = "THREAD-RED-40"
SUPPLIER = "orders@threadworks-supply.example"


def _with_lines(state: ShopState, *lines: tuple[int, str]) -> ShopState:
    tasks = tuple(ProcurementTask(material=RED, quantity=q, needed_by=d, supplier_email=SUPPLIER) for q, d in lines)
    return state.model_copy(update={"procurement": tasks})


def _refused(code: ShopChangeCode, call: object, *args: object) -> None:
    with pytest.raises(ShopChangeRefusedError) as caught:
        call(*args)  # type: ignore[operator]
    assert caught.value.code is code


def test_a_shop_that_never_closed_an_order_keeps_its_digest_and_file() -> None:
    # closed_orders is left out while empty: the seeds' digests (and the proposals made on them) stay the same.
    assert "closed_orders" not in RUSH.to_canonical() and "closed_orders" not in write_shop(RUSH)
    assert read_shop(write_shop(RUSH)).digest() == RUSH.digest()


def test_a_delivery_closes_procurement_lines_earliest_needed_first_and_reduces_a_partial_one() -> None:
    shop = _with_lines(RUSH, (300, "2026-08-14"), (200, "2026-08-13"))
    on_hand = shop.material(RED).on_hand  # type: ignore[union-attr]
    change = life.receive(shop, RED, 350, "note 4711")
    after = change.state
    assert after.material(RED).on_hand == on_hand + 350  # type: ignore[union-attr]
    # The line needed on the 13th is the oldest need: closed whole; the 14th's is reduced by what is left.
    assert [(t.quantity, t.needed_by) for t in after.procurement] == [(150, "2026-08-14")]
    assert change.detail["lines_closed"] == [{"quantity": 200, "needed_by": "2026-08-13"}]
    assert change.detail["lines_reduced"] == [{"from": 300, "to": 150, "needed_by": "2026-08-14"}]
    assert after.revision == shop.revision + 1
    # Supply (on hand + incoming) is what it was: the delivered thread is not counted twice.
    incoming = sum(t.quantity for t in after.procurement)
    assert after.material(RED).on_hand + incoming == on_hand + 500  # type: ignore[union-attr]


def test_a_delivery_beyond_the_lines_comes_off_what_was_on_order() -> None:
    red = RUSH.material(RED)
    assert red is not None
    shop = RUSH.model_copy(
        update={
            "materials": tuple(m.model_copy(update={"on_order": 100}) if m.id == RED else m for m in RUSH.materials)
        }
    )
    shop = _with_lines(shop, (50, "2026-08-13"))
    after = life.receive(shop, RED.lower(), 120).state  # another case names the one material it can mean
    assert after.procurement == () and after.material(RED).on_order == 30  # type: ignore[union-attr]
    assert after.material(RED).on_hand == red.on_hand + 120  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("material", "quantity", "ref", "code"),
    [
        ("THREAD-PINK-40", 10, "", ShopChangeCode.UNKNOWN_MATERIAL),
        (RED, 0, "", ShopChangeCode.INVALID_QUANTITY),
        (RED, -5, "", ShopChangeCode.INVALID_QUANTITY),
        (RED, 10, "x" * 201, ShopChangeCode.INVALID_TEXT),
        (RED, 10, "note\x07", ShopChangeCode.INVALID_TEXT),
    ],
)
def test_a_delivery_refuses_bad_input(material: str, quantity: int, ref: str, code: ShopChangeCode) -> None:
    _refused(code, life.receive, RUSH, material, quantity, ref)


def test_cancel_frees_the_machine_days_and_keeps_the_order_apart_with_its_reason() -> None:
    order = RUSH.order("STANDARD-100")
    assert order is not None and order.schedule
    slot = order.schedule[0]
    change = life.cancel(RUSH, "STANDARD-100", "  customer   withdrew ", TODAY)
    after = change.state
    assert after.order("STANDARD-100") is None and after.booked_minutes(slot.machine, slot.day) == 0
    closed = after.closed_order("STANDARD-100")
    assert closed is not None and (closed.status, closed.reason, closed.closed_on) == (
        "cancelled",
        "customer withdrew",
        TODAY,
    )
    assert change.detail["material_freed"] == {"THREAD-BLUE-40": 200}
    assert after.revision == RUSH.revision + 1 and after.digest() != RUSH.digest()
    # The closed order survives export and import, and the same id cannot be both open and closed.
    assert read_shop(write_shop(after)).digest() == after.digest()
    doc = write_shop(after)
    doc["orders"].append(doc["closed_orders"][0]["order"])
    with pytest.raises(
        ShopFileError, match=r"closed_orders\[0\] \(STANDARD-100\)\.order\.id: order .STANDARD-100. is also open"
    ):
        read_shop(doc)


def test_complete_uses_the_material_it_still_held_in_reserve() -> None:
    blue = RUSH.material("THREAD-BLUE-40")
    assert blue is not None
    after = life.complete(RUSH, "STANDARD-100", TODAY).state
    assert after.closed_order("STANDARD-100").status == "complete"  # type: ignore[union-attr]
    assert after.material("THREAD-BLUE-40").on_hand == blue.on_hand - 200  # type: ignore[union-attr]
    # An order that started before today already took its material out of on hand: nothing more goes.
    later = life.complete(RUSH, "STANDARD-100", "2026-08-20").state
    assert later.material("THREAD-BLUE-40").on_hand == blue.on_hand  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("call", "args", "code"),
    [
        (life.complete, ("NOPE-1", TODAY), ShopChangeCode.UNKNOWN_ORDER),
        (life.cancel, ("STANDARD-100", "   ", TODAY), ShopChangeCode.INVALID_TEXT),
        (life.cancel, ("NOPE-1", "why", TODAY), ShopChangeCode.UNKNOWN_ORDER),
        (life.progress, ("STANDARD-100", 0), ShopChangeCode.INVALID_QUANTITY),
        (life.progress, ("STANDARD-100", 360), ShopChangeCode.PROGRESS_TOO_LARGE),
    ],
)
def test_order_changes_refuse_bad_input(call: object, args: tuple[object, ...], code: ShopChangeCode) -> None:
    _refused(code, call, RUSH, *args)


def test_progress_on_an_order_not_scheduled_is_refused() -> None:
    order = RUSH.order("STANDARD-100")
    assert order is not None
    waiting = RUSH.with_order(order.model_copy(update={"id": "WAITING-1", "schedule": ()}))
    _refused(ShopChangeCode.ORDER_NOT_SCHEDULED, life.progress, waiting, "WAITING-1", 30)


def test_a_closed_order_cannot_be_closed_or_progressed_again() -> None:
    done = life.complete(RUSH, "STANDARD-100", TODAY).state
    _refused(ShopChangeCode.ORDER_CLOSED, life.cancel, done, "standard-100", "late", TODAY)
    _refused(ShopChangeCode.ORDER_CLOSED, life.complete, done, "STANDARD-100", TODAY)
    _refused(ShopChangeCode.ORDER_CLOSED, life.progress, done, "STANDARD-100", 10)


def test_progress_removes_minutes_earliest_first() -> None:
    order = RUSH.order("STANDARD-100")
    assert order is not None
    spread = order.model_copy(
        update={
            "schedule": (
                Allocation(machine="EMB-01", day="2026-08-12", minutes=120),
                Allocation(machine="EMB-01", day="2026-08-13", minutes=240),
            )
        }
    )
    shop = RUSH.with_order(spread)
    after = life.progress(shop, "STANDARD-100", 150).state.order("STANDARD-100")
    assert after is not None
    assert [(a.day, a.minutes) for a in after.schedule] == [("2026-08-13", 210)]
